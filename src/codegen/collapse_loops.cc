#include "codegen/collapse_loops.h"

#include <vector>

namespace kiln {

namespace {

// Ops that carry an index expression over the loop variables.
bool is_access(const BodyOp& op) {
  return op.kind == BodyOp::Kind::Load || op.kind == BodyOp::Kind::Store || op.kind == BodyOp::Kind::Index;
}

// Drops loop d (its variable becomes 0).
void drop_loop(LoopKernel& k, int d) {
  std::vector<IndexExpr> repl;
  std::vector<int64_t> loops;
  for (int v = 0; v < static_cast<int>(k.loops.size()); ++v) {
    if (v == d) {
      repl.push_back(IndexExpr::constant_of(0));
      continue;
    }
    repl.push_back(IndexExpr::var(static_cast<int>(loops.size())));
    loops.push_back(k.loops[static_cast<size_t>(v)]);
  }
  if (k.kind == KernelKind::Reduction && d >= k.num_outer_loops()) --k.num_reduce_loops;
  for (BodyOp& op : k.body)
    if (is_access(op)) op.index = op.index.substitute(repl);
  k.loops = std::move(loops);
}

bool can_merge(const LoopKernel& k, int d) {
  const int64_t inner = k.loops[static_cast<size_t>(d) + 1];
  int64_t merged;
  if (__builtin_mul_overflow(k.loops[static_cast<size_t>(d)], inner, &merged)) return false;
  if (k.kind == KernelKind::Reduction && (d < k.num_outer_loops()) != (d + 1 < k.num_outer_loops())) return false;
  for (const BodyOp& op : k.body) {
    if (!is_access(op)) continue;
    if (!op.index.is_affine_in(d) || !op.index.is_affine_in(d + 1)) return false;
    int64_t want;
    if (__builtin_mul_overflow(op.index.coeff_of(d + 1), inner, &want) || op.index.coeff_of(d) != want) return false;
  }
  return true;
}

// Merges loops d and d+1: the new variable j = e_d+1 * i_d + i_d+1 carries i_d+1's
// coefficient, which accounts for i_d's too, so i_d becomes 0 and i_d+1 becomes j.
void merge_loops(LoopKernel& k, int d) {
  k.loops[static_cast<size_t>(d) + 1] *= k.loops[static_cast<size_t>(d)];
  drop_loop(k, d);
}

}  // namespace

LoopKernel collapse_loops(const LoopKernel& original) {
  LoopKernel k = original;
  if (k.kind == KernelKind::Extern || k.kind == KernelKind::Fused || k.kind == KernelKind::Scan) return k;
  for (int d = static_cast<int>(k.loops.size()) - 1; d >= 0; --d) {
    const bool last_reduce = k.kind == KernelKind::Reduction && d >= k.num_outer_loops() && k.num_reduce_loops == 1;
    if (k.loops[static_cast<size_t>(d)] == 1 && !last_reduce) drop_loop(k, d);
  }
  for (int d = static_cast<int>(k.loops.size()) - 2; d >= 0; --d) {
    if (d + 1 < static_cast<int>(k.loops.size()) && can_merge(k, d)) merge_loops(k, d);
  }
  return k;
}

}  // namespace kiln
