#include "codegen/cuda/cuda_kernel.h"

#include <algorithm>
#include <functional>
#include <set>

#include "codegen/collapse_loops.h"
#include "codegen/cpp/cpp_index.h"
#include "codegen/cpp/cpp_lane_reduce.h"
#include "codegen/cpp/cpp_scalar.h"
#include "codegen/cpp/cpp_schedule.h"
#include "codegen/cuda/cuda_body.h"
#include "codegen/cuda/cuda_held_row.h"
#include "codegen/cuda/cuda_index_width.h"
#include "codegen/cuda/cuda_launch.h"
#include "codegen/cuda/cuda_reduce.h"
#include "codegen/cuda/cuda_reduce_strategy.h"
#include "codegen/cuda/cuda_vector_access.h"
#include "support/check.h"

namespace kiln::cuda {

namespace {

constexpr int kWarpThreads = 32;

// Points of loops [first, last) of `loops` (INT64_MAX past it).
int64_t points(const std::vector<int64_t>& loops, size_t first, size_t last) {
  int64_t n = 1;
  for (size_t d = first; d < last; ++d)
    if (__builtin_mul_overflow(n, loops[d], &n)) return INT64_MAX;
  return n;
}

int outer_loops(const LoopKernel& k) {
  return k.kind == KernelKind::Reduction ? k.num_outer_loops() : static_cast<int>(k.loops.size());
}

bool has_index_checks(const LoopKernel& k) {
  for (const LoopKernel* part : loop_kernel_parts(k))
    for (const BodyOp& op : part->body)
      if (op.kind == BodyOp::Kind::Indirect) return true;
  return false;
}

std::string extents_text(const std::vector<int64_t>& loops, size_t first, size_t last) {
  std::string s = "[";
  for (size_t d = first; d < last; ++d) s += (d > first ? ", " : "") + std::to_string(loops[d]);
  return s + "]";
}

// "loops [4] reduce [8]" or "loops [4, 8]".
std::string loops_text(const LoopKernel& k) {
  std::string s = "loops " + extents_text(k.loops, 0, static_cast<size_t>(outer_loops(k)));
  if (k.kind == KernelKind::Reduction)
    s += " reduce " + extents_text(k.loops, static_cast<size_t>(k.num_outer_loops()), k.loops.size());
  return s;
}

// The reduction plan of `k` (of `p`): by cuda_reduce_strategy.h, or its output points in order in
// one block where its stores may repeat an element.
ReducePlan reduction_plan(const LoopProgram& p, const LoopKernel& k, const CudaTarget& t) {
  const size_t outer = static_cast<size_t>(k.num_outer_loops());
  const int64_t outputs = points(k.loops, 0, outer), row = points(k.loops, outer, k.loops.size());
  if (!cpp::stores_independent(k, k.num_outer_loops())) {
    ReducePlan serial = plan_reduction(1, row, 0, t);
    serial.strategy = ReduceStrategy::BlockPerRow;
    return serial;
  }
  return plan_reduction(outputs, row, is_column_reduction(k) ? column_vectors(p, k).width : 0, t);
}

// How a pointwise kernel of vector plan `v` spreads its points over threads.
std::string vector_text(const PointwiseVectors& v) {
  if (v.width == 1) return "a thread per point (" + v.scalar_reason + ")";
  std::string s = "a thread per " + std::to_string(v.width) + " points (vector accesses)";
  return v.tail == 0 ? s : s + ", the last " + std::to_string(v.tail) + " a thread each";
}

// How a fused kernel of plan `h` holds its row.
std::string held_text(const HeldRow& h) {
  if (!h.reason.empty()) return "a block per row, its parts in order (the row in memory: " + h.reason + ")";
  return "a block per row held in registers (" + std::to_string(h.launch.groups_per_thread) + " groups of " +
         std::to_string(h.width) + " points a thread), its parts in order";
}

// The one launch of a pointwise (of vector plan `v`), scan or fused (of plan `h`) kernel, and
// how it spreads the work.
std::pair<LaunchShape, std::string> single_launch(const LoopKernel& k, const PointwiseVectors& v, const HeldRow& h,
                                                  const CudaTarget& t) {
  const size_t n = k.loops.size();
  switch (k.kind) {
    case KernelKind::Pointwise:
      if (!cpp::stores_independent(k, static_cast<int>(n)))
        return {kSerialLaunch, "points in order (stores repeat elements)"};
      return {pointwise_launch(v.width == 1 ? points(k.loops, 0, n) : v.groups, t), vector_text(v)};
    case KernelKind::Scan:
      if (n > 1 && !cpp::scan_rows_independent(k)) return {kSerialLaunch, "rows in order (stores repeat elements)"};
      return {pointwise_launch(points(k.loops, 0, n - 1), t), "a thread per row, its steps in order"};
    case KernelKind::Fused: {
      int64_t row = 0;
      for (const LoopKernel& part : k.parts) row = std::max(row, points(part.loops, n, part.loops.size()));
      if (!cpp::fused_rows_independent(k)) return {kSerialLaunch, "rows in order (stores repeat elements)"};
      if (h.reason.empty()) return {h.launch.shape, held_text(h)};
      return {row_launch(points(k.loops, 0, n), row, t), held_text(h)};
    }
    default: break;
  }
  KILN_UNREACHABLE("kernel @" + k.name + " has one launch only when pointwise, scan or fused");
}

class KernelWriter {
 public:
  KernelWriter(const LoopProgram& p, const LoopKernel& original, const LoopKernel& k, const CudaTarget& target)
      : p_(p), original_(original), k_(k), target_(target), checks_(has_index_checks(k)) {}

