// specialize_shapes: a copy of a graph with symbolic dims (B, T, B*T) replaced by the values
// concrete input types give them, as torch.compile specializes a dynamic graph to the shapes
// it is called with. The CPU backend lowers only static shapes; it compiles one
// specialization per distinct input shape (train/graph_runner.h, `kiln run --device=cpu`).
// Every input, result and subgraph type is rewritten and the op rules are run again on them
// (propagate_shapes: a narrow past the end of a dim B hid is an error naming the node); the
// graph's shape guards must hold for the values (an error names the guard). A dim no input determines (a loop symbol, a
// data-dependent size) stays symbolic, and lowering then names it.
#pragma once

#include <map>
#include <memory>
#include <span>
#include <string>

#include "core/tensor.h"
#include "core/tensor_type.h"
#include "ir/graph.h"
#include "support/diagnostic.h"

namespace kiln {

struct Specialized {
  std::unique_ptr<Graph> graph;
  std::map<std::string, int64_t> symbols;  // the value of each symbol the inputs bound
};

// "B=64, T=32": symbol values as messages print them.
std::string symbol_values_text(const std::map<std::string, int64_t>& symbols);

// `inputs` holds one concrete type per graph input, in order. Errors: a count, dtype, rank or
// static-dim mismatch, a symbol given two values, a guard that fails (each names the input or
// guard).
Expected<Specialized> specialize_shapes(const Graph& g, std::span<const TensorType> inputs);
// The same, to the types of concrete input tensors.
Expected<Specialized> specialize_shapes(const Graph& g, std::span<const Tensor> inputs);

// Whether any input of `g` has a symbolic dim.
bool has_symbolic_inputs(const Graph& g);

}  // namespace kiln
