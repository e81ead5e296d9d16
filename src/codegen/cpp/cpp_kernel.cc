#include "codegen/cpp/cpp_kernel.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <vector>

#include "codegen/collapse_loops.h"
#include "codegen/cpp/cpp_index.h"
#include "codegen/cpp/cpp_lane_reduce.h"
#include "codegen/cpp/cpp_math.h"
#include "codegen/cpp/cpp_random.h"
#include "codegen/cpp/cpp_reduce.h"
#include "codegen/cpp/cpp_row_scratch.h"
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

// Whether `k` (any part of it) checks an indirect index.
bool has_index_checks(const LoopKernel& k) {
  for (const LoopKernel* part : loop_kernel_parts(k))
    for (const BodyOp& op : part->body)
      if (op.kind == BodyOp::Kind::Indirect) return true;
  return false;
}

class KernelWriter {
 public:
  KernelWriter(const LoopProgram& p, const LoopKernel& original, const CppEmitOptions& o)
      : p_(p),
        o_(o),
        k_(o.collapse ? collapse_loops(original) : original),
        s_(schedule_cpp_kernel(k_, o)),
        checks_(has_index_checks(original)) {
    if (original.kind == KernelKind::Fused) {
      out_ = "// kernel @" + original.name + ": fused, rows " + extents_text(original.loops, 0, original.loops.size()) +
             ", " + std::to_string(original.parts.size()) + " parts run per row\n";
      return;
    }
    const char* kind = original.kind == KernelKind::Reduction ? "reduction"
                       : original.kind == KernelKind::Scan    ? "scan"
                                                              : "pointwise";
    out_ = "// kernel @" + original.name + ": " + kind + ", " + loops_text(original);
    if (k_.loops != original.loops) out_ += " (run as " + loops_text(k_).substr(6) + ")";
    out_ += "\n";
  }

  std::string write(const std::string& symbol) {
    line("extern \"C\" void " + symbol + "(char* const* buffers) {");
    ++depth_;
    pointers();
    // Index checks: each failed one sets kiln_bad (an OpenMP |-reduction, so the loops still
    // vectorize) and reads at index 0 instead; the runtime's error slot follows the buffers.
    if (checks_) line("int kiln_bad = 0;");
    if (k_.kind == KernelKind::Fused)
      fused();
    else if (is_column_reduction(k_) && reduce_ops_end(k_) == static_cast<size_t>(k_.reduce_op) + 1 && !checks_)
      column_reduction();  // one accumulator array: one reduce op
    else if (streams_its_store() && !checks_)
      streaming_nest();
    else
      nest();
    if (checks_) line("if (kiln_bad) *(int*)buffers[" + std::to_string(p_.buffers.size()) + "] = 1;");
    --depth_;
    line("}");
    return out_;
  }

 private:
  // A part of a fused kernel, written at `depth` inside the shared loops (`first` of them);
  // `save` and `reuse` are its row-scratch values (cpp_row_scratch.h).
  KernelWriter(const LoopProgram& p, const LoopKernel& part, const CppEmitOptions& o, int first, int depth,
               std::map<int, int> save, std::map<int, int> reuse, bool checks)
      : p_(p),
        o_(o),
        k_(part),
        s_(part_schedule(part, o, first)),
        checks_(checks),
        first_(first),
        depth_(depth),
        save_(std::move(save)),
        reuse_(std::move(reuse)) {}

  static CppSchedule part_schedule(const LoopKernel& part, const CppEmitOptions& o, int first) {
    CppSchedule s = schedule_cpp_kernel(part, o);
    s.parallel_loop = -1;  // the rows run in parallel
    s.parallel_collapse = 1;
    if (s.simd_loop < first) s.simd_loop = -1;
    return s;
  }

  // The loops from first_ on and the body.
  void nest() {
    const int n = static_cast<int>(k_.loops.size());
    if (k_.kind == KernelKind::Pointwise || k_.kind == KernelKind::Scan) {
      const std::vector<bool> hoisted = invariant_below(first_, 0, k_.body.size());
      ops(0, k_.body.size(), hoisted, true);
      for (int d = first_; d < n; ++d) open_loop(d);
      ops(0, k_.body.size(), hoisted, false);
      for (int d = first_; d < n; ++d) close_block();
    } else {
      reduction();
    }
  }

  // The kernel's one store; null when it has none or several.
  const BodyOp* only_store() const {
    const BodyOp* store = nullptr;
    for (const BodyOp& op : k_.body) {
      if (op.kind != BodyOp::Kind::Store) continue;
      if (store) return nullptr;
      store = &op;
    }
    return store;
  }