  CudaKernel write(const std::string& symbol) {
    const int n = static_cast<int>(k_.loops.size());
    if (k_.kind != KernelKind::Reduction) {
      const PointwiseVectors vectors = pointwise_vectors(p_, k_);
      const HeldRow held = k_.kind == KernelKind::Fused ? plan_held_row(p_, original_, target_) : HeldRow{};
      const auto launch = single_launch(k_, vectors, held, target_);
      const auto& shape = launch.first;
      narrow(shape.grid * int64_t{shape.block});
      function(symbol, shape, launch.second, false, [&] {
        switch (k_.kind) {
          case KernelKind::Pointwise:
            if (vectors.width > 1) {
              vector_groups(vectors);
              break;
            }
            for_points(k_, "p", 0, n, grid_thread(), grid_threads(), [&] { ops(k_, 0, k_.body.size()); });
            break;
          case KernelKind::Scan:
            for_points(k_, "p", 0, n - 1, grid_thread(), grid_threads(), [&] {
              open_loop(k_, n - 1);
              ops(k_, 0, k_.body.size());
              close_block();
            });
            break;
          default:
            block_ = static_cast<int>(shape.block);
            for_points(k_, "row", 0, n, block_index(), grid_blocks(), [&] {
              if (held.reason.empty())
                held_parts(held);
              else
                parts();
            });
        }
      });
      return std::move(out_);
    }
    const ReducePlan plan = reduction_plan(p_, k_, target_);
    narrow(std::max(plan.partials.grid * int64_t{plan.partials.block}, plan.finish.grid * int64_t{plan.finish.block}));
    const int outer = k_.num_outer_loops();
    switch (plan.strategy) {
      case ReduceStrategy::BlockPerRow:
        block_ = static_cast<int>(plan.partials.block);
        function(symbol, plan.partials,
                 plan.partials.grid == 1 && !cpp::stores_independent(k_, outer)
                     ? "one block, its output points in order (stores repeat elements)"
                     : "a block per output point",
                 false, [&] {
                   for_points(k_, "row", 0, outer, block_index(), grid_blocks(), [&] {
                     fold(k_, thread_index(), block_threads(), "", "");
                     block_reduce(ResultFor::ThreadZero,
                                  [&](const std::string& prefix, const std::string& at) { epilogue(k_, prefix, at); });
                   });
                 });
        break;
      case ReduceStrategy::SplitRow:
        block_ = static_cast<int>(plan.partials.block);
        function(
            symbol + "_partials", plan.partials, split_text(plan, "a block per output point and chunk"), true, [&] {
              scratch_arrays(plan);
              partial_points("w", block_index(), grid_blocks(), plan, [&](const std::string& o, const std::string& s) {
                fold(k_, thread_index(), block_threads(), s + " * " + std::to_string(plan.chunk),
                     std::to_string(plan.chunk));
                block_reduce(ResultFor::ThreadZero, [&](const std::string& prefix, const std::string& at) {
                  for (const BlockAccumulator& a : accs_) line(a.copy("g_", partial_slot(o, s), prefix, at));
                });
              });
            });
        finish(symbol, plan);
        break;
      case ReduceStrategy::ColumnPartials:
        column_partials(symbol, plan, column_vectors(p_, k_));
        column_finish(symbol, plan);
        break;
    }
    return std::move(out_);
  }

 private:
  void line(const std::string& text) {
    size_t start = 0;
    while (start <= text.size()) {  // one indented line per '\n'-separated part
      const size_t end = text.find('\n', start);
      out_.text += std::string(2 * static_cast<size_t>(depth_), ' ') + text.substr(start, end - start) + "\n";
      if (end == std::string::npos) break;
      start = end + 1;
    }
  }
  void open_block(const std::string& text) {
    line(text);
    ++depth_;
  }
  void close_block() {
    --depth_;
    line("}");
  }

  // 32-bit index arithmetic when the bounds allow it with grid-stride steps of `stride`.
  void narrow(int64_t stride) { index_ = fits_int32(k_, stride) ? "int" : "int64_t"; }
  // The thread's and block's numbers and counts in the kernel's index type.
  std::string grid_thread() const {
    return index_ == "int" ? "(int)(blockIdx.x * blockDim.x + threadIdx.x)"
                           : "(int64_t)blockIdx.x * blockDim.x + threadIdx.x";
  }
  std::string grid_threads() const {
    return index_ == "int" ? "(int)(gridDim.x * blockDim.x)" : "(int64_t)gridDim.x * blockDim.x";
  }
  std::string block_index() const { return "(" + index_ + ")blockIdx.x"; }
  std::string grid_blocks() const { return "(" + index_ + ")gridDim.x"; }
  std::string thread_index() const { return "(" + index_ + ")threadIdx.x"; }
  std::string block_threads() const { return "(" + index_ + ")blockDim.x"; }

  // One __global__ function `symbol` launched as `shape`: the comment saying how it spreads the
  // work, the signature (the scratch workspace last when `scratch`), `body`, the error slot.
  void function(const std::string& symbol, const LaunchShape& shape, const std::string& how, bool scratch,
                const std::function<void()>& body) {
    std::string head = "// kernel @" + k_.name + ": " + kind_name() + ", " + loops_text(original_);
    if (k_.loops != original_.loops) head += " (run as " + loops_text(k_).substr(6) + ")";
    line((out_.launches.empty() ? "" : "\n") + head + ": " + how + ", grid " + std::to_string(shape.grid) +
         " x block " + std::to_string(shape.block));
    CudaLaunch launch{
        .symbol = symbol, .grid = {shape.grid, 1, 1}, .block = {shape.block, 1, 1}, .shared_bytes = 0, .args = {}};
    std::string params = parameters(launch.args);
    if (scratch) {
      params += ", char* __restrict__ kiln_scratch";
      launch.args.push_back({.kind = CudaArg::Kind::Scratch, .buffer = -1, .offset = 0});
    }
    open_block("extern \"C\" __global__ void __launch_bounds__(" + std::to_string(shape.block) + ") " + symbol + "(" +
               params + ") {");
    if (checks_) line("int kiln_bad = 0;  // an indirect index was out of range");
    body();
    if (checks_) line("if (kiln_bad) *kiln_error = 1;");
    close_block();
    out_.launches.push_back(std::move(launch));
  }

  std::string kind_name() const {
    switch (k_.kind) {
      case KernelKind::Pointwise: return "pointwise";
      case KernelKind::Reduction: return "reduction";
      case KernelKind::Fused: return "fused";
      case KernelKind::Scan: return "scan";
      default: return "?";
    }
  }

