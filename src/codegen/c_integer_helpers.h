// Integer helpers of the C-family preludes (codegen/cpp's and codegen/cuda's), one text for
// both: the loop IR's floor division and modulo, wrapping int64 arithmetic through uint64_t,
// and the integer forms of rounding division, remainder, fmod, pow and shifts (the evaluator's
// steps, ops/elementwise_scalar.h), with no undefined behaviour. Each function is declared with
// `qualifier` ("static inline" for C++, "__device__ inline" for CUDA).
#pragma once

#include <string>
#include <string_view>

namespace kiln {

// kiln_floordiv, kiln_mod (index arithmetic) and kiln_wrap_add/sub/mul/neg.
std::string c_index_and_wrap_helpers(std::string_view qualifier);
// kiln_div_trunc_i64, kiln_div_floor_i64, kiln_remainder_i64, kiln_fmod_i64, kiln_pow_i64,
// kiln_shl, kiln_shr (they call kiln_wrap_neg).
std::string c_integer_op_helpers(std::string_view qualifier);

}  // namespace kiln
