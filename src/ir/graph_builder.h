// Appends nodes to a graph with their result types computed by the ops' own rules, for code
// that writes graphs (derivative rules, the joint graph, decompositions). A builder that
// makes an ill-typed node is a bug in the code using it, so that is an internal error.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "ir/graph.h"

namespace kiln {

class GraphBuilder {
 public:
  // New nodes go before `insert_before`, or at the end of `g` when it is null.
  explicit GraphBuilder(Graph& g, Node* insert_before = nullptr) : graph_(g), insert_before_(insert_before) {}

  Graph& graph() { return graph_; }

  // `op` applied to `operands` with `attrs` (attributes equal to the schema default may be
  // left out); all results, or the single result.
  std::vector<Value*> apply(OpKind op, std::vector<Operand> operands, AttrMap attrs = {});
  Value* apply1(OpKind op, std::vector<Operand> operands, AttrMap attrs = {});
  // A higher-order op (cond, scan, map, ...) with its subgraphs, in schema order.
  std::vector<Value*> apply_higher_order(OpKind op, std::vector<Operand> operands, AttrMap attrs,
                                         std::vector<std::unique_ptr<Graph>> subgraphs);
  // Copies of g's nodes (subgraphs cloned) with g's inputs read as `inputs` (one value of the
  // same type per input, or null for an input g does not read); the values g's outputs become.
  std::vector<Value*> inline_graph(const Graph& g, std::span<Value* const> inputs);

  // The sum of `v` over the dims that broadcasting added or stretched to reach v's shape from
  // `shape`, reshaped to `shape`: the gradient of an operand that was broadcast.
  Value* sum_to_shape(Value* v, const Shape& shape);
  // `v` converted to `dtype` (no node when it already has it).
  Value* cast(Value* v, DType dtype);
  // A tensor of like's type filled with `value`.
  Value* full_like(Value* like, Scalar value);
  Value* zeros_like(Value* v);

 private:
  Graph& graph_;
  Node* insert_before_;
};

}  // namespace kiln