  // `const float* __restrict__ b0_x, float* __restrict__ b3_out0, int* kiln_error`: the buffers
  // used, in buffer order (written ones not const), then the error slot; `args` the same.
  std::string parameters(std::vector<CudaArg>& args) const {
    std::set<int> used, stored;
    for (const LoopKernel* part : loop_kernel_parts(k_))
      for (const BodyOp& op : part->body) {
        if (op.kind == BodyOp::Kind::Load || op.kind == BodyOp::Kind::Store) used.insert(op.buffer);
        if (op.kind == BodyOp::Kind::Store) stored.insert(op.buffer);
      }
    std::string s;
    for (int b : used) {
      s += (s.empty() ? "" : ", ") + std::string(stored.count(b) ? "" : "const ") +
           std::string(cpp::storage_type(p_.buffers[static_cast<size_t>(b)].dtype)) + "* __restrict__ " +
           buffer_pointer(p_, b);
      args.push_back({.kind = CudaArg::Kind::Buffer, .buffer = b, .offset = 0});
    }
    if (checks_) {
      s += (s.empty() ? "" : ", ") + std::string("int* kiln_error");
      args.push_back({.kind = CudaArg::Kind::ErrorSlot, .buffer = -1, .offset = 0});
    }
    return s;
  }

  // The loop variables i<first>..i<last-1> of `k` from flat point `flat` (row-major).
  void unflatten(const LoopKernel& k, const std::string& flat, int first, int last) {
    unflatten(k.loops, flat, first, last);
  }
  void unflatten(const std::vector<int64_t>& loops, const std::string& flat, int first, int last) {
    std::string rest = flat;
    for (int d = last - 1; d >= first; --d) {
      const std::string e = std::to_string(loops[static_cast<size_t>(d)]);
      if (d == first) {
        line("const " + index_ + " i" + std::to_string(d) + " = " + rest + ";");
      } else {
        line("const " + index_ + " i" + std::to_string(d) + " = " + rest + " % " + e + ";");
        rest = "(" + rest + " / " + e + ")";
      }
    }
  }

  // `for (<index> var = start; var < N; var += stride)` over the points of loops [first, last)
  // of `k`, the loop variables taken from the flat point, then `body`. Nothing where N is 0;
  // `body` once in a block, `var` 0, where there are no loops (N is 1).
  void for_points(const LoopKernel& k, const std::string& var, int first, int last, const std::string& start,
                  const std::string& stride, const std::function<void()>& body) {
    const int64_t n = points(k.loops, static_cast<size_t>(first), static_cast<size_t>(last));
    if (n == 0) {  // an empty loop: its body never runs (and its variables have no divisor)
      line("// no points in loops " + extents_text(k.loops, static_cast<size_t>(first), static_cast<size_t>(last)));
      return;
    }
    if (first == last) {  // no loops: one point, number 0
      open_block("{");
      line("const " + index_ + " " + var + " = 0;");
    } else {
      open_block("for (" + index_ + " " + var + " = " + start + "; " + var + " < " + std::to_string(n) + "; " + var +
                 " += " + stride + ") {");
      unflatten(k, var, first, last);
    }
    body();
    close_block();
  }

  // Pointwise kernel k_ `v.width` points at a time: a thread per group of consecutive points of
  // the innermost loop, grid-stride; the group's vector loads, its points (unrolled lanes), its
  // vector stores. The innermost loop variable is the lane's (where an index op reads it); i<n>,
  // past the loops', is the group's first point. Then, for a kernel of one loop, its last
  // points one a thread.
  void vector_groups(const PointwiseVectors& v) {
    const int n = static_cast<int>(k_.loops.size()), w = v.width;
    const std::string start = "i" + std::to_string(n), inner = "i" + std::to_string(n - 1);
    std::vector<int64_t> groups = k_.loops;
    groups.back() /= w;
    std::vector<IndexExpr> to_start;  // an index at the group's first point
    for (int d = 0; d < n; ++d) to_start.push_back(IndexExpr::var(d == n - 1 ? n : d));
    open_block("for (" + index_ + " g = " + grid_thread() + "; g < " + std::to_string(v.groups) +
               "; g += " + grid_threads() + ") {");
    const std::string per_row = std::to_string(groups.back());
    unflatten(groups, "(g / " + per_row + ")", 0, n - 1);
    line("const " + index_ + " " + start + " = " + (n == 1 ? "g" : "(g % " + per_row + ")") + " * " +
         std::to_string(w) + ";  // the group's first point of loop " + std::to_string(n - 1));
    std::vector<std::string> element(k_.body.size());
    for (size_t i = 0; i < k_.body.size(); ++i) {
      const BodyOp& op = k_.body[i];
      if (v.access[i] == VectorAccess::None) continue;
      const DType t = p_.buffers[static_cast<size_t>(op.buffer)].dtype;
      if (v.access[i] == VectorAccess::Broadcast) {
        element[i] = "l" + std::to_string(i);
        line("const " + std::string(cpp::storage_type(t)) + " " + element[i] + " = " + buffer_pointer(p_, op.buffer) +
             "[" + cpp::index_cpp(op.index) + "];  // the same for the group");
        continue;
      }
      const std::string name = (op.kind == BodyOp::Kind::Load ? "l" : "s") + std::to_string(i);
      element[i] = name + ".e[j]";
      line(vector_union(name, w, t) + ";");
      if (op.kind == BodyOp::Kind::Load) vector_copy(name, w, t, op, to_start, true);
    }
    line("#pragma unroll");
    open_block("for (int j = 0; j < " + std::to_string(w) + "; ++j) {");
    if (std::any_of(k_.body.begin(), k_.body.end(),
                    [&](const BodyOp& op) { return op.kind == BodyOp::Kind::Index && op.index.uses_var(n - 1); }))
      line("const " + index_ + " " + inner + " = " + start + " + j;");
    for (size_t i = 0; i < k_.body.size(); ++i) line(body_op_text(p_, k_, static_cast<int>(i), element[i]));
    close_block();
    for (size_t i = 0; i < k_.body.size(); ++i)
      if (v.access[i] == VectorAccess::Contiguous && k_.body[i].kind == BodyOp::Kind::Store)
        vector_copy("s" + std::to_string(i), w, p_.buffers[static_cast<size_t>(k_.body[i].buffer)].dtype, k_.body[i],
                    to_start, false);
    close_block();
    if (v.tail > 0)
      for_points(k_, "p", 0, n, std::to_string(v.groups * w) + " + " + grid_thread(), grid_threads(),
                 [&] { ops(k_, 0, k_.body.size()); });
  }
  // `union { kiln_v16 v[2]; float e[8]; } l3`: `width` elements of dtype `t` as vector pieces.
  static std::string vector_union(const std::string& name, int width, DType t) {
    const VectorPieces pieces = vector_pieces(width, t);
    return "union { kiln_v" + std::to_string(pieces.bytes) + " v[" + std::to_string(pieces.count) + "]; " +
           std::string(cpp::storage_type(t)) + " e[" + std::to_string(width) + "]; } " + name;
  }
  // The pieces of union `name` loaded from (`load`) or stored to op's elements at the group's
  // first point (its index with `to_start` substituted).
  void vector_copy(const std::string& name, int width, DType t, const BodyOp& op,
                   const std::vector<IndexExpr>& to_start, bool load) {
    const VectorPieces pieces = vector_pieces(width, t);
    const std::string type = "kiln_v" + std::to_string(pieces.bytes);
    const std::string at = "((" + std::string(load ? "const " : "") + type + "*)(" + buffer_pointer(p_, op.buffer) +
                           " + " + cpp::index_cpp(op.index.substitute(to_start)) + "))";
    for (int j = 0; j < pieces.count; ++j) {
      const std::string slot = name + ".v[" + std::to_string(j) + "]", mem = at + "[" + std::to_string(j) + "]";
      line(load ? slot + " = " + mem + ";" : mem + " = " + slot + ";");
    }
  }

