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
#include <vector>

#include "core/dtype.h"
#include "lower/compute_op.h"
#include "ops/attr.h"
#include "ops/op_kind.h"

namespace kiln::cpp {

// A compute op's operands as a C-family printer reads them: `a` on the op's path (`floating`:
// in float when `single`, else double; otherwise int64_t, or as held for a comparison), `t` as
// truth values, `held` as they are (of `dtypes`).
struct ComputeOperands {
  bool floating = false, single = false;
  std::vector<std::string> a, t;
  std::span<const std::string> held;
  std::span<const DType> dtypes;
};

// One printer's text of compute op `op` on its path: a floating expression in the compute
// type, an int64_t one, or a bool (the C++ printer's and the CUDA printer's, each one switch).
using ComputeOpPrinter = std::string (*)(ComputeOp op, const ComputeOperands& x, DType out, const AttrMap& attrs);

// What every C-family printer shares around its ComputeOpPrinter: the compute type (float when
// every operand and a floating result are held in float, else double; int64_t off the floating
// path), the operands converted to it, and the result converted to `out`'s value type.
std::string compute_expr_with(ComputeOpPrinter print, OpKind op, std::span<const std::string> args,
                              std::span<const DType> arg_dtypes, DType out, const AttrMap& attrs);

// Whether a div's `attrs` ask for floor rounding.
bool floor_mode(const AttrMap& attrs);
// The prelude function that rounds a value of the compute type to dtype `out`, as the
// evaluator's round_to_dtype does before a rounding division truncates or floors.
std::string rounding_function(DType out, bool single);

// Compute op `op` of ops.def (with its loop-body `attrs`) on `args` (values of `arg_dtypes`)
// with result dtype `out`.
std::string compute_expr(OpKind op, std::span<const std::string> args, std::span<const DType> arg_dtypes, DType out,
                         const AttrMap& attrs = {});

}  // namespace kiln::cpp
