// C++ for the loop IR's compute ops beyond plain arithmetic, with the evaluator's semantics
// (lower/eval_math.h): math functions, sign, rounding, remainder, fmod, rounding division,
// integer pow, bitwise ops and shifts, lerp. Floating forms compute in float or double
// (cpp_scalar.h's compute types): erf, log1p and expm1 of float through the prelude's
// vectorizable kiln_erff, kiln_log1pf and kiln_expm1f, the rest through std:: functions or
// prelude helpers. Integer forms compute in int64_t through helpers with no undefined
// behaviour (shift amounts out of range, INT64_MIN / -1); their divisors are nonzero constants
// (runtime/cpu refuses other integer divisions, lower/integer_divisors.h).
#pragma once

#include <string>
#include <vector>

#include "core/dtype.h"
#include "ops/attr.h"
#include "ops/op_kind.h"

namespace kiln::cpp {

// Whether math_float_expr / math_int_expr give `op` (with `attrs`) on that path.
bool is_math_float_op(OpKind op, const AttrMap& attrs);
bool is_math_int_op(OpKind op, const AttrMap& attrs);

// `op` on floating values `a` held in float (`single`) or double; `out` is the result dtype
// (a rounding division rounds its quotient to it).
std::string math_float_expr(OpKind op, const std::vector<std::string>& a, bool single, DType out, const AttrMap& attrs);

// `op` on int64_t values `a`; `out` is the result dtype (shifts take their width from it).
std::string math_int_expr(OpKind op, const std::vector<std::string>& a, DType out, const AttrMap& attrs);

}  // namespace kiln::cpp