  void open_loop(const LoopKernel& k, int d) {
    const std::string i = "i" + std::to_string(d);
    open_block("for (" + index_ + " " + i + " = 0; " + i + " < " + std::to_string(k.loops[static_cast<size_t>(d)]) +
               "; ++" + i + ") {");
  }

  void ops(const LoopKernel& k, size_t from, size_t to) {
    for (size_t i = from; i < to; ++i) {
      if (held_ == nullptr) {
        line(body_op_text(p_, k, static_cast<int>(i)));
        continue;
      }
      held_op(k, static_cast<int>(i));
    }
  }

  // Held row h_ (cuda_held_row.h): part held_part_'s op `i`, reading and writing the thread's
  // registers where the plan holds its element; a held store that memory needs too goes there
  // as well (a row's vector pieces after the group's points instead, in held_points).
  void held_op(const LoopKernel& part, int i) {
    const int v = held_->value_of[static_cast<size_t>(held_part_)][static_cast<size_t>(i)];
    if (v < 0) {
      line(body_op_text(p_, part, i));
      return;
    }
    const HeldValue& hv = held_->values[static_cast<size_t>(v)];
    const std::string element = held_element(v);
    line(body_op_text(p_, part, i, element));
    const BodyOp& op = part.body[static_cast<size_t>(i)];
    if (op.kind != BodyOp::Kind::Store || !hv.store_to_memory || (hv.row && held_->width > 1)) return;
    const std::string store = buffer_pointer(p_, op.buffer) + "[" + cpp::index_cpp(op.index) + "] = " + element + ";";
    line(hv.row ? store : "if (threadIdx.x == 0) " + store);
  }
  std::string held_element(int v) const {
    const std::string name = "h" + std::to_string(v);
    if (!held_->values[static_cast<size_t>(v)].row) return name;
    return held_->width > 1 ? name + "[j].e[l]" : name + "[j]";
  }

  // A fused kernel's parts over a row held in registers (plan `h`): the held values declared
  // (a statistic loaded first from memory here), then each part over the thread's groups, a
  // reduction part's state combined so that every thread has the row's result. No barrier
  // between parts: a part reads only registers, and statistics every thread computed.
  void held_parts(const HeldRow& h) {
    held_ = &h;
    for (size_t v = 0; v < h.values.size(); ++v) {
      const HeldValue& hv = h.values[v];
      const DType t = p_.buffers[static_cast<size_t>(hv.buffer)].dtype;
      const std::string name = "h" + std::to_string(v), count = std::to_string(h.launch.groups_per_thread);
      if (hv.row) {
        line((h.width > 1 ? vector_union(name + "[" + count + "]", h.width, t)
                          : std::string(cpp::storage_type(t)) + " " + name + "[" + count + "]") +
             ";  // " + buffer_pointer(p_, hv.buffer) + ", the thread's points of the row");
        continue;
      }
      const BodyOp& op = first_access(static_cast<int>(v));
      line(std::string(cpp::storage_type(t)) + " " + name + " = " +
           (hv.load_first ? buffer_pointer(p_, hv.buffer) + "[" + cpp::index_cpp(op.index) + "]" : "0") + ";  // " +
           buffer_pointer(p_, hv.buffer) + ", the row's");
    }
    std::vector<bool> loaded(h.values.size(), false);
    for (size_t j = 0; j < k_.parts.size(); ++j) {
      const LoopKernel& part = k_.parts[j];
      held_part_ = static_cast<int>(j);
      const bool reduction = part.kind == KernelKind::Reduction;
      if (is_scalar_part(part, k_.loops.size())) {
        open_block("{  // part " + std::to_string(j) + ": pointwise over one point, in every thread");
        for (size_t d = k_.loops.size(); d < part.loops.size(); ++d)
          line("const " + index_ + " i" + std::to_string(d) + " = 0;");
        ops(part, 0, part.body.size());
        close_block();
        continue;
      }
      open_block("{  // part " + std::to_string(j) + ": " + (reduction ? "reduction" : "pointwise"));
      const size_t stop = reduction ? static_cast<size_t>(part.reduce_op) : part.body.size();
      if (reduction) {
        make_accumulators(part);
        for (const BlockAccumulator& a : accs_) line(a.declare());
      }
      held_points(h, part, loaded, [&] {
        ops(part, 0, stop);
        if (!reduction) return;
        for (size_t r = stop; r < cpp::reduce_ops_end(part); ++r) {
          const BodyOp& rop = part.body[r];
          line(accs_[r - stop].update(value_name(rop.args.at(0)), rop.args.size() > 1 ? value_name(rop.args[1]) : ""));
        }
      });
      if (reduction)
        block_reduce(ResultFor::EveryThread,
                     [&](const std::string& prefix, const std::string& at) { epilogue(part, prefix, at); });
      close_block();
    }
    held_ = nullptr;
  }
  const BodyOp& first_access(int v) const {
    for (size_t j = 0; j < k_.parts.size(); ++j)
      for (size_t i = 0; i < k_.parts[j].body.size(); ++i)
        if (held_->value_of[j][i] == v) return k_.parts[j].body[i];
    KILN_UNREACHABLE("a held value has an access");
  }

