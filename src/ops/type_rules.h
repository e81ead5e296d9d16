// Shape and dtype rules named in ops.def, plus helpers the rules share.
// A rule returns one entry per result, or a Diagnostic whose message starts with the op
// name and names the operand or attribute at fault.
#pragma once

#include <vector>

#include "core/shape.h"
#include "ops/op_call.h"
#include "support/diagnostic.h"

namespace kiln {

#define KILN_OP(E, schema, traits, shape_rule, dtype_rule, kernel) \
  Expected<std::vector<Shape>> shape_rule(const TypeCall& call);   \
  Expected<std::vector<DType>> dtype_rule(const TypeCall& call);
#include "ops/ops.def"
#undef KILN_OP

// Broadcast two shapes (NumPy rules). A dim broadcasts with 1 or an equal dim; two dims that
// are not provably equal or 1, at least one symbolic (B vs 3, B vs C), give the static one
// (else the first) and assume they are equal: the guard `B == C` goes to `guards`. Symbols
// are assumed not to be 1, as in torch's dynamic shapes. Two different static sizes fail.
Expected<Shape> broadcast_shapes(const Shape& a, const Shape& b, std::vector<ShapeGuard>* guards = nullptr);

// torch.result_type over the given operands (tensors and inline scalars).
DType result_type(std::span<const TypeOperand> operands);

}  // namespace kiln
