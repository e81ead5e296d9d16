#include "codegen/cpp/cpp_kernel.h"

#include <cmath>
#include <set>
#include <vector>

#include "codegen/collapse_loops.h"
#include "codegen/cpp/cpp_index.h"
#include "codegen/cpp/cpp_reduce.h"
#include "codegen/cpp/cpp_scalar.h"
#include "codegen/cpp/cpp_schedule.h"
#include "support/check.h"

namespace kiln::cpp {

namespace {

std::string extents_text(const std::vector<int64_t>& loops, size_t first, size_t last) {
  std::string s = "[";
  for (size_t d = first; d < last; ++d) s += (d > first ? ", " : "") + std::to_string(loops[d]);
  return s + "]";
}

// "loops [4] reduce [8]" or "loops [4, 8]".
std::string loops_text(const LoopKernel& k) {
  const size_t outer = static_cast<size_t>(k.kind == KernelKind::Reduction ? k.num_outer_loops() : k.loops.size());
  std::string s = "loops " + extents_text(k.loops, 0, outer);
  if (k.kind == KernelKind::Reduction) s += " reduce " + extents_text(k.loops, outer, k.loops.size());
  return s;
}

class KernelWriter {
 public:
  KernelWriter(const LoopProgram& p, const LoopKernel& original, const CppEmitOptions& o)
      : p_(p), k_(o.collapse ? collapse_loops(original) : original), s_(schedule_cpp_kernel(k_, o)) {
    out_ = "// kernel @" + original.name + ": " + (original.kind == KernelKind::Reduction ? "reduction" : "pointwise") +
           ", " + loops_text(original);
    if (k_.loops != original.loops) out_ += " (run as " + loops_text(k_).substr(6) + ")";
    out_ += "\n";
  }

  std::string write(const std::string& symbol) {
    line("extern \"C\" void " + symbol + "(char* const* buffers) {");
    ++depth_;
    pointers();
    const int n = static_cast<int>(k_.loops.size());
    if (k_.kind == KernelKind::Pointwise) {
      for (int d = 0; d < n; ++d) open_loop(d);
      ops(0, k_.body.size());
      for (int d = 0; d < n; ++d) close_block();
    } else {
      reduction();
    }
    --depth_;
    line("}");
    return out_;
  }

 private:
  void line(const std::string& text) {
    size_t start = 0;
    while (start <= text.size()) {  // one indented line per '\n'-separated part
      const size_t end = text.find('\n', start);
      out_ += std::string(2 * static_cast<size_t>(depth_), ' ') + text.substr(start, end - start) + "\n";
      if (end == std::string::npos) break;
      start = end + 1;
    }
  }

  std::string pointer(int b) const {
    return "b" + std::to_string(b) + "_" + identifier(p_.buffers[static_cast<size_t>(b)].name);
  }
  static std::string value(int i) { return "v" + std::to_string(i); }
  DType dtype(int i) const { return k_.body[static_cast<size_t>(i)].dtype; }

  // `const float* __restrict__ b0_x = (const float*)buffers[0];` per buffer used, in order.
  void pointers() {
    std::set<int> used, stored;
    for (const BodyOp& op : k_.body) {
      if (op.kind == BodyOp::Kind::Load || op.kind == BodyOp::Kind::Store) used.insert(op.buffer);
      if (op.kind == BodyOp::Kind::Store) stored.insert(op.buffer);
    }
    for (int b : used) {
      const std::string type = std::string(stored.count(b) ? "" : "const ") +
                               std::string(storage_type(p_.buffers[static_cast<size_t>(b)].dtype)) + "*";
      line(type + " __restrict__ " + pointer(b) + " = (" + type + ")buffers[" + std::to_string(b) + "];");
    }
  }

  void pragma(int d) {
    const bool reduce = k_.kind == KernelKind::Reduction && d >= k_.num_outer_loops();
    std::string s;
    if (d == s_.parallel_loop) {
      s = "omp parallel for";
      if (s_.parallel_collapse > 1) s += " collapse(" + std::to_string(s_.parallel_collapse) + ")";
      if (d == s_.simd_loop) s = "omp parallel for simd";
    } else if (d == s_.simd_loop) {
      s = "omp simd";
    } else {
      return;
    }
    if (reduce && !s_.reduction.empty()) s += " " + s_.reduction;
    line("#pragma " + s);
  }

