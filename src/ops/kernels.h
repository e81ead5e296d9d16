// Reference CPU kernels named in ops.def: simple, obviously correct loops over strided
// tensors, computing floating ops in double and integer ops in int64 (core/element.h).
// A kernel allocates its results with the types in call.result_types (in-place kernels
// return operand 0) and reports user errors (integer division by zero, index out of range)
// as Diagnostics.
#pragma once

#include <vector>

#include "core/tensor.h"
#include "ops/op_call.h"
#include "support/diagnostic.h"

namespace kiln {

#define KILN_OP(E, schema, traits, shape_rule, dtype_rule, kernel) \
  Expected<std::vector<Tensor>> kernel(const KernelCall& call);
#include "ops/ops.def"
#undef KILN_OP

}  // namespace kiln
