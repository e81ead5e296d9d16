// Comparing a computed tensor with a reference under a per-dtype tolerance, for the checks
// that run generated code against the interpreter (kiln run --check, the backend tests).
// An element agrees when |got - want| <= atol + rtol * |want|; NaN agrees with NaN, an
// infinity only with the same infinity; integers and bool compare exactly (as int64).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/tensor.h"

namespace kiln {

struct Tolerance {
  double rtol = 0, atol = 0;
  std::string to_string() const;  // "rtol 1e-05 atol 1e-05"
};

// f64: rtol 1e-9, atol 1e-12; f32: 1e-5 and 1e-5; f16/bf16: 1e-2 and 1e-2; others exact.
Tolerance default_tolerance(DType t);

struct Mismatch {
  int64_t index = 0;  // row-major flat index of the worst element
  double want = 0, got = 0;
};

// The element farthest outside the tolerance (relative to it), or nullopt when all agree.
// `want` and `got` must have the same dtype and sizes; a tensor on a device is a kiln::Error
// (compare on the host).
std::optional<Mismatch> worst_mismatch(const Tensor& want, const Tensor& got, Tolerance tol);

}  // namespace kiln
