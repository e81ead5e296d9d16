// What the generator and the op recipes share while one graph (or one body of a
// higher-order op) is drawn: the values drawn so far, drawing fresh types, inputs and
// literals, and appending nodes whose result types come from the ops' own rules.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "fuzz/choices.h"
#include "fuzz/graph_generator.h"
#include "ir/graph.h"

namespace kiln::fuzz {

// A node being drawn: filled by a recipe, typed and appended by GenContext::append.
struct OpDraft {
  OpKind op;
  std::vector<Operand> operands = {};
  AttrMap attrs = {};
  std::vector<std::unique_ptr<Graph>> subgraphs = {};
};

class GenContext {
 public:
  GenContext(Graph& graph, Choices& choices, const GeneratorOptions& options, int depth, bool pointwise = false);

  Graph& graph;
  Choices& choices;
  const GeneratorOptions& options;
  const int depth;  // 0 for the top-level graph, 1 for a body of its higher-order ops, ...
  // A body of map or scan: only elementwise ops on its inputs, as the CPU backend lowers
  // those bodies (lower/subgraph.h); nothing fresh, no view, no write.
  const bool pointwise;

  // ---- values drawn so far (inputs and node results) ----
  const std::vector<Value*>& values() const { return pool_; }
  // A drawn value, recent ones likelier (chains grow deep); null when there is none.
  Value* pick_value();
  // A drawn value whose type satisfies `fits` (or which satisfies `where`), or null.
  Value* pick_value_if(const std::function<bool(const TensorType&)>& fits);
  Value* pick_value_where(const std::function<bool(const Value&)>& where);
  // A new graph input of `type`.
  Value* new_input(TensorType type);
  // A value of `type` not computed from others: a new input of the top-level graph, a random
  // draw (randn, randint) inside a body, whose inputs are fixed by its op; null in a
  // pointwise body.
  Value* fresh_value(TensorType type);
  // A value of `type` that is a constant: a random draw inside the graph, which no gradient
  // reaches (for operands a derivative rule leaves without one by design: running statistics,
  // class weights); for other graphs, drawn as any operand is.
  Value* constant(const TensorType& type);
  // A value whose shape broadcasts with `of` (elementwise partners): a drawn one, or a fresh
  // one of `of`'s shape with dims dropped from the front or set to 1, of `dtype` if given
  // (null when a pointwise body has none).
  Value* partner(const TensorType& of, std::optional<DType> dtype = std::nullopt);
  // A value of exactly `type`: a drawn one, a drawn one cast or broadcast to it, or a fresh one
  // (in a pointwise body: a drawn one of its shape, cast; null when there is none).
  Value* value_of_type(const TensorType& type);

  // ---- fresh types and literals ----
  DType dtype();                         // any dtype (f64 only when differentiable)
  DType float_dtype();                   // f16, bf16, f32 or f64 (f64 when differentiable)
  std::vector<int64_t> sizes(int rank);  // dims of 0 to 5, at most options.max_elements in all
  TensorType tensor_type();              // rank 0 to 4
  Scalar scalar(DType like);             // a literal of like's category; 0, +-1, halves, inf, nan
  int64_t dim(int rank);                 // a dim of a rank-`rank` tensor, maybe negative
  bool may_fail() { return choices.percent(options.error_percent); }

  // ---- nodes ----
  // Appends the draft with result types from its op's rules; the rules' error otherwise.
  Expected<std::vector<Value*>> append(OpDraft draft);
  // A helper node a recipe needs (an index clamped into range, a predicate): it must be
  // well typed, so a failure is an internal error.
  Value* helper(OpKind op, std::vector<Operand> operands, AttrMap attrs = {});
  // An integer tensor of `sizes` with values in [0, bound) by construction (bound >= 1):
  // remainder(v, bound) of a drawn or fresh integer value; unclamped when may_fail().
  Value* indices(const std::vector<int64_t>& sizes, int64_t bound);
  // A bool[] computed from a drawn value (for cond and while_loop).
  Value* predicate();

  // Nodes and values drawn after a checkpoint are erased by rollback (a recipe that gave up);
  // inputs stay (unused inputs are harmless).
  struct Checkpoint {
    size_t num_nodes, num_values;
  };
  Checkpoint checkpoint() const { return {graph.num_nodes(), pool_.size()}; }
  void rollback(Checkpoint c);

 private:
  // randn or randint (cast to bool) of `type`, at a drawn seed.
  Value* random_draw(const TensorType& type);

  std::vector<Value*> pool_;
};

// The body of a higher-order op, drawn in a fresh graph with inputs of `inputs` types:
// `num_nodes` ops on them, then outputs of exactly the types `outputs` asks for (nullopt: any
// drawn value) in that order. A pointwise body (map, scan) must be able to make each type
// from its inputs by a cast.
std::unique_ptr<Graph> draw_body(GenContext& outer, const std::vector<TensorType>& inputs,
                                 const std::vector<std::optional<TensorType>>& outputs, int num_nodes,
                                 bool pointwise = false);

// Draws `num_nodes` ops into ctx's graph (the generator's main loop).
void draw_ops(GenContext& ctx, int num_nodes);

}  // namespace kiln::fuzz