  // Whether its one store writes float32 values into a float32 buffer.
  bool stores_f32(const BodyOp& store) const {
    return p_.buffers[static_cast<size_t>(store.buffer)].dtype == DType::F32 && dtype(store.args.at(0)) == DType::F32;
  }

  // Whether this (collapsed) pointwise kernel writes one contiguous float32 output, at least
  // CppEmitOptions::streaming_store_bytes of it, over one loop: out[i0].
  bool streams_its_store() const {
    if (k_.kind != KernelKind::Pointwise || k_.loops.size() != 1 || !o_.openmp || o_.streaming_store_bytes <= 0)
      return false;
    const BodyOp* store = only_store();
    if (!store || !stores_f32(*store)) return false;
    const IndexExpr& ix = store->index;
    return ix.terms.size() == 1 && ix.coeff_of(0) == 1 && ix.constant == 0 &&
           k_.loops[0] * 4 >= o_.streaming_store_bytes;
  }

  // One block of 16 points of a streamed store: the innermost loop's variable runs over
  // `first` + j for j < 16 under omp simd, the values going into an aligned array, which one
  // non-temporal store writes at the store's index for the block's first point.
  void stream_block(const BodyOp& store, const std::string& first, const std::vector<bool>& hoisted) {
    const std::string var = "i" + std::to_string(static_cast<int>(k_.loops.size()) - 1);
    line("float block[16] __attribute__((aligned(64)));");
    line("#pragma omp simd");
    line("for (int64_t j = 0; j < 16; ++j) {");
    ++depth_;
    line("const int64_t " + var + " = " + first + " + j;");
    block_store_ = true;
    ops(0, k_.body.size(), hoisted, false);
    block_store_ = false;
    close_block();
    line("const int64_t " + var + " = " + first + ";");
    line("kiln_stream_f32x16(" + pointer(store.buffer) + " + (" + index_cpp(store.index) + "), block);");
  }

  // streams_its_store()'s kernel: where the compiler targets AVX-512, blocks of 16 elements
  // are computed into an aligned array and written with one non-temporal store each (from the
  // first 64-byte boundary of the output; the elements before it and after the last whole
  // block are written plainly), then each thread fences its stores. Elsewhere, nest().
  void streaming_nest() {
    const int64_t n = k_.loops[0];
    const BodyOp& store = *only_store();
    const std::string out = pointer(store.buffer);
    const std::vector<bool> hoisted = invariant_below(0, 0, k_.body.size());
    line("#if defined(__AVX512F__)");
    ops(0, k_.body.size(), hoisted, true);
    line("const int64_t n = " + std::to_string(n) + ";");
    line("// Elements before the output's first 64-byte boundary; all of them when it is not 4-byte aligned.");
    line("const int64_t head = ((uintptr_t)" + out +
         " & 3) != 0 ? n : std::min<int64_t>(n, (int64_t)(((64 - ((uintptr_t)" + out + " & 63)) & 63) / 4));");
    line("const int64_t blocks = (n - head) / 16;");
    line("#pragma omp parallel");
    line("{");
    ++depth_;
    line("#pragma omp for");
    line("for (int64_t blk = 0; blk < blocks; ++blk) {");
    ++depth_;
    stream_block(store, "head + blk * 16", hoisted);
    close_block();
    line("kiln_store_fence();");
    close_block();
    for (const char* range : {"int64_t i0 = 0; i0 < head; ++i0", "int64_t i0 = head + blocks * 16; i0 < n; ++i0"}) {
      line(std::string("for (") + range + ") {");
      ++depth_;
      ops(0, k_.body.size(), hoisted, false);
      close_block();
    }
    line("#else");
    nest();
    line("#endif");
  }

  // Whether this pointwise part of a fused kernel writes its row of one large float32 output
  // (at least CppEmitOptions::streaming_store_bytes in all) contiguously, in whole 64-byte
  // lines when the output is 64-byte aligned: one loop of a multiple of 16 points past the
  // rows, storing at index `i<inner> + (multiples of 16)`, and no load of that output.
  bool streams_its_row_store() const {
    const int inner = first_;
    if (k_.kind != KernelKind::Pointwise || checks_ || !o_.openmp || o_.streaming_store_bytes <= 0 ||
        static_cast<int>(k_.loops.size()) != inner + 1 || k_.loops[static_cast<size_t>(inner)] % 16 != 0)
      return false;
    const BodyOp* store = only_store();
    if (!store || !store->indirect.empty() || !stores_f32(*store) ||
        p_.buffers[static_cast<size_t>(store->buffer)].storage_size() * 4 < o_.streaming_store_bytes)
      return false;
    const IndexExpr& ix = store->index;
    if (!ix.is_affine() || ix.coeff_of(inner) != 1 || ix.constant % 16 != 0) return false;
    for (const IndexTerm& t : ix.terms)
      if (t.var != inner && t.coeff % 16 != 0) return false;
    for (const BodyOp& op : k_.body)
      if (op.kind == BodyOp::Kind::Load && op.buffer == store->buffer) return false;
    return true;
  }

