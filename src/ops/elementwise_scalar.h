// The scalar semantics of the elementwise ops whose value takes more than one C++ expression
// (rounding division, Python's remainder, C's fmod on integers, integer powers, shifts, lerp):
// defined once, for the reference kernels (kernels_binary.cc, kernels_ternary.cc) and the
// loop-IR evaluator (lower/compute_eval.cc), so that the two cannot drift apart. Floating forms
// compute in double; integer forms in int64, wrapping; divisors of the integer forms are nonzero
// (the callers report division by zero).
#pragma once

#include <cstdint>

#include "core/dtype.h"

namespace kiln {

// div with rounding_mode "trunc" and "floor". The floating forms round the quotient (and
// floor's a - fmod(a, b)) to dtype `t` first, as PyTorch divides in the result dtype: a float32
// quotient of -9.99999999 is -10, which truncates to -10, not -9 (PyTorch's div_floor_floating).
// INT64_MIN / -1 wraps to INT64_MIN.
int64_t div_trunc_int(int64_t a, int64_t b);
int64_t div_floor_int(int64_t a, int64_t b);
double div_trunc_float(double a, double b, DType t);
double div_floor_float(double a, double b, DType t);

// remainder: Python's %, the result takes the divisor's sign (0 where the divisor is -1).
double remainder_float(double a, double b);
int64_t remainder_int(int64_t a, int64_t b);
// fmod on integers: C's %, the result takes the dividend's sign (0 where the divisor is -1).
int64_t fmod_int(int64_t a, int64_t b);

// base^exp, wrapping; a negative exp gives 1 for base 1, +-1 for base -1, else 0.
int64_t pow_int(int64_t base, int64_t exp);

// Shifts of an integer of `bits` bits (the result dtype's width): by a negative amount or by
// at least `bits`, left gives 0 and right the sign fill (0 or -1), as torch defines them.
int64_t shift_left_int(int64_t a, int64_t b, int bits);
int64_t shift_right_int(int64_t a, int64_t b, int bits);

// lerp, in torch's two-sided form that is exact at weight 0 and 1.
double lerp_float(double a, double b, double w);

}  // namespace kiln
