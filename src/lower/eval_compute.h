// The scalar semantics of the loop IR's compute ops (compute_ops.def) as the loop-IR evaluator
// (loop_eval.cc) holds values: double for floating dtypes, int64 otherwise. One case per op
// (eval_compute.cc), sharing the reference kernels' functions (ops/elementwise_scalar.h).
#pragma once

#include <cstdint>
#include <span>

#include "core/dtype.h"
#include "ops/attr.h"
#include "ops/op_kind.h"
#include "support/diagnostic.h"

namespace kiln {

// A body value: `f` for floating dtypes, `i` otherwise (a bool is 0 or 1).
struct EvalValue {
  double f = 0;
  int64_t i = 0;
};

// v of dtype `from` as dtype `to`, exactly as a store and a load would convert it.
EvalValue convert_eval_value(const EvalValue& v, DType from, DType to);

// Compute `op` (with `attrs`) on operand values `a` of dtypes `dtypes`, giving a value of
// dtype `out`. It computes where compute_domain says; a floating result stays unrounded, an
// integer one wraps to `out`. An error when it divides integers by zero, which the reference
// kernels report.
Expected<EvalValue> eval_compute(OpKind op, std::span<const EvalValue> a, std::span<const DType> dtypes, DType out,
                                 const AttrMap& attrs);

}  // namespace kiln