  // streams_its_row_store()'s part: where the compiler targets AVX-512 and the output is 64-byte
  // aligned, each block of 16 points is computed into an aligned array and written with one
  // non-temporal store (no read for ownership of the output's lines), and the row's stores are
  // fenced; otherwise nest().
  void streaming_row_nest() {
    const BodyOp& store = *only_store();
    const std::vector<bool> hoisted = invariant_below(first_, 0, k_.body.size());
    line("#if defined(__AVX512F__)");
    line("if (((uintptr_t)" + pointer(store.buffer) + " & 63) == 0) {");
    ++depth_;
    ops(0, k_.body.size(), hoisted, true);
    line("for (int64_t blk = 0; blk < " + std::to_string(k_.loops[static_cast<size_t>(first_)] / 16) + "; ++blk) {");
    ++depth_;
    stream_block(store, "blk * 16", hoisted);
    close_block();
    line("kiln_store_fence();");
    --depth_;
    line("} else");
    line("#endif");
    line("{");
    ++depth_;
    nest();
    close_block();
  }

  void fused() {
    const int rows = static_cast<int>(k_.loops.size());
    int64_t points = 0;
    for (const LoopKernel& part : k_.parts) {
      int64_t n = 1;
      for (int64_t e : part.loops) n = n > INT64_MAX / std::max<int64_t>(1, e) ? INT64_MAX : n * e;
      points = points > INT64_MAX - n ? INT64_MAX : points + n;
    }
    if (o_.openmp && rows > 0 && points >= o_.parallel_threshold && fused_rows_independent(k_))
      line(std::string("#pragma omp parallel for") + (rows > 1 ? " collapse(" + std::to_string(rows) + ")" : "") +
           (checks_ ? " reduction(|:kiln_bad)" : ""));
    for (int d = 0; d < rows; ++d) open_loop_plain(d);
    const RowScratch scratch = plan_row_scratch(k_, rows);
    for (size_t a = 0; a < scratch.arrays.size(); ++a)
      line(std::string(value_type(scratch.arrays[a].dtype)) + " " + scratch_name(static_cast<int>(a)) + "[" +
           std::to_string(scratch.arrays[a].extent) + "];  // row scratch");
    for (size_t j = 0; j < k_.parts.size(); ++j) {
      line(std::string("{  // part ") + std::to_string(j) + ": " +
           (k_.parts[j].kind == KernelKind::Reduction ? "reduction" : "pointwise"));
      KernelWriter part(p_, k_.parts[j], o_, rows, depth_ + 1, scratch.save[j], scratch.reuse[j], checks_);
      if (part.streams_its_row_store())
        part.streaming_row_nest();
      else
        part.nest();
      out_ += part.out_;
      line("}");
    }
    for (int d = 0; d < rows; ++d) close_block();
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
  static std::string scratch_name(int a) { return "rs" + std::to_string(a); }
  // A row-scratch array's element at this part's inner loop point.
  std::string scratch_element(int a) const { return scratch_name(a) + "[i" + std::to_string(first_) + "]"; }
  DType dtype(int i) const { return k_.body[static_cast<size_t>(i)].dtype; }

  // `const float* __restrict__ b0_x = (const float*)buffers[0];` per buffer used, in order.
  void pointers() {
    std::set<int> used, stored;
    for (const LoopKernel* part : loop_kernel_parts(k_))
      for (const BodyOp& op : part->body) {
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
    if (checks_) s += " reduction(|:kiln_bad)";
    line("#pragma " + s);
  }

  void open_loop(int d) {
    pragma(d);
    open_loop_plain(d);
  }
  void close_block() {
    --depth_;
    line("}");
  }

  void ops(size_t from, size_t to) {
    for (size_t i = from; i < to; ++i) op(static_cast<int>(i));
  }
  // The ops of [from, to) that are (`chosen` true) or are not (false) marked in `marks`.
  void ops(size_t from, size_t to, const std::vector<bool>& marks, bool chosen) {
    for (size_t i = from; i < to; ++i)
      if (marks[i] == chosen) op(static_cast<int>(i));
  }

  // Marks the ops of [from, to) that use no loop variable numbered `level` or more and read no
  // buffer this kernel stores: they are computed once, before those loops open. Besides
  // saving work, this keeps GCC vectorizing a fused kernel's parts, whose loads of a row's
  // values (stored by an earlier part) otherwise stop it ("control flow in loop").
  std::vector<bool> invariant_below(int level, size_t from, size_t to) const {
    std::set<int> stored;
    for (const BodyOp& op : k_.body)
      if (op.kind == BodyOp::Kind::Store) stored.insert(op.buffer);
    std::vector<bool> inv(k_.body.size(), false);
    for (size_t i = from; i < to; ++i) {
      const BodyOp& op = k_.body[i];
      bool ok = false;
      switch (op.kind) {
        case BodyOp::Kind::Load:
          ok = !stored.count(op.buffer) && op.index.max_var() < level;
          for (int a : op.args) ok = ok && static_cast<size_t>(a) >= from && inv[static_cast<size_t>(a)];
          break;
        case BodyOp::Kind::Index: ok = op.index.max_var() < level; break;
        // A check runs only where its loops do: hoisted out of a loop of extent 0 it could
        // fail where the reference kernel never looks.
        case BodyOp::Kind::Indirect:
          ok = static_cast<size_t>(op.args[0]) >= from && inv[static_cast<size_t>(op.args[0])];
          for (size_t d = static_cast<size_t>(level); d < k_.loops.size(); ++d) ok = ok && k_.loops[d] > 0;
          break;
        case BodyOp::Kind::Const: ok = true; break;
        case BodyOp::Kind::Compute:
        case BodyOp::Kind::Cast:
        case BodyOp::Kind::Random:
          ok = true;
          for (int a : op.args) ok = ok && static_cast<size_t>(a) >= from && inv[static_cast<size_t>(a)];
          break;
        case BodyOp::Kind::Reduce:
        case BodyOp::Kind::Store: break;
      }
      inv[i] = ok;
    }
    return inv;
  }

  // Op i's value; a row-scratch value is loaded from its array, or stored into it once made.
  void op(int i) {
    if (auto r = reuse_.find(i); r != reuse_.end()) {
      line("const " + std::string(value_type(dtype(i))) + " " + value(i) + " = " + scratch_element(r->second) + ";");
      return;
    }
    value_op(i);
    if (auto s = save_.find(i); s != save_.end()) line(scratch_element(s->second) + " = " + value(i) + ";");
  }

  void value_op(int i) {
    const BodyOp& op = k_.body[static_cast<size_t>(i)];
    auto define = [&](const std::string& expr) {
      line("const " + std::string(value_type(op.dtype)) + " " + value(i) + " = " + expr + ";");
    };
    switch (op.kind) {
      case BodyOp::Kind::Load: {
        const Buffer& b = p_.buffers[static_cast<size_t>(op.buffer)];
        std::string x =
            convert_or_self(load_value(pointer(op.buffer) + "[" + access_cpp(op) + "]", b.dtype), b.dtype, op.dtype);
        // A masked load reads nothing where its mask is false (a masked vector load).
        if (op.masked)
          x = value(op.mask()) + " ? " + x + " : " +
              convert_or_self(const_literal(op.value, b.dtype), b.dtype, op.dtype);
        define(x);
        return;
      }
      case BodyOp::Kind::Const: define(const_literal(op.value, op.dtype)); return;
      case BodyOp::Kind::Index: define(index_cpp(op.index)); return;
      case BodyOp::Kind::Indirect: {
        // Wrapped, compared (a negative index is a huge unsigned one), then 0 where bad, so
        // the access stays in range whatever the value; the runtime reports the bad index.
        const std::string v = value(op.args.at(0)), n = int_literal(op.size), w = value(i) + "w", bad = value(i) + "b";
        line("const int64_t " + w + " = " +
             (op.wrap ? "(int64_t)" + v + " < 0 ? (int64_t)" + v + " + " + n + " : (int64_t)" + v : "(int64_t)" + v) +
             ";");
        line("const int " + bad + " = (uint64_t)" + w + " >= (uint64_t)" + n + ";");
        line("kiln_bad |= " + bad + ";");
        define(bad + " ? (int64_t)0 : " + w);
        return;
      }
      case BodyOp::Kind::Cast: define(convert_value(value(op.args.at(0)), dtype(op.args.at(0)), op.dtype)); return;
      case BodyOp::Kind::Compute: {
        std::vector<std::string> args;
        std::vector<DType> dts;
        for (int a : op.args) {
          args.push_back(value(a));
          dts.push_back(dtype(a));
        }
        define(compute_expr(op.op, args, dts, op.dtype, op.attrs));
        return;
      }
      case BodyOp::Kind::Random: {
        std::vector<std::string> args;
        for (int a : op.args) args.push_back(value(a));
        define(random_expr(op.random, args, op.dtype));
        return;
      }
      case BodyOp::Kind::Store: {
        const Buffer& b = p_.buffers[static_cast<size_t>(op.buffer)];
        if (block_store_) {  // streaming_nest's block
          line("block[j] = " + value(op.args.at(0)) + ";");
          return;
        }
        line(pointer(op.buffer) + "[" + access_cpp(op) +
             "] = " + store_value(value(op.args.at(0)), dtype(op.args.at(0)), b.dtype) + ";");
        return;
      }
      case BodyOp::Kind::Reduce: KILN_UNREACHABLE("reduce outside a reduction's epilogue");
    }
  }

  // A load's or store's index, with its indirect terms: `5 * v7 + i1`.
  std::string access_cpp(const BodyOp& op) const {
    std::string s;
    for (size_t j = 0; j < op.indirect.size(); ++j)
      s += (j ? " + " : "") + (op.indirect[j] == 1 ? "" : int_literal(op.indirect[j]) + " * ") +
           value(op.indirect_arg(j));
    if (s.empty()) return index_cpp(op.index);
    return op.index.terms.empty() && op.index.constant == 0 ? s : s + " + " + index_cpp(op.index);
  }

  // A load's value has the buffer's dtype; a load that names another dtype converts.
  static std::string convert_or_self(const std::string& x, DType from, DType to) {
    return from == to ? x : convert_value(x, from, to);
  }

  void reduction() {
    if (uses_welford_chunks(k_)) {
      welford_reduction();
      return;
    }
    if (uses_lanes(k_)) {
      lane_reduction();
      return;
    }
    const int outer = k_.num_outer_loops(), n = static_cast<int>(k_.loops.size()), last = n - 1;
    const size_t red = static_cast<size_t>(k_.reduce_op);
    const BodyOp& rop = k_.body[red];
    for (size_t i = red + 1; i < k_.body.size(); ++i)
      for (int a : k_.body[i].args)
        KILN_CHECK(static_cast<size_t>(a) >= red)
            << "kernel @" << k_.name << ": the epilogue reads a value of the reduce loops";
    const Accumulator acc = accumulator_for(k_);
    for (int d = first_; d < outer; ++d) open_loop(d);
    const std::vector<bool> hoisted = invariant_below(outer, 0, red);
    ops(0, red, hoisted, true);
    line(acc.declare());
    if (acc.blocks) {
      // The innermost reduce loop in blocks (cpp_reduce.h): per block, the lanes (`omp simd`)
      // each sum their points into `part` and join their double totals, which OpenMP sums
      // over threads; the points after the last group join lane 0's total.
      for (int d = outer; d < last; ++d) open_loop(d);
      const std::string i = "i" + std::to_string(last), lanes = std::to_string(kLanes);
      const BlockWriter block = [&](const Block& b) {
        if (o_.openmp) line(simd_pragma(""));
        line("for (int64_t l = 0; l < " + lanes + "; ++l) {");
        ++depth_;
        line(acc.part_declare());
        line("for (int64_t g = 0; g < " + std::to_string(b.points / kLanes) + "; ++g) {");
        ++depth_;
        line("const int64_t " + i + " = " + (b.start == "0" ? "" : b.start + " + ") + "g * " + lanes + " + l;");
        ops(0, red, hoisted, false);
        line(acc.update(value(rop.args.at(0)), "part"));
        close_block();
        line(acc.part_join());
        close_block();
      };
      const int64_t extent = k_.loops[static_cast<size_t>(last)], grouped = extent - extent % kLanes;
      whole_blocks(grouped, s_.parallel_loop == last ? parallel_pragma(acc.clause) : "", block);
      last_block(grouped, block);
      if (grouped != extent) {
        line("for (int64_t " + i + " = " + std::to_string(grouped) + "; " + i + " < " + std::to_string(extent) +
             "; ++" + i + ") {");
        ++depth_;
        ops(0, red, hoisted, false);
        line(acc.update(value(rop.args.at(0)), "acc_l[0]"));
        close_block();
      }
      for (int d = outer; d < last; ++d) close_block();
      line(acc.lanes_total());
    } else {
      for (int d = outer; d < n; ++d) open_loop(d);
      ops(0, red, hoisted, false);
      line(acc.update(value(rop.args.at(0))));
      for (int d = outer; d < n; ++d) close_block();
    }
    if (acc.nan_flag) line("if (acc_nan) acc = " + float_literal(NAN, acc.type == "float") + ";");
    line("const " + std::string(value_type(rop.dtype)) + " " + value(static_cast<int>(red)) + " = " +
         acc.result(rop.dtype) + ";");
    ops(red + 1, k_.body.size());
    for (int d = first_; d < outer; ++d) close_block();
  }

  // A block of the innermost reduce loop: its points from `start` to before `end`, `points`
  // of them (start and end: expressions of `blk`, or numbers).
  struct Block {
    std::string start, end;
    int64_t points = 0;
  };
  using BlockWriter = std::function<void(const Block&)>;

  // The innermost reduce loop's whole blocks of kReduceBlock points (cpp_reduce.h), as a loop
  // over `blk` under `pragma` (none when empty); then last_block, the points after them.
  void whole_blocks(int64_t extent, const std::string& pragma, const BlockWriter& block) {
    if (extent < kReduceBlock) return;
    if (!pragma.empty()) line(pragma);
    line("for (int64_t blk = 0; blk < " + std::to_string(extent / kReduceBlock) + "; ++blk) {");
    ++depth_;
    const std::string start = "blk * " + std::to_string(kReduceBlock);
    block({start, start + " + " + std::to_string(kReduceBlock), kReduceBlock});
    close_block();
  }
  void last_block(int64_t extent, const BlockWriter& block) {
    const int64_t rest = extent % kReduceBlock;
    if (rest == 0) return;
    line("{  // " + std::string(extent < kReduceBlock ? "one block: " : "the last block: ") + std::to_string(rest) +
         " points");
    ++depth_;
    block({std::to_string(extent - rest), std::to_string(extent), rest});
    close_block();
  }

  // `#pragma omp simd` and `#pragma omp parallel for` with reduction clauses `clauses`, and
  // the index checks' flag among them.
  std::string simd_pragma(const std::string& clauses) const { return with_checks("#pragma omp simd", clauses); }
  std::string parallel_pragma(const std::string& clauses) const {
    return with_checks("#pragma omp parallel for", clauses);
  }
  std::string with_checks(std::string pragma, const std::string& clauses) const {
    if (!clauses.empty()) pragma += " " + clauses;
    if (checks_) pragma += " reduction(|:kiln_bad)";
    return pragma;
  }

  // A reduction with lanes (cpp_lane_reduce.h): the innermost reduce loop in groups of kLanes
  // points, one per lane (`omp simd` over the lanes), then the points after the last group;
  // the lanes and that tail combine into the reduce ops' values after the reduce loops. With
  // a blocked sum among them, the groups run in blocks, each ending with the lanes' join.
  void lane_reduction() {
    const int outer = k_.num_outer_loops(), last = static_cast<int>(k_.loops.size()) - 1;
    const size_t red = static_cast<size_t>(k_.reduce_op), end = reduce_ops_end(k_);
    for (size_t i = end; i < k_.body.size(); ++i)
      for (int a : k_.body[i].args)
        KILN_CHECK(static_cast<size_t>(a) >= red)
            << "kernel @" << k_.name << ": the epilogue reads a value of the reduce loops";
    const std::vector<LaneAccumulator> accs = lane_accumulators(k_);
    bool simd = o_.openmp, blocks = false;
    for (const LaneAccumulator& a : accs) {
      simd = simd && a.lanes;
      blocks = blocks || a.blocks;
    }
    for (int d = first_; d < outer; ++d) open_loop(d);
    const std::vector<bool> hoisted = invariant_below(outer, 0, red);
    ops(0, red, hoisted, true);
    for (const LaneAccumulator& a : accs) line(a.declare());
    for (int d = outer; d < last; ++d) open_loop_plain(d);
    const int64_t extent = k_.loops[static_cast<size_t>(last)], grouped = extent - extent % kLanes;
    const std::string i = "i" + std::to_string(last), lanes = std::to_string(kLanes);
    // `groups` groups, `var` counting them, from point `start` ("" for 0) on.
    auto lane_groups = [&](const std::string& var, const std::string& start, int64_t groups) {
      if (groups == 0) return;
      line("for (int64_t " + var + " = 0; " + var + " < " + std::to_string(groups) + "; ++" + var + ") {");
      ++depth_;
      for (const LaneAccumulator& a : accs)
        if (const std::string s = a.group_start(); !s.empty()) line(s);
      if (simd) line("#pragma omp simd");
      line("for (int64_t l = 0; l < " + lanes + "; ++l) {");
      ++depth_;
      line("const int64_t " + i + " = " + (start.empty() ? "" : start + " + ") + var + " * " + lanes + " + l;");
      ops(0, red, hoisted, false);
      for (const LaneAccumulator& a : accs) line(a.lane_update());
      close_block();
      close_block();
    };
    if (blocks) {
      const BlockWriter block = [&](const Block& b) {
        lane_groups("g", b.start, b.points / kLanes);
        for (const LaneAccumulator& a : accs)
          if (const std::string s = a.block_end(); !s.empty()) line(s);
      };
      whole_blocks(grouped, "", block);
      last_block(grouped, block);
    } else {
      lane_groups("blk", "", grouped / kLanes);
    }
    if (grouped != extent) {
      line("for (int64_t " + i + " = " + std::to_string(grouped) + "; " + i + " < " + std::to_string(extent) + "; ++" +
           i + ") {");
      ++depth_;
      ops(0, red, hoisted, false);
      for (const LaneAccumulator& a : accs) line(a.tail_update());
      close_block();
    }
    for (int d = outer; d < last; ++d) close_block();
    for (const LaneAccumulator& a : accs) line(a.combine(k_));
    ops(end, k_.body.size());
    for (int d = first_; d < outer; ++d) close_block();
  }

  // A reduction of Welford ops only, in chunks (cpp_lane_reduce.h, WelfordChunks): per chunk
  // of the innermost reduce loop, a pass computing and summing the values, a pass over them
  // for the squared deviations, and the chunk's join into the running mean and m2.
  void welford_reduction() {
    const int outer = k_.num_outer_loops(), last = static_cast<int>(k_.loops.size()) - 1;
    const size_t red = static_cast<size_t>(k_.reduce_op), end = reduce_ops_end(k_);
    const std::vector<WelfordChunks> accs = welford_chunks(k_);
    for (int d = first_; d < outer; ++d) open_loop(d);
    const std::vector<bool> hoisted = invariant_below(outer, 0, red);
    ops(0, red, hoisted, true);
    const int64_t extent = k_.loops[static_cast<size_t>(last)];
    const bool parallel_chunks = s_.parallel_loop == last && extent / kReduceBlock > 1;
    for (const WelfordChunks& a : accs) line(parallel_chunks ? a.total_declare() : a.declare);
    // The shifts: the values at the reduce loops' first point (none when they have no point).
    bool any_point = true;
    for (int d = outer; d <= last; ++d) any_point = any_point && k_.loops[static_cast<size_t>(d)] > 0;
    for (const WelfordChunks& a : accs) line(a.acc.type + " " + a.acc.name + "_k = 0;  // the shift");
    if (any_point) {
      line("{  // the first point");
      ++depth_;
      for (int d = outer; d <= last; ++d) line("const int64_t i" + std::to_string(d) + " = 0;");
      ops(0, red, hoisted, false);
      for (const WelfordChunks& a : accs) line(a.shift);
      close_block();
    }
    for (int d = outer; d < last; ++d) open_loop_plain(d);
    const std::string i = "i" + std::to_string(last);
    const BlockWriter chunk = [&](const Block& b) {
      std::string clauses;
      for (const WelfordChunks& a : accs) {
        line(a.begin);
        clauses += (clauses.empty() ? "" : " ") + a.clause;
      }
      if (o_.openmp) line(simd_pragma(clauses));
      line("for (int64_t j = 0; j < " + std::to_string(b.points) + "; ++j) {");
      ++depth_;
      line("const int64_t " + i + " = " + (b.start == "0" ? "j" : b.start + " + j") + ";");
      ops(0, red, hoisted, false);
      for (const WelfordChunks& a : accs) line(a.fold);
      close_block();
      for (const WelfordChunks& a : accs) line(a.join(b.points));
    };
    if (parallel_chunks) {
      line("#pragma omp parallel");
      line("{");
      ++depth_;
      for (const WelfordChunks& a : accs) line(a.declare);
    }
    whole_blocks(extent, parallel_chunks ? with_checks("#pragma omp for schedule(static)", "") : "", chunk);
    if (parallel_chunks) {
      line("#pragma omp critical");
      line("{");
      for (const WelfordChunks& a : accs) line("  " + a.total_join());
      line("}");
      close_block();
      for (const WelfordChunks& a : accs) line(a.from_total());
    }
    last_block(extent, chunk);
    for (int d = outer; d < last; ++d) close_block();
    for (const WelfordChunks& a : accs) line(a.result);
    ops(end, k_.body.size());
    for (int d = first_; d < outer; ++d) close_block();
  }

  // A column reduction (is_column_reduction) of one reduce op with its loops interchanged: for each block of
  // kColumnBlock columns, accumulators for every column of the block, the reduce loops outside
  // and the columns inside (vectorized, unit stride), then the epilogue per column. Blocks
  // (with the other outer loops) run in parallel when the kernel is large.
  void column_reduction() {
    constexpr int64_t kColumnBlock = 64;
    const int outer = k_.num_outer_loops(), n = static_cast<int>(k_.loops.size()), c = outer - 1;
    const int64_t columns = k_.loops[static_cast<size_t>(c)];
    const int64_t blocks = (columns + kColumnBlock - 1) / kColumnBlock;
    const size_t red = static_cast<size_t>(k_.reduce_op);
    const BodyOp& rop = k_.body[red];
    const Accumulator acc = accumulator_for(k_);
    int64_t points = 1;
    for (int64_t e : k_.loops) points = points > INT64_MAX / std::max<int64_t>(1, e) ? INT64_MAX : points * e;
    int64_t parallel_points = blocks;
    for (int d = 0; d < c; ++d) parallel_points *= k_.loops[static_cast<size_t>(d)];
    if (o_.openmp && points >= o_.parallel_threshold && parallel_points > 1)
      line(std::string("#pragma omp parallel for") + (c > 0 ? " collapse(" + std::to_string(c + 1) + ")" : ""));
    for (int d = 0; d < c; ++d) open_loop_plain(d);
    line("for (int64_t blk = 0; blk < " + std::to_string(blocks) + "; ++blk) {");
    ++depth_;
    const std::string width = "(" + std::to_string(columns) + " - blk * " + std::to_string(kColumnBlock) + " < " +
                              std::to_string(kColumnBlock) + " ? " + std::to_string(columns) + " - blk * " +
                              std::to_string(kColumnBlock) + " : " + std::to_string(kColumnBlock) + ")";
    line("const int64_t width = " + width + ";");
    // Floating sums fold each value straight into their double total (cpp_reduce.h): a column
    // has no lanes to sum a block in.
    const std::string atype = acc.total.empty() ? acc.type : acc.total;
    line(atype + " accs[" + std::to_string(kColumnBlock) + "];");
    if (acc.nan_flag) line("int accn[" + std::to_string(kColumnBlock) + "];");
    line("for (int64_t cc = 0; cc < width; ++cc) {");
    ++depth_;
    line("accs[cc] = " + acc.init + ";");
    if (acc.nan_flag) line("accn[cc] = 0;");
    close_block();
    for (int d = outer; d < n; ++d) open_loop_plain(d);
    if (o_.openmp) line("#pragma omp simd");
    line("for (int64_t cc = 0; cc < width; ++cc) {");
    ++depth_;
    const std::string ci = "i" + std::to_string(c);
    line("const int64_t " + ci + " = blk * " + std::to_string(kColumnBlock) + " + cc;");
    line(atype + " acc = accs[cc];");
    if (acc.nan_flag) line("int acc_nan = accn[cc];");
    ops(0, red);
    line(acc.update(value(rop.args.at(0))));
    line("accs[cc] = acc;");
    if (acc.nan_flag) line("accn[cc] = acc_nan;");
    close_block();
    for (int d = outer; d < n; ++d) close_block();
    line("for (int64_t cc = 0; cc < width; ++cc) {");
    ++depth_;
    line("const int64_t " + ci + " = blk * " + std::to_string(kColumnBlock) + " + cc;");
    line(atype + " acc = accs[cc];");
    if (acc.nan_flag) line("if (accn[cc]) acc = " + float_literal(NAN, acc.type == "float") + ";");
    line("const " + std::string(value_type(rop.dtype)) + " " + value(static_cast<int>(red)) + " = " +
         acc.result(rop.dtype) + ";");
    line("(void)" + ci + ";");
    ops(red + 1, k_.body.size());
    close_block();
    close_block();  // blk
    for (int d = 0; d < c; ++d) close_block();
  }

  // `for (int64_t i<d> = 0; i<d> < extent; ++i<d>) {`, no pragma.
  void open_loop_plain(int d) {
    const std::string i = "i" + std::to_string(d);
    line("for (int64_t " + i + " = 0; " + i + " < " + std::to_string(k_.loops[static_cast<size_t>(d)]) + "; ++" + i +
         ") {");
    ++depth_;
  }

  const LoopProgram& p_;
  const CppEmitOptions& o_;
  const LoopKernel k_;
  const CppSchedule s_;
  const bool checks_ = false;  // the kernel (some part) checks indirect indices: kiln_bad
  const int first_ = 0;        // loops already open (a fused kernel's rows)
  std::string out_;
  int depth_ = 0;
  const std::map<int, int> save_, reuse_;  // a part's row-scratch values (cpp_row_scratch.h)
  bool block_store_ = false;               // the store goes to streaming_nest's block array
};

}  // namespace

std::string emit_cpp_kernel(const LoopProgram& p, const LoopKernel& k, const std::string& symbol,
                            const CppEmitOptions& o) {
  KILN_CHECK(k.kind != KernelKind::Extern) << "extern kernel @" << k.name << " has no C++ body";
  return KernelWriter(p, k, o).write(symbol);
}

}  // namespace kiln::cpp
