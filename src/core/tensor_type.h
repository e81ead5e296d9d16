// The static type of an IR value: element type and (possibly symbolic) shape.
#pragma once

#include <string>

#include "core/dtype.h"
#include "core/shape.h"

namespace kiln {

struct TensorType {
  DType dtype = DType::F32;
  Shape shape;

  std::string to_string() const { return std::string(dtype_name(dtype)) + shape.to_string(); }  // "f32[B,16]"
  bool operator==(const TensorType& o) const { return dtype == o.dtype && shape == o.shape; }
};

}  // namespace kiln