  // `body` at each of the thread's points of the row (groups threadIdx.x + j * block, each
  // `width` points, unrolled), the row's loop variables set; before a group's points, the
  // values `part` loads first from memory (`loaded` marks them); after them, the vector pieces
  // of its held stores that memory needs.
  void held_points(const HeldRow& h, const LoopKernel& part, std::vector<bool>& loaded,
                   const std::function<void()>& body) {
    const int n = static_cast<int>(k_.loops.size()), m = static_cast<int>(part.loops.size()), w = h.width;
    const std::string start = "i" + std::to_string(m), inner = "i" + std::to_string(m - 1);
    const std::vector<int>& of = h.value_of[static_cast<size_t>(held_part_)];
    std::vector<int64_t> groups = part.loops;
    groups.back() /= w;
    std::vector<IndexExpr> to_start;  // an index at the group's first point
    for (int d = 0; d < m; ++d) to_start.push_back(IndexExpr::var(d == m - 1 ? m : d));
    line("#pragma unroll");
    open_block("for (int j = 0; j < " + std::to_string(h.launch.groups_per_thread) + "; ++j) {");
    line("const " + index_ + " g = " + thread_index() + " + j * " + std::to_string(block_) + ";  // the group");
    const bool ragged = int64_t{h.launch.groups_per_thread} * block_ != h.groups;
    if (ragged) open_block("if (g < " + std::to_string(h.groups) + ") {");
    const std::string per_row = std::to_string(groups.back());
    if (m - 1 > n) unflatten(groups, "(g / " + per_row + ")", n, m - 1);
    line("const " + index_ + " " + start + " = " + (m - 1 > n ? "(g % " + per_row + ")" : "g") +
         (w > 1 ? " * " + std::to_string(w) : "") + ";  // the group's first point of loop " + std::to_string(m - 1));
    for (size_t i = 0; i < part.body.size(); ++i) {
      const int v = of[i];
      if (v < 0 || loaded[static_cast<size_t>(v)]) continue;
      loaded[static_cast<size_t>(v)] = true;
      const HeldValue& hv = h.values[static_cast<size_t>(v)];
      if (!hv.row || !hv.load_first) continue;
      const BodyOp& op = part.body[i];
      if (w > 1)
        vector_copy("h" + std::to_string(v) + "[j]", w, p_.buffers[static_cast<size_t>(op.buffer)].dtype, op, to_start,
                    true);
      else
        line(held_element(v) + " = " + buffer_pointer(p_, op.buffer) + "[" +
             cpp::index_cpp(op.index.substitute(to_start)) + "];");
    }
    if (w > 1) {
      line("#pragma unroll");
      open_block("for (int l = 0; l < " + std::to_string(w) + "; ++l) {");
      line("const " + index_ + " " + inner + " = " + start + " + l;");
    } else {
      open_block("{");
      line("const " + index_ + " " + inner + " = " + start + ";");
    }
    body();
    close_block();
    for (size_t i = 0; i < part.body.size() && w > 1; ++i) {
      const int v = of[i];
      if (v < 0 || part.body[i].kind != BodyOp::Kind::Store) continue;
      const HeldValue& hv = h.values[static_cast<size_t>(v)];
      if (!hv.row || !hv.store_to_memory) continue;  // a statistic's store is in the epilogue
      vector_copy("h" + std::to_string(v) + "[j]", w, p_.buffers[static_cast<size_t>(part.body[i].buffer)].dtype,
                  part.body[i], to_start, false);
    }
    if (ragged) close_block();
    close_block();
  }

  // A fused kernel's parts, in order, for the row; a barrier after each, so a part reads what
  // an earlier part stored.
  void parts() {
    const int rows = static_cast<int>(k_.loops.size());
    for (size_t j = 0; j < k_.parts.size(); ++j) {
      const LoopKernel& part = k_.parts[j];
      open_block("{  // part " + std::to_string(j) + ": " +
                 (part.kind == KernelKind::Reduction ? "reduction" : "pointwise"));
      if (part.kind == KernelKind::Reduction) {
        for_points(part, "q", rows, part.num_outer_loops(), "0", "1", [&] {
          fold(part, thread_index(), block_threads(), "", "");
          block_reduce(ResultFor::ThreadZeroThenBarrier,
                       [&](const std::string& prefix, const std::string& at) { epilogue(part, prefix, at); });
        });
      } else {
        for_points(part, "q", rows, static_cast<int>(part.loops.size()), thread_index(), block_threads(),
                   [&] { ops(part, 0, part.body.size()); });
        line("__syncthreads();");
      }
      close_block();
    }
  }

