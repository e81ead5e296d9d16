// C++ for the loop IR's compute ops (lower/compute_ops.def), with the evaluator's semantics
// (lower/eval_compute.h): one case per op, so a declared op without its C++ does not build.
// Floating forms compute in float or double (cpp_scalar.h's compute types): exp, tanh, erf,
// log1p and expm1 of float through the prelude's vectorizable kiln_expf, kiln_tanhf, kiln_erff,
// kiln_log1pf and kiln_expm1f, the rest through std:: functions or prelude helpers. Integer
// forms compute in int64_t through helpers with no undefined behaviour (shift amounts out of
// range, INT64_MIN / -1); their divisors are nonzero constants (runtime/cpu refuses other
// integer divisions, lower/integer_divisors.h).
#pragma once

#include <span>
#include <string>

#include "core/dtype.h"
#include "ops/attr.h"
#include "ops/op_kind.h"

namespace kiln::cpp {

// Compute op `op` of ops.def (with its loop-body `attrs`) on `args` (values of `arg_dtypes`)
// with result dtype `out`.
std::string compute_expr(OpKind op, std::span<const std::string> args, std::span<const DType> arg_dtypes, DType out,
                         const AttrMap& attrs = {});

}  // namespace kiln::cpp
