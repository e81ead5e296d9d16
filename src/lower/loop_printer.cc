// Prints the loop IR (loop_text.h).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "lower/loop_text.h"
#include "ops/attr.h"
#include "ops/op_info.h"

namespace kiln {

namespace {

class Printer {
 public:
  explicit Printer(const LoopProgram& p) : p_(p) {}

  std::string run() {
    out_ += "loops @" + p_.name + "(";
    for (size_t i = 0; i < p_.inputs.size(); ++i) {
      const Buffer& b = buf(p_.inputs[i]);
      out_ += (i ? ", %" : "%") + b.name + ": " + buffer_type_string(b.dtype, b.sizes);
    }
    out_ += ") -> (";
    for (size_t i = 0; i < p_.outputs.size(); ++i) out_ += (i ? ", %" : "%") + buf(p_.outputs[i]).name;
    out_ += ") {\n";
    for (const Buffer& b : p_.buffers)
      if (b.kind != BufferKind::Input)
        out_ += "  buffer %" + b.name + " : " + buffer_type_string(b.dtype, b.sizes) + " strides " +
                int_list_text(b.strides) + "\n";
    for (const LoopKernel& k : p_.kernels) kernel(k);
    out_ += "}\n";
    return std::move(out_);
  }

 private:
  const Buffer& buf(int i) const { return p_.buffers[static_cast<size_t>(i)]; }

  void line(int depth, const std::string& s) {
    out_ += std::string(static_cast<size_t>(2 * (depth + indent_)), ' ') + s + "\n";
  }

  std::string operand(const ExternOperand& o) const {
    if (o.buffer < 0) return o.literal.to_string();
    const Buffer& b = buf(o.buffer);
    std::string s = "%" + b.name;
    if (o.sizes == b.sizes && o.strides == b.strides && o.offset == 0) return s;
    return s + " as " + int_list_text(o.sizes) + " strides " + int_list_text(o.strides) + " offset " +
           std::to_string(o.offset);
  }

  std::string buffer_list(const std::vector<int>& buffers) const {
    std::string s = "(";
    for (size_t i = 0; i < buffers.size(); ++i) s += (i ? ", %" : "%") + buf(buffers[i]).name;
    return s + ")";
  }

  // cond and while (loop_control.h): the header, then each region's kernels, nested.
  void control_kernel(const LoopKernel& k) {
    const bool is_cond = k.kind == KernelKind::Cond;
    std::string head = "kernel @" + k.name;
    head += is_cond ? " cond %" + buf(k.predicate).name
                    : " while carry " + buffer_list(k.carried) + " next " + buffer_list(k.next);
    line(1, head + " {");
    for (size_t r = 0; r < k.regions.size(); ++r) {
      const std::string label =
          is_cond ? (r == 0 ? "then" : "else") : (r == 0 ? "cond %" + buf(k.predicate).name : "body");
      line(2, label + " {");
      indent_ += 2;
      for (const LoopKernel& inner : k.regions[r]) kernel(inner);
      indent_ -= 2;
      line(2, "}");
    }
    line(1, "}");
  }

  void kernel(const LoopKernel& k) {
    if (k.kind == KernelKind::Cond || k.kind == KernelKind::While) {
      control_kernel(k);
      return;
    }
    if (k.kind == KernelKind::Extern) {
      std::string s = "kernel @" + k.name + " extern " + std::string(op_info(k.op).name()) + "(";
      for (size_t i = 0; i < k.operands.size(); ++i) s += (i ? ", " : "") + operand(k.operands[i]);
      s += ")";
      if (!k.attrs.empty()) s += " " + k.attrs.to_string();
      s += " -> (";
      for (size_t i = 0; i < k.results.size(); ++i) s += (i ? ", %" : "%") + buf(k.results[i]).name;
      line(1, s + ")");
      return;
    }
    if (k.kind == KernelKind::Fused) {
      line(1, "kernel @" + k.name + " fused {");
      const int shared = static_cast<int>(k.loops.size());
      for (int d = 0; d < shared; ++d)
        line(2 + d,
             "for i" + std::to_string(d) + " in range(" + std::to_string(k.loops[static_cast<size_t>(d)]) + ") {");
      for (const LoopKernel& part : k.parts) {
        line(2 + shared, std::string("part ") + (part.kind == KernelKind::Pointwise ? "pointwise {" : "reduction {"));
        loop_nest(part, shared, 3 + shared);
        line(2 + shared, "}");
      }
      for (int d = shared; d-- > 0;) line(2 + d, "}");
      line(1, "}");
      return;
    }
    const char* kind = k.kind == KernelKind::Pointwise ? " pointwise {"
                       : k.kind == KernelKind::Scan    ? " scan {"
                                                       : " reduction {";
    line(1, "kernel @" + k.name + kind);
    loop_nest(k, 0, 2);
    line(1, "}");
  }

