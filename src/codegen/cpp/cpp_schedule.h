// Where a generated kernel's OpenMP pragmas go. Only kernels whose iterations are
// independent get any: no buffer is stored twice, every store index is injective in the
// parallel (or vectorized) loops, and a buffer both loaded and stored is loaded only at the
// index it is stored (an in-place update). Then:
//  * pointwise: `omp simd` on the innermost loop; `omp parallel for` on the loops outside
//    it (collapsed) when the kernel has >= parallel_threshold points; a single loop gets
//    `omp parallel for simd`. A kernel whose points depend (a scatter) may still get
//    `omp simd` on its innermost loop (inner_loop_independent);
//  * reduction: `omp simd` with the accumulator's reduction clause on the innermost reduce
//    loop; past the threshold, `omp parallel for` on the outer loops when they have >= 64
//    points, else on the reduce loops with the reduction clause (a floating product, which
//    has none, keeps its order and runs serially);
//  * scan: past the threshold, `omp parallel for` on the outer loops when its rows are
//    independent (scan_rows_independent); the innermost loop runs in order.
#pragma once

#include <string>

#include "codegen/cpp/cpp_emitter.h"
#include "lower/loop_ir.h"

namespace kiln::cpp {

// Outer points below which a large reduction parallelizes its reduce loops instead.
inline constexpr int64_t kMinParallelOuterPoints = 64;

struct CppSchedule {
  int parallel_loop = -1;     // the loop with `omp parallel for`, -1 for none
  int parallel_collapse = 1;  // loops it covers (collapse(n) when > 1)
  int simd_loop = -1;         // the loop with `omp simd` (`parallel for simd` when the same)
  std::string reduction;      // reduction clauses on the reduce loops' pragmas
};

CppSchedule schedule_cpp_kernel(const LoopKernel& k, const CppEmitOptions& o);

// Whether the rows (the outer loops) of scan kernel `k` may run in parallel, its innermost
// loop staying in order: no buffer is stored twice, a store that depends on the innermost loop
// (a per-step output) is injective in all loops, one that does not (a carry) in the outer
// ones, and every load of a stored buffer is a carry's, at its store's index.
bool scan_rows_independent(const LoopKernel& k);

// Whether iterations of `k` that differ in loops [0, n) touch disjoint memory where one
// writes: no buffer is stored twice, every store index is injective in those loops or the
// store is `unique` (through indirect terms: an op's promise), and a stored buffer is loaded
// only at its store's address (an in-place update; a unique scatter's own element).
bool stores_independent(const LoopKernel& k, int n);

// Whether the rows (shared loops) of fused kernel `k` may run in parallel: every part's stores
// are injective over its outer loops (the shared ones and any it adds before reducing), and a
// part that loads what another part stores does so at the stored index (the same row, as the
// scheduler guarantees; a hand-written program may not).
bool fused_rows_independent(const LoopKernel& k);

// Whether pointwise `k`'s points that differ only in its innermost loop touch distinct
// elements where one writes: each store moves with the innermost variable (affine, nonzero
// coefficient) while its indirect terms do not, and a stored buffer is loaded only at the
// element stored. A scatter that accumulates rows then vectorizes along the row while its
// rows (whose indices may repeat) run in order.
bool inner_loop_independent(const LoopKernel& k);

}  // namespace kiln::cpp
