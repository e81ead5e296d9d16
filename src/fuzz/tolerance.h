// How far the compiled CPU backend may be from the interpreter on a graph's outputs, element
// by element, estimated by propagating each op's rounding (op_rounding.h) through the graph:
// every node is rerun by its reference kernel with one operand moved by its tolerance (up,
// down and in a random pattern of signs), and the largest change of each result element,
// summed over the operands, plus the op's own rounding, is that element's tolerance. So a
// comparison of nearly equal floats tolerates the flip it may take, a division by a small
// number the error its divisor carries, and an exact op on exact operands nothing at all.
// docs/FUZZING.md ("Tolerances") has the model and its limits.
#pragma once

#include <span>
#include <vector>

#include "core/tensor.h"
#include "ir/graph.h"
#include "support/diagnostic.h"

namespace kiln::fuzz {

// One tolerance per element (row-major); +inf where any value goes (the element is NaN or not
// depending on the rounding, or a moved operand made the op fail).
using ElementTolerance = std::vector<double>;

struct GraphTolerance {
  std::vector<ElementTolerance> outputs;  // one per graph output
  std::vector<ElementTolerance> inputs;   // one per graph input: what the graph writes into it
};

// Runs g on `inputs` in the interpreter (after functionalizing a copy, so that every value has
// one content); errors are the interpreter's.
Expected<GraphTolerance> estimate_tolerance(const Graph& g, std::span<const Tensor> inputs);

// Whether `got` agrees with the interpreter's `want` within `tol`: NaN with NaN, equal values
// (infinities included), or |got - want| <= tol. The first element that does not, or -1.
int64_t first_disagreement(const Tensor& want, const Tensor& got, const ElementTolerance& tol);

}  // namespace kiln::fuzz