  // The loops of `k` from loop `first` on, and its body; the first loop at indent `depth`.
  void loop_nest(const LoopKernel& k, int first, int depth) {
    names_.assign(k.body.size(), -1);
    next_ = 0;
    const int outer = k.num_outer_loops();
    const int nloops = static_cast<int>(k.loops.size());
    auto at = [&](int d) { return depth + d - first; };
    for (int d = first; d < nloops; ++d)
      line(at(d), "for i" + std::to_string(d) + " in range(" + std::to_string(k.loops[static_cast<size_t>(d)]) + ")" +
                      (d >= outer ? " reduce {" : " {"));
    const size_t split = k.kind == KernelKind::Reduction ? static_cast<size_t>(k.reduce_op) : k.body.size();
    for (size_t i = 0; i < split; ++i) body_op(k, i, at(nloops));
    for (int d = nloops; d-- > std::max(outer, first);) line(at(d), "}");
    for (size_t i = split; i < k.body.size(); ++i) body_op(k, i, at(std::max(outer, first)));
    for (int d = outer; d-- > first;) line(at(d), "}");
  }

  std::string ref(int i) const { return "%" + std::to_string(names_[static_cast<size_t>(i)]); }

  // A load's or store's index: its indirect terms (`4*%9`), then the index expression.
  std::string access_index(const BodyOp& op) const {
    // A term's sign joins its magnitude, except INT64_MIN's, which only a negative integer
    // token holds ("+ -9223372036854775808*%9" parses back; "- 9223372036854775808*%9" does not).
    static const std::string kMin = std::to_string(INT64_MIN);
    std::string s;
    for (size_t j = 0; j < op.indirect.size(); ++j) {
      const int64_t c = op.indirect[j];
      if (c == INT64_MIN) {
        s += (s.empty() ? "" : " + ") + kMin + "*" + ref(op.indirect_arg(j));
        continue;
      }
      s += s.empty() ? (c < 0 ? "-" : "") : (c < 0 ? " - " : " + ");
      const int64_t mag = c < 0 ? -c : c;
      s += (mag == 1 ? "" : std::to_string(mag) + "*") + ref(op.indirect_arg(j));
    }
    const std::string rest = op.index.to_string();
    if (s.empty()) return rest;
    if (rest == "0") return s;
    if (rest.rfind(kMin, 0) == 0) return s + " + " + rest;
    return s + (rest[0] == '-' ? " - " + rest.substr(1) : " + " + rest);
  }

  void body_op(const LoopKernel& k, size_t i, int depth) {
    const BodyOp& op = k.body[i];
    std::string s;
    if (op.has_result()) {
      names_[i] = next_++;
      s = ref(static_cast<int>(i)) + " = ";
    }
    const std::string dt = std::string(" : ") + std::string(dtype_name(op.dtype));
    switch (op.kind) {
      case BodyOp::Kind::Load:
        s += "load %" + buf(op.buffer).name + "[" + access_index(op) + "]";
        if (op.masked) s += " if " + ref(op.mask()) + " else " + op.value.to_string();
        break;
      case BodyOp::Kind::Indirect:
        s += "indirect " + ref(op.args.at(0)) + ", size " + std::to_string(op.size) + (op.wrap ? ", wrap, " : ", ") +
             std::string(op_info(op.op).name()) + " dim " + std::to_string(op.dim) + " at " + quote_string(op.where);
        break;
      case BodyOp::Kind::Const: s += "const " + op.value.to_string() + dt; break;
      case BodyOp::Kind::Index: s += "index " + op.index.to_string(); break;
      case BodyOp::Kind::Compute:
        s += std::string(op_info(op.op).name());
        for (size_t a = 0; a < op.args.size(); ++a) s += (a ? ", " : " ") + ref(op.args[a]);
        if (!op.attrs.empty()) s += " " + op.attrs.to_string();
        s += dt;
        break;
      case BodyOp::Kind::Cast: s += "cast " + ref(op.args.at(0)) + dt; break;
      case BodyOp::Kind::Reduce:
        s += "reduce " + std::string(reduce_kind_name(op.reduce));
        for (size_t a = 0; a < op.args.size(); ++a) s += (a ? ", " : " ") + ref(op.args[a]);
        s += dt;
        break;
      case BodyOp::Kind::Random:
        s += "random " + std::string(random_kind_name(op.random.kind)) + " " + ref(op.args.at(0));
        if (op.args.size() == 3) s += " state " + ref(op.args[1]) + ", " + ref(op.args[2]);
        s += " seed " + std::to_string(op.random.seed);
        if (op.random.modulus != 0) s += " mod " + std::to_string(op.random.modulus);
        s += dt;
        break;
      case BodyOp::Kind::Store:
        s += "store %" + buf(op.buffer).name + "[" + access_index(op) + "], " + ref(op.args.at(0));
        if (op.unique) s += " unique";
        break;
    }
    line(depth, s);
  }

  const LoopProgram& p_;
  std::string out_;
  std::vector<int> names_;
  int next_ = 0;
  int indent_ = 0;  // levels added to every line: kernels nested in control kernels' regions
};

}  // namespace

std::string buffer_type_string(DType dtype, const std::vector<int64_t>& sizes) {
  return std::string(dtype_name(dtype)) + int_list_text(sizes);
}

std::string int_list_text(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

std::string print_loops(const LoopProgram& p) { return Printer(p).run(); }

}  // namespace kiln