  // The accumulators of reduction `k`'s reduce ops (accs_), declared, and the thread's fold of
  // its reduce points: `first`, + `stride`, ... over all of them, or with `chunk` nonempty over
  // points [start + first, start + chunk) ("" start: 0) of the row only.
  void fold(const LoopKernel& k, const std::string& first, const std::string& stride, const std::string& start,
            const std::string& chunk) {
    const int outer = k.num_outer_loops(), n = static_cast<int>(k.loops.size());
    const size_t red = static_cast<size_t>(k.reduce_op), end = cpp::reduce_ops_end(k);
    const int64_t count = points(k.loops, static_cast<size_t>(outer), k.loops.size());
    make_accumulators(k);
    for (const BlockAccumulator& a : accs_) line(a.declare());
    const auto body = [&] {
      ops(k, 0, red);
      for (size_t r = red; r < end; ++r) {
        const BodyOp& rop = k.body[r];
        line(accs_[r - red].update(value_name(rop.args.at(0)), rop.args.size() > 1 ? value_name(rop.args[1]) : ""));
      }
    };
    if (chunk.empty()) {
      for_points(k, "r", outer, n, first, stride, body);
      return;
    }
    if (count == 0) return;
    const std::string from = start.empty() ? first : first == "0" ? start : start + " + " + first;
    const std::string to = start.empty() ? chunk : start + " + " + chunk;
    open_block("for (" + index_ + " r = " + from + "; r < " + to + " && r < " + std::to_string(count) +
               "; r += " + stride + ") {");
    unflatten(k, "r", outer, n);
    body();
    close_block();
  }

  // Where block_reduce leaves the block's state for its `result` callback: `prefix` and slot
  // `at` of BlockAccumulator's arrays ("" and "": the thread's registers).
  using AtResult = std::function<void(const std::string& prefix, const std::string& at)>;
  // Who runs block_reduce's `result`: thread 0 (a barrier after it when `then_barrier`, so
  // the block sees what it stored), or every thread.
  enum class ResultFor : uint8_t { ThreadZero, ThreadZeroThenBarrier, EveryThread };

  // The block's states combined in a fixed order (no atomics: the same bits run after run):
  // in each warp by shuffles, lane l joining lane l + d for d = 16, 8, ..., 1, so lane 0 holds
  // the warp's state; then lane 0 of each warp into a shared slot, and warp 0 joins those
  // slots the same way into slot <warps>. Then `result` runs with the block's state.
  void block_reduce(ResultFor who, const AtResult& result) {
    const int warps = block_ / kWarpThreads;
    if (block_ < kWarpThreads) {  // a block of one thread (points in order): its own state
      KILN_CHECK(block_ == 1) << "a reduction's block is one thread or whole warps";
      result("", "");
      return;
    }
    if (std::any_of(accs_.begin(), accs_.end(), [](const BlockAccumulator& a) { return a.joins_by_division(); })) {
      shared_tree(who, result);
      return;
    }
    warp_join(kWarpThreads);
    if (warps == 1) {
      if (who == ResultFor::EveryThread) {
        for (const BlockAccumulator& a : accs_) line(a.broadcast_lane_zero());
        result("", "");
        return;
      }
      open_block("if (threadIdx.x == 0) {");
      result("", "");
      close_block();
      if (who == ResultFor::ThreadZeroThenBarrier) line("__syncthreads();");
      return;
    }
    const std::string total = std::to_string(warps);
    for (const BlockAccumulator& a : accs_)
      for (const BlockAccumulator::Field& f : a.fields())
        line("__shared__ " + f.type + " s_" + name_of(a, f) + "[" + std::to_string(warps + 1) +
             "];  // a slot per warp, then the block's");
    open_block("if (threadIdx.x % " + std::to_string(kWarpThreads) + " == 0) {");
    for (const BlockAccumulator& a : accs_) line(a.save("s_", "threadIdx.x / " + std::to_string(kWarpThreads)));
    close_block();
    line("__syncthreads();");
    open_block("if (threadIdx.x < " + std::to_string(kWarpThreads) + ") {");
    open_block("if (threadIdx.x < " + total + ") {");
    for (const BlockAccumulator& a : accs_) line(a.restore("s_", "threadIdx.x"));
    close_block();
    warp_join(warps);
    open_block("if (threadIdx.x == 0) {");
    for (const BlockAccumulator& a : accs_) line(a.save("s_", total));
    close_block();
    close_block();
    line("__syncthreads();");
    if (who == ResultFor::EveryThread) {
      result("s_", total);
      return;
    }
    open_block("if (threadIdx.x == 0) {");
    result("s_", total);
    close_block();
    if (who == ResultFor::ThreadZeroThenBarrier) line("__syncthreads();");
  }
  // block_reduce for states whose join divides (Chan's): the states meet in shared memory and
  // combine over halving strides (a fixed tree, a barrier a step), so no state is live in
  // registers around the division's call; the result in slot 0.
  void shared_tree(ResultFor who, const AtResult& result) {
    for (const BlockAccumulator& a : accs_) {
      for (const BlockAccumulator::Field& f : a.fields())
        line("__shared__ " + f.type + " s_" + name_of(a, f) + "[" + std::to_string(block_) + "];");
      line(a.save("s_", "threadIdx.x"));
    }
    line("__syncthreads();");
    open_block("for (int h = " + std::to_string(block_ / 2) + "; h > 0; h /= 2) {");
    open_block("if (threadIdx.x < h) {");
    for (const BlockAccumulator& a : accs_) line(a.combine("s_", "threadIdx.x", "threadIdx.x + h"));
    close_block();
    line("__syncthreads();");
    close_block();
    if (who == ResultFor::EveryThread) {
      result("s_", "0");
      return;
    }
    open_block("if (threadIdx.x == 0) {");
    result("s_", "0");
    close_block();
    line("__syncthreads();");  // slot 0 is read before the next row's states overwrite it
  }
  // Each lane's state joins the lane `step` above it for step = lanes / 2, ..., 1: lane 0 then holds
  // the join of lanes [0, lanes) in a fixed tree.
  void warp_join(int lanes) {
    if (lanes < 2) return;
    line("#pragma unroll");
    open_block("for (int step = " + std::to_string(lanes / 2) + "; step > 0; step /= 2) {");
    for (const BlockAccumulator& a : accs_) line(a.shuffle_join("step"));
    close_block();
  }

