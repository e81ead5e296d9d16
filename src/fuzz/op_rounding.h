// How much one op's result may differ between the compiled CPU backend and the reference
// interpreter when both get the same operands, relative to the values involved: a number of
// ulps of the dtype the op rounds to (its result's, or its operand's for a floating-point op
// with an exact result), from the op and its operand types alone. The numbers and where they
// come from are in docs/FUZZING.md ("Tolerances"): 0 for ops that only move, select or
// compare values; 1 for a correctly rounded arithmetic op; 4 for the math functions
// (docs/CODEGEN.md bounds kiln's vectorized exp, tanh, expm1, log1p and erf within 4 ulp);
// one per term for sums, products and contractions (their order of additions differs);
// a constant more for composite ops the CPU backend decomposes into several roundings; for a
// higher-order op, the sum over its bodies' nodes (times the trips a loop may make).
#pragma once

#include <span>

#include "ir/graph.h"
#include "ops/op_call.h"

namespace kiln::fuzz {

// What the rounding is relative to.
enum class RoundingScale {
  Result,           // |result|: a correctly rounded op, a sum (with its operands' backward error)
  OperandOrResult,  // max(|operand 0|, |result|): a composite whose float formula cancels (gelu's
                    // x * (1 + erf(x / sqrt 2)) / 2 far below 0)
  ResultOrOne,      // max(|result|, 1): log-domain results whose float formula subtracts O(1)
                    // terms (nll_loss, mse_loss)
  Spread,           // max(|result|, max|operand 0|^p), p = 2 for var, 1 for std: a spread of values
                    // equal up to rounding is rounding noise of the values' size, not of its own
                    // (two-pass and Welford code disagree there: 1e-32 against 0 for values near 1)
  Exponentiated,    // max(|result|, 1) * (1 + M), M the magnitude of what the op exponentiates
                    // (exponentiated_magnitude): softmax-like ops and attention, whose compiled
                    // code may compute x - max(x) in two kernels, each rounding x differently
  Normalized,       // max(|result|, normalized_magnitude): the normalizations, whose result
                    // xhat * w + b may cancel to far below its terms (xhat -1 and w = b gives 0)
};

struct OpRounding {
  double relative = 0;  // ulps times the rounded dtype's epsilon; 0 for exact ops
  RoundingScale scale = RoundingScale::Result;
};

OpRounding op_rounding(const Node& n);

// The largest |element| of `t` that is finite; 0 when none is.
double largest_finite_magnitude(const Tensor& t);

// For RoundingScale::Exponentiated: the largest finite magnitude the op exponentiates, from its
// operands' values (operand 0's for softmax-like ops; |scale| * max|q| * max|k| * E, plus max|v|
// for the values it averages, for attention).
double exponentiated_magnitude(const Node& n, std::span<const KernelOperand> operands);

// For RoundingScale::Normalized: a bound on the terms of xhat * w + b, max|w| * X + max|b| (1 and
// 0 without weight or bias), X bounding |xhat|: sqrt of the normalized group's size where the
// op normalizes by its own statistics (|x - mean| <= sqrt(N) std), (max|x| + max|running_mean|)
// / sqrt(min|running_var| + eps) for batch_norm in eval mode.
double normalized_magnitude(const Node& n, std::span<const KernelOperand> operands);

// For RoundingScale::Exponentiated: a bound on the intermediate values the op computes in its
// result's dtype before it rounds the result (attention's scores q.k, before and after the
// scale: max(|scale|, 1) * max|q| * max|k| * E; what a softmax-like op exponentiates). Past
// the dtype's largest finite value compiled code may overflow to inf there (and give NaN, as
// torch does) where the reference kernel, computing in double, does not.
double intermediate_magnitude(const Node& n, std::span<const KernelOperand> operands);

}  // namespace kiln::fuzz
