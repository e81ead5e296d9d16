#include "codegen/cuda/cuda_index_width.h"

#include <cstdlib>
#include <limits>

namespace kiln::cuda {

namespace {

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

std::optional<int64_t> term_magnitude(const IndexTerm& t, std::span<const int64_t> extents) {
  switch (t.kind) {
    case IndexTerm::Kind::Var:
      if (t.var < 0 || static_cast<size_t>(t.var) >= extents.size()) return std::nullopt;
      return std::max<int64_t>(0, extents[static_cast<size_t>(t.var)] - 1);
    case IndexTerm::Kind::Div: {
      const std::optional<int64_t> inner = index_magnitude(t.inner.front(), extents);
      if (!inner) return std::nullopt;
      return *inner / t.divisor + 1;  // floor of a negative quotient reaches one further
    }
    case IndexTerm::Kind::Mod:
      if (!index_magnitude(t.inner.front(), extents)) return std::nullopt;
      return t.divisor - 1;
  }
  return std::nullopt;
}

int64_t loop_points(const std::vector<int64_t>& loops) {
  int64_t n = 1;
  for (int64_t e : loops)
    if (__builtin_mul_overflow(n, e, &n)) return std::numeric_limits<int64_t>::max();
  return n;
}

}  // namespace

std::optional<int64_t> index_magnitude(const IndexExpr& e, std::span<const int64_t> extents) {
  if (e.constant == std::numeric_limits<int64_t>::min()) return std::nullopt;
  int64_t sum = std::llabs(e.constant);
  for (const IndexTerm& t : e.terms) {
    const std::optional<int64_t> m = term_magnitude(t, extents);
    int64_t scaled;
    if (!m || t.coeff == std::numeric_limits<int64_t>::min() ||
        __builtin_mul_overflow(std::llabs(t.coeff), *m, &scaled) || __builtin_add_overflow(sum, scaled, &sum))
      return std::nullopt;
  }
  return sum;
}

bool fits_int32(const LoopKernel& k, int64_t stride) {
  if (loop_points(k.loops) > kInt32Max - stride) return false;
  for (const LoopKernel* part : loop_kernel_parts(k)) {
    if (loop_points(part->loops) > kInt32Max - stride) return false;
    for (const BodyOp& op : part->body) {
      if (op.kind != BodyOp::Kind::Load && op.kind != BodyOp::Kind::Store && op.kind != BodyOp::Kind::Index) continue;
      const std::optional<int64_t> m = index_magnitude(op.index, part->loops);
      if (!m || *m > kInt32Max) return false;
    }
  }
  return true;
}

}  // namespace kiln::cuda
