// Reading and writing single elements of any dtype as double or int64. The reference
// kernels compute floating ops in double and integer ops in int64, then round or wrap on
// store; this keeps them obviously correct and free of per-dtype template instantiation.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/dtype.h"

namespace kiln {

double load_double(const std::byte* base, DType dtype, int64_t index);
int64_t load_int(const std::byte* base, DType dtype, int64_t index);
// The element cast to integer or bool dtype `to`, as torch casts: x != 0 for bool (0.5 is
// true, NaN too), truncation toward 0 for the integers (load_int), then wrapping to the width
// of `to` (an i32 -1 is 255 as u8).
int64_t load_int_as(const std::byte* base, DType dtype, int64_t index, DType to);
// Floating dtypes round to nearest; integral dtypes convert like a C++ cast from double
// (truncation; out-of-range values are first wrapped through int64); bool is value != 0.
void store_double(std::byte* base, DType dtype, int64_t index, double v);
// Integral dtypes wrap modulo 2^bits (two's complement); floating dtypes convert.
void store_int(std::byte* base, DType dtype, int64_t index, int64_t v);

}  // namespace kiln
