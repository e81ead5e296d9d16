// Control flow as functions, like torch.cond, torch._higher_order_ops.while_loop, scan and
// map: the branches and bodies are C++ functions on tensors. Eagerly (no capture active, all
// operands concrete) they run as plain C++ control flow would; inside capture() each
// function is traced once into a closed subgraph of a cond/while_loop/scan/map node
// (ops.def). A function may use tensors from outside (traced values of the capture, module
// parameters, constants): they become extra operands of the node. Errors throw kiln::Error.
// Eager scan and map need a non-empty dim to iterate over: the outputs' shapes come from
// calling the function (captured, they come from the traced subgraph).
// The trailing `loc` is the caller's line: the node records it and the errors named here start
// with it (functional.h).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "core/tensor.h"
#include "support/error.h"

namespace kiln {

// A branch or body: tensors in, tensors out.
using GraphFn = std::function<std::vector<Tensor>(std::span<const Tensor>)>;

// true_fn(operands) if `pred` (a one-element bool tensor) is true, else false_fn(operands).
// Captured, both branches must return the same number of tensors with equal dtypes and
// shapes.
std::vector<Tensor> cond(const Tensor& pred, const GraphFn& true_fn, const GraphFn& false_fn,
                         std::vector<Tensor> operands, CallSite loc = CallSite::current());

// while cond_fn(carried) is true: carried = body_fn(carried); returns the final carried
// values. cond_fn returns one bool[]; body_fn returns tensors of the carried values' types.
std::vector<Tensor> while_loop(const GraphFn& cond_fn, const GraphFn& body_fn, std::vector<Tensor> carried,
                               CallSite loc = CallSite::current());

// For each index i along `dim` of the xs (which must agree in size there):
// (carry..., y...) = combine_fn(carry..., xs[i]...). Returns the final carries, then the
// ys stacked along `dim`. combine_fn returns the carries first, with their types.
std::vector<Tensor> scan(const GraphFn& combine_fn, std::vector<Tensor> init, std::vector<Tensor> xs, int64_t dim = 0,
                         CallSite loc = CallSite::current());

// body_fn(xs[i]..., extra...) for each index i along dim 0 of the xs; returns its outputs
// stacked along dim 0.
std::vector<Tensor> map(const GraphFn& body_fn, std::vector<Tensor> xs, std::vector<Tensor> extra = {},
                        CallSite loc = CallSite::current());

}  // namespace kiln
