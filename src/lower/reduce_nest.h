// The loop nest of a reduction over some dims of a value: the kept dims become the outer loops
// (in order), the reduced dims the inner `reduce` loops; with the coordinates that read the
// operand and write the result. Shared by the reduction families (lower_reduce.cc,
// lower_arg_reduce.cc, lower_welford.cc).
#pragma once

#include <cstdint>
#include <vector>

#include "lower/body_builder.h"
#include "lower/index_expr.h"
#include "lower/loop_ir.h"

namespace kiln::lowering {

struct ReduceNest {
  std::vector<int64_t> loops;  // the kept dims' sizes, then the reduced dims'
  int num_reduce_loops = 0;
  std::vector<IndexExpr> in_coords;   // the operand's coordinates (0 along size-1 dims)
  std::vector<IndexExpr> out_coords;  // the result's coordinates (keepdim: 0 at reduced dims)
  // The row-major position of a point within the reduce loops (argmax's index of a flattened
  // group), and the number of those points.
  IndexExpr position;
  int64_t count = 1;

  // A reduction kernel over these loops; pointwise when no dim is reduced.
  LoopKernel kernel() const;
};

// `reduced` has one flag per dim of `sizes`.
ReduceNest reduce_nest(const std::vector<int64_t>& sizes, const std::vector<bool>& reduced, bool keepdim);

// A constant `v` (a count, a divisor) of dtype `dt` when `dt` holds it exactly, else of f64:
// a division by it then divides by `v` itself (an f16 const of 70000 would be inf).
int exact_constant(BodyBuilder& b, const Scalar& v, DType dt);

}  // namespace kiln::lowering
