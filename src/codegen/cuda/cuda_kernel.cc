#include "codegen/cuda/cuda_kernel.h"

#include "codegen/cuda/cuda_kernel_writer.h"

#include <algorithm>
#include <set>

#include "codegen/collapse_loops.h"
#include "codegen/cpp/cpp_index.h"
#include "codegen/cpp/cpp_lane_reduce.h"
#include "codegen/cpp/cpp_scalar.h"
#include "codegen/cpp/cpp_schedule.h"
#include "codegen/cuda/cuda_body.h"
#include "lower/schedule.h"
#include "support/check.h"

namespace kiln::cuda {

namespace {

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
  return plan_reduction(outputs, row, is_column_reduction(k) ? column_vectors(p, k).width : 0, t, !has_welford_m2(k));
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
      int64_t row = 0, row_bytes = 0;
      for (const LoopKernel& part : k.parts) {
        row = std::max(row, points(part.loops, n, part.loops.size()));
        row_bytes = std::max(row_bytes, part_row_bytes(part, n));
      }
      if (!cpp::fused_rows_independent(k)) return {kSerialLaunch, "rows in order (stores repeat elements)"};
      if (h.reason.empty()) return {h.launch.shape, held_text(h)};
      return {memory_row_launch(points(k.loops, 0, n), row, row_bytes, t), held_text(h)};
    }
    default: break;
  }
  KILN_UNREACHABLE("kernel @" + k.name + " has one launch only when pointwise, scan or fused");
}

}  // namespace

CudaKernel KernelWriter::write(const std::string& symbol) {
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
                   fold_row(outer);
                   block_reduce(ResultFor::ThreadZero,
                                [&](const std::string& prefix, const std::string& at) { epilogue(k_, prefix, at); });
                 });
               });
      break;
    case ReduceStrategy::WarpPerRow:
      block_ = static_cast<int>(plan.partials.block);
      function(symbol, plan.partials,
               "a warp per output point, " + std::to_string(kWarpRowsPerBlock) + " a block, joined by shuffles", false,
               [&] {
                 const std::string rows = std::to_string(kWarpRowsPerBlock);
                 for_points(k_, "row", 0, outer, block_index() + " * " + rows + " + " + thread_index() + " / 32",
                            grid_blocks() + " * " + rows, [&] {
                              lanes_ = true;  // the row's walk strides over the warp's lanes
                              fold_row(outer);
                              lanes_ = false;
                              warp_join(kWarpThreads);
                              open_block("if (threadIdx.x % 32 == 0) {");
                              epilogue(k_, "", "");
                              close_block();
                            });
               });
      break;
    case ReduceStrategy::SplitRow:
      block_ = static_cast<int>(plan.partials.block);
      function(symbol + "_partials", plan.partials, split_text(plan, "a block per output point and chunk"), true, [&] {
        scratch_arrays(plan);
        partial_points("w", block_index(), grid_blocks(), plan, [&](const std::string& o, const std::string& s) {
          fold_chunk(outer, s, plan.chunk);
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

CudaKernel emit_cuda_kernel(const LoopProgram& p, const LoopKernel& original, const std::string& symbol,
                            const CudaTarget& target) {
  // Loops that access memory as one run as one: fewer divisions to split the flat point.
  const LoopKernel k = collapse_loops(original);
  return KernelWriter(p, original, k, target).write(symbol);
}

}  // namespace kiln::cuda