  // The reduce ops' values from slot `at` of arrays `prefix`, then the epilogue (its stores).
  void epilogue(const LoopKernel& k, const std::string& prefix, const std::string& at) {
    const size_t red = static_cast<size_t>(k.reduce_op), end = cpp::reduce_ops_end(k);
    for (size_t r = red; r < end; ++r)
      line("const " + std::string(cpp::value_type(k.body[r].dtype)) + " " + value_name(static_cast<int>(r)) + " = " +
           accs_[r - red].result(prefix, at, k.body[r].dtype) + ";");
    ops(k, end, k.body.size());
  }

  static std::string name_of(const BlockAccumulator& a, const BlockAccumulator::Field& f) {
    return a.name() + f.suffix;
  }

  std::string split_text(const ReducePlan& plan, const std::string& how) const {
    return how + " (" + std::to_string(plan.splits) + " chunks of " + std::to_string(plan.chunk) +
           " points), partials into the scratch workspace";
  }

  // The slot of output `o`'s partial of chunk `s`: chunk-major, so neighbouring outputs
  // (columns) are neighbours.
  std::string partial_slot(const std::string& o, const std::string& s) const {
    return s + " * " + std::to_string(outputs()) + " + " + o;
  }
  int64_t outputs() const { return points(k_.loops, 0, static_cast<size_t>(k_.num_outer_loops())); }

  // accs_ for k_, and pointers g_<acc><field> to each field's array of partials in the scratch
  // workspace, each array 256-byte aligned.
  void scratch_arrays(const ReducePlan& plan) {
    const int64_t slots = outputs() * plan.splits;
    make_accumulators(k_);
    int64_t offset = 0;
    for (const BlockAccumulator& a : accs_)
      for (const BlockAccumulator::Field& f : a.fields()) {
        line(f.type + "* __restrict__ g_" + name_of(a, f) + " = (" + f.type + "*)(kiln_scratch + " +
             std::to_string(offset) + ");");
        const int64_t bytes = slots * (f.type == "float" ? 4 : 8);
        offset += (bytes + 255) / 256 * 256;
      }
    out_.scratch_bytes = std::max(out_.scratch_bytes, offset);
  }
  // accs_: one accumulator per reduce op of reduction `k`, a0, a1, ...
  void make_accumulators(const LoopKernel& k) {
    const size_t red = static_cast<size_t>(k.reduce_op), end = cpp::reduce_ops_end(k);
    const int64_t count = points(k.loops, static_cast<size_t>(k.num_outer_loops()), k.loops.size());
    accs_.clear();
    for (size_t r = red; r < end; ++r) {
      const BodyOp& rop = k.body[r];
      accs_.emplace_back(rop, k.body[static_cast<size_t>(rop.args.at(0))].dtype, "a" + std::to_string(r - red), count);
    }
  }

  // Over the (output, chunk) pairs `var` = chunk * outputs + output, from `start` by `stride`:
  // the output's loop variables, then `body(output, chunk)`.
  void partial_points(const std::string& var, const std::string& start, const std::string& stride,
                      const ReducePlan& plan, const std::function<void(const std::string&, const std::string&)>& body) {
    const int64_t outs = outputs();
    open_block("for (" + index_ + " " + var + " = " + start + "; " + var + " < " + std::to_string(outs * plan.splits) +
               "; " + var + " += " + stride + ") {");
    line("const " + index_ + " o = " + var + " % " + std::to_string(outs) + ", s = " + var + " / " +
         std::to_string(outs) + ";");
    unflatten(k_, "o", 0, k_.num_outer_loops());
    body("o", "s");
    close_block();
  }

