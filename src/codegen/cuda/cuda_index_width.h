// 32-bit index arithmetic where the loop bounds prove it cannot wrap: GPU integer division and
// multiplication by constants are several times cheaper in 32 bits, and a kernel's flat point
// is split into its loop variables by them. Otherwise 64-bit, never wrapping.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "lower/loop_ir.h"

namespace kiln::cuda {

// A bound on |v| for every partial result of evaluating `e` term by term (each div/mod's inner
// expression too) while variable v runs over [0, extents[v]); nullopt past int64.
std::optional<int64_t> index_magnitude(const IndexExpr& e, std::span<const int64_t> extents);

// Whether kernel `k` (every part of a fused one) may hold its flat points, loop variables and
// load, store and index expressions in `int`: each count of points plus `stride` (the most a
// grid-stride loop steps past it) and every expression's magnitude stay within INT32_MAX.
bool fits_int32(const LoopKernel& k, int64_t stride);

}  // namespace kiln::cuda
