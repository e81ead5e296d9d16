// Values known to hold one number in every element without running the graph: the results
// of full/zeros/ones and their *_like forms. Used to recognise `add(x, zeros)` as a no-op,
// to fold pointwise ops of such values, and to put constants on the right of commutative ops.
#pragma once

#include <optional>

#include "core/scalar.h"
#include "ir/graph.h"

namespace kiln {

// The fill value of `v` when it is produced by full, zeros, ones, full_like, zeros_like or
// ones_like; nullopt otherwise (graph inputs, empty, random ops, anything computed).
std::optional<Scalar> uniform_value(const Value* v);

// The number an operand stands for when it is an inline literal or a uniform value.
std::optional<Scalar> constant_operand(const Operand& operand);

// True if the operand is a literal or uniform value that equals `number` (as a double).
bool operand_equals(const Operand& operand, double number);

}  // namespace kiln
