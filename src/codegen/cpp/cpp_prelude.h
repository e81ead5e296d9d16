// The fixed prelude of every generated C++ unit: includes and the static inline helpers
// that generated kernels call (exact div/mod, wrapping int64 arithmetic, guarded float ->
// int conversion, NaN-propagating maximum/minimum, f16/bf16 conversions).
#pragma once

#include <string_view>

namespace kiln::cpp {

std::string_view cpp_prelude();

}  // namespace kiln::cpp