  // The first pass of a column reduction (cuda_reduce_strategy.h's ColumnPartials, vector plan
  // `v`): a block per (run of plan.groups column groups, chunk of rows), a thread per group of
  // plan.columns adjacent columns (states t_<acc>[j]) and row lane; each lane folds rows y, y +
  // lanes, ... of the chunk in order, its loads that walk the columns one vector a row; the lanes
  // meet in shared memory over halving strides (a fixed tree) and lane 0 stores the partials.
  void column_partials(const std::string& symbol, const ReducePlan& plan, const ColumnVectors& v) {
    const int outer = k_.num_outer_loops(), n = static_cast<int>(k_.loops.size()), w = plan.columns;
    const int64_t outs = outputs(), count = points(k_.loops, static_cast<size_t>(outer), k_.loops.size());
    const int64_t column_blocks = (outs / w + plan.groups - 1) / plan.groups;
    const std::string ws = std::to_string(w), lanes = std::to_string(plan.lanes);
    const std::string how = "a block per " + std::to_string(plan.groups * w) +
                            " columns and chunk of rows, a thread per " +
                            (w == 1 ? "column" : ws + " columns (vector loads)") + " and every " + lanes +
                            "th row of the chunk, the rows combined in shared memory (" + std::to_string(plan.splits) +
                            " chunks of " + std::to_string(plan.chunk) + " rows), partials into the scratch workspace";
    block_ = static_cast<int>(plan.partials.block);
    function(symbol + "_partials", plan.partials, how, true, [&] {
      scratch_arrays(plan);
      KILN_CHECK(accs_.size() == 1) << "a column reduction has one reduce op";
      const BlockAccumulator& a = accs_[0];
      const std::string type = a.fields()[0].type, mine = "j * " + std::to_string(block_) + " + threadIdx.x";
      line("__shared__ " + type + " s_" + a.name() + "[" + std::to_string(w * block_) + "];");
      line("const int x = threadIdx.x % " + std::to_string(plan.groups) + ", y = threadIdx.x / " +
           std::to_string(plan.groups) + ";  // the thread's column group in the block, its row lane");
      open_block("for (" + index_ + " b = " + block_index() + "; b < " + std::to_string(column_blocks * plan.splits) +
                 "; b += " + grid_blocks() + ") {");
      line("const " + index_ + " o = (b % " + std::to_string(column_blocks) + " * " + std::to_string(plan.groups) +
           " + x) * " + ws + ", s = b / " + std::to_string(column_blocks) +
           ";  // the thread's first column (output point), the chunk");
      line(type + " t_" + a.name() + "[" + ws + "];");
      lanes_loop(w, [&] { line(a.start_at("t_", "j")); });
      open_block("if (o < " + std::to_string(outs) + ") {");
      unflatten(k_, "o", 0, outer);
      line("const " + index_ + " end = s * " + std::to_string(plan.chunk) + " + " + std::to_string(plan.chunk) + " < " +
           std::to_string(count) + " ? s * " + std::to_string(plan.chunk) + " + " + std::to_string(plan.chunk) + " : " +
           std::to_string(count) + ";");
      line("#pragma unroll 4");
      open_block("for (" + index_ + " r = s * " + std::to_string(plan.chunk) + " + y; r < end; r += " + lanes + ") {");
      unflatten(k_, "r", outer, n);
      const size_t red = static_cast<size_t>(k_.reduce_op);
      std::vector<std::string> element(red);
      std::vector<IndexExpr> here;  // the thread's first column: the loop variables as they are
      for (int d = 0; d < n; ++d) here.push_back(IndexExpr::var(d));
      for (size_t i = 0; w > 1 && i < red; ++i) {
        const BodyOp& op = k_.body[i];
        if (v.access[i] == VectorAccess::None) continue;  // not a load (no buffer)
        const DType t = p_.buffers[static_cast<size_t>(op.buffer)].dtype;
        if (v.access[i] == VectorAccess::Broadcast) {
          element[i] = "l" + std::to_string(i);
          line("const " + std::string(cpp::storage_type(t)) + " " + element[i] + " = " + buffer_pointer(p_, op.buffer) +
               "[" + cpp::index_cpp(op.index) + "];  // the same for the row");
        } else if (v.access[i] == VectorAccess::Contiguous) {
          element[i] = "l" + std::to_string(i) + ".e[j]";
          line(vector_union("l" + std::to_string(i), w, t) + ";");
          vector_copy("l" + std::to_string(i), w, t, op, here, true);
        }
      }
      lanes_loop(w, [&] {
        for (size_t i = 0; i < red; ++i) line(body_op_text(p_, k_, static_cast<int>(i), element[i]));
        line(a.update_at("t_", "j", value_name(k_.body[red].args.at(0))));
      });
      close_block();
      close_block();
      lanes_loop(w, [&] { line(a.copy("s_", mine, "t_", "j")); });
      line("__syncthreads();");
      if (plan.lanes > 1) {
        open_block("for (int h = " + std::to_string(plan.lanes / 2) + "; h > 0; h /= 2) {");
        open_block("if (y < h) {");
        lanes_loop(w, [&] { line(a.combine("s_", mine, mine + " + h * " + std::to_string(plan.groups))); });
        close_block();
        line("__syncthreads();");
        close_block();
      }
      open_block("if (y == 0 && o < " + std::to_string(outs) + ") {");
      lanes_loop(w, [&] { line(a.copy("g_", partial_slot("o + j", "s"), "s_", mine)); });
      close_block();
      line("__syncthreads();");
      close_block();
    });
  }
  // `body` for lanes j = 0 .. w-1 of a thread's columns, unrolled.
  void lanes_loop(int w, const std::function<void()>& body) {
    line("#pragma unroll");
    open_block("for (int j = 0; j < " + std::to_string(w) + "; ++j) {");
    body();
    close_block();
  }

  // The second pass of a column reduction: a thread per output point folds its partials in chunk
  // order in a register (the loads independent of the folds, so unrolled they overlap), then
  // stores the total in chunk 0's slot and runs the epilogue.
  void column_finish(const std::string& symbol, const ReducePlan& plan) {
    function(symbol + "_finish", plan.finish,
             "a thread per output point folding its " + std::to_string(plan.splits) + " partials in order", true, [&] {
               scratch_arrays(plan);
               for_points(k_, "o", 0, k_.num_outer_loops(), grid_thread(), grid_threads(), [&] {
                 const BlockAccumulator& a = accs_.at(0);
                 line(a.declare());
                 line("#pragma unroll 8");
                 open_block("for (" + index_ + " s = 0; s < " + std::to_string(plan.splits) + "; ++s) {");
                 line(a.update("g_" + a.name() + "[" + partial_slot("o", "s") + "]", ""));
                 close_block();
                 line(a.save("g_", "o"));
                 epilogue(k_, "g_", "o");
               });
             });
  }

  // The second pass of a split reduction: a thread per output folds its partials in chunk
  // order into chunk 0's slot, then runs the epilogue.
  void finish(const std::string& symbol, const ReducePlan& plan) {
    function(symbol + "_finish", plan.finish,
             "a thread per output point folding its " + std::to_string(plan.splits) + " partials in order", true, [&] {
               scratch_arrays(plan);
               for_points(k_, "o", 0, k_.num_outer_loops(), grid_thread(), grid_threads(), [&] {
                 if (plan.splits > 1) {
                   open_block("for (" + index_ + " s = 1; s < " + std::to_string(plan.splits) + "; ++s) {");
                   for (const BlockAccumulator& a : accs_) line(a.combine("g_", "o", partial_slot("o", "s")));
                   close_block();
                 }
                 epilogue(k_, "g_", "o");
               });
             });
  }

  const LoopProgram& p_;
  const LoopKernel& original_;  // as the program has it; k_ with its loops collapsed
  const LoopKernel& k_;
  const CudaTarget& target_;
  const bool checks_;
  std::string index_ = "int64_t";  // "int" or "int64_t": loop variables and index arithmetic
  int block_ = 1;                  // threads of the block in the function being written
  const HeldRow* held_ = nullptr;  // the row held in registers, while its parts are written
  int held_part_ = -1;             // the part of held_ being written
  std::vector<BlockAccumulator> accs_;
  CudaKernel out_;
  int depth_ = 0;
};

}  // namespace

CudaKernel emit_cuda_kernel(const LoopProgram& p, const LoopKernel& original, const std::string& symbol,
                            const CudaTarget& target) {
  // Loops that access memory as one run as one: fewer divisions to split the flat point.
  const LoopKernel k = collapse_loops(original);
  return KernelWriter(p, original, k, target).write(symbol);
}

}  // namespace kiln::cuda
