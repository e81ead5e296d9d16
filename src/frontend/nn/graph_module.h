// nn::GraphModule: a module whose forward is a graph, as torch.fx.GraphModule is. An imported
// model (kiln::import_pt2) becomes a module this way: the graph's `param` inputs are its
// parameters and its `buffer` inputs its buffers, registered under the inputs' names
// (`l1.weight`), and forward runs the graph's nodes through the frontend (replay_graph). So
// inside capture(), compile() or compile_train_step() the graph's ops are recorded like any
// module's and the weights are lifted as `param` and `buffer` inputs; outside, they run
// eagerly. An optimizer updating named_parameters() in place updates the graph's weights.
//
//   kiln::ImportedProgram m = kiln::value_or_throw(kiln::import_pt2("gpt.pt2"));
//   kiln::nn::GraphModule model(std::move(m.graph), m.weights);
//   std::vector<kiln::Tensor> logits = model.forward({tokens});
#pragma once

#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "frontend/nn/module.h"
#include "ir/graph.h"

namespace kiln::nn {

class GraphModule : public Module {
 public:
  // `weights` holds a tensor for every param and buffer input of `graph`, by input name (more
  // entries are ignored). Throws kiln::Error naming an input without one, or one whose dtype or
  // sizes differ from the input's type.
  GraphModule(std::shared_ptr<const Graph> graph, const std::map<std::string, Tensor>& weights);

  // The graph's outputs for its user inputs (role `input`), in graph order; the weights fill
  // the other inputs. Throws kiln::Error for the wrong number of inputs or where an op fails.
  std::vector<Tensor> forward(std::span<const Tensor> user_inputs) const;
  std::vector<Tensor> operator()(std::span<const Tensor> user_inputs) const { return forward(user_inputs); }

  const Graph& graph() const { return *graph_; }
  int num_user_inputs() const { return static_cast<int>(user_positions_.size()); }

 private:
  std::shared_ptr<const Graph> graph_;
  // Per graph input: the registered weight (a handle sharing the module's storage), or
  // undefined for a user input.
  std::vector<Tensor> weights_;
  std::vector<int> user_positions_;
};

}  // namespace kiln::nn
