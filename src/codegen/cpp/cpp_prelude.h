// The fixed prelude of every generated C++ unit: includes and the static inline helpers
// that generated kernels call (exact div/mod, wrapping int64 arithmetic, guarded float ->
// int conversion, vectorizable float exp, tanh, expm1, log1p and erf, NaN-propagating
// maximum/minimum, f16/bf16 conversions, rounding division, remainder, lerp, and integer
// division, pow and shifts without undefined behaviour).
#pragma once

#include <string_view>

namespace kiln::cpp {

std::string_view cpp_prelude();

}  // namespace kiln::cpp