  void open_loop(int d) {
    pragma(d);
    const std::string i = "i" + std::to_string(d);
    line("for (int64_t " + i + " = 0; " + i + " < " + std::to_string(k_.loops[static_cast<size_t>(d)]) + "; ++" + i +
         ") {");
    ++depth_;
  }
  void close_block() {
    --depth_;
    line("}");
  }

  void ops(size_t from, size_t to) {
    for (size_t i = from; i < to; ++i) op(static_cast<int>(i));
  }

  void op(int i) {
    const BodyOp& op = k_.body[static_cast<size_t>(i)];
    auto define = [&](const std::string& expr) {
      line("const " + std::string(value_type(op.dtype)) + " " + value(i) + " = " + expr + ";");
    };
    switch (op.kind) {
      case BodyOp::Kind::Load: {
        const Buffer& b = p_.buffers[static_cast<size_t>(op.buffer)];
        define(convert_or_self(load_value(pointer(op.buffer) + "[" + index_cpp(op.index) + "]", b.dtype), b.dtype, op.dtype));
        return;
      }
      case BodyOp::Kind::Const: define(const_literal(op.value, op.dtype)); return;
      case BodyOp::Kind::Cast: define(convert_value(value(op.args.at(0)), dtype(op.args.at(0)), op.dtype)); return;
      case BodyOp::Kind::Compute: {
        std::vector<std::string> args;
        std::vector<DType> dts;
        for (int a : op.args) {
          args.push_back(value(a));
          dts.push_back(dtype(a));
        }
        define(compute_expr(op.op, args, dts, op.dtype));
        return;
      }
      case BodyOp::Kind::Store: {
        const Buffer& b = p_.buffers[static_cast<size_t>(op.buffer)];
        line(pointer(op.buffer) + "[" + index_cpp(op.index) + "] = " +
             store_value(value(op.args.at(0)), dtype(op.args.at(0)), b.dtype) + ";");
        return;
      }
      case BodyOp::Kind::Reduce: KILN_UNREACHABLE("reduce outside a reduction's epilogue");
    }
  }

  // A load's value has the buffer's dtype; a load that names another dtype converts.
  static std::string convert_or_self(const std::string& x, DType from, DType to) {
    return from == to ? x : convert_value(x, from, to);
  }

  void reduction() {
    const int outer = k_.num_outer_loops(), n = static_cast<int>(k_.loops.size());
    const size_t red = static_cast<size_t>(k_.reduce_op);
    const BodyOp& rop = k_.body[red];
    for (size_t i = red + 1; i < k_.body.size(); ++i)
      for (int a : k_.body[i].args)
        KILN_CHECK(static_cast<size_t>(a) >= red) << "kernel @" << k_.name << ": the epilogue reads a value of the reduce loops";
    const Accumulator acc = accumulator_for(k_);
    for (int d = 0; d < outer; ++d) open_loop(d);
    line(acc.type + " acc = " + acc.init + ";");
    if (acc.nan_flag) line("int acc_nan = 0;");
    for (int d = outer; d < n; ++d) open_loop(d);
    ops(0, red);
    line(acc.update(value(rop.args.at(0))));
    for (int d = outer; d < n; ++d) close_block();
    if (acc.nan_flag) line("if (acc_nan) acc = " + float_literal(NAN, acc.type == "float") + ";");
    line("const " + std::string(value_type(rop.dtype)) + " " + value(static_cast<int>(red)) + " = " + acc.result(rop.dtype) +
         ";");
    ops(red + 1, k_.body.size());
    for (int d = 0; d < outer; ++d) close_block();
  }

  const LoopProgram& p_;
  const LoopKernel k_;
  const CppSchedule s_;
  std::string out_;
  int depth_ = 0;
};

}  // namespace

std::string emit_cpp_kernel(const LoopProgram& p, const LoopKernel& k, const std::string& symbol,
                            const CppEmitOptions& o) {
  KILN_CHECK(k.kind != KernelKind::Extern) << "extern kernel @" << k.name << " has no C++ body";
  return KernelWriter(p, k, o).write(symbol);
}

}  // namespace kiln::cpp
