#include "frontend/nn/graph_module.h"

#include <utility>

#include "frontend/replay.h"
#include "support/diagnostic.h"
#include "support/error.h"

namespace kiln::nn {

GraphModule::GraphModule(std::shared_ptr<const Graph> graph, const std::map<std::string, Tensor>& weights)
    : graph_(std::move(graph)) {
  if (!graph_) throw Error(make_error("nn::GraphModule: no graph"));
  for (int i = 0; i < graph_->num_inputs(); ++i) {
    const Value* in = graph_->input(i);
    if (in->role() == InputRole::Input) {
      user_positions_.push_back(i);
      weights_.emplace_back();
      continue;
    }
    auto w = weights.find(in->name());
    if (w == weights.end())
      throw Error(make_error("nn::GraphModule: graph @", graph_->name(), "'s ", input_role_name(in->role()), " input %",
                             in->name(), " has no tensor among the weights"));
    if (!(w->second.type() == in->type()))
      throw Error(make_error("nn::GraphModule: the weight for %", in->name(), " is ", w->second.type().to_string(),
                             ", but graph @", graph_->name(), " takes ", in->type().to_string()));
    weights_.push_back(in->role() == InputRole::Param ? register_parameter(in->name(), w->second)
                                                      : register_buffer(in->name(), w->second));
  }
}

std::vector<Tensor> GraphModule::forward(std::span<const Tensor> user_inputs) const {
  if (user_inputs.size() != user_positions_.size())
    throw Error(make_error("nn::GraphModule: graph @", graph_->name(), " takes ", user_positions_.size(), " user input",
                           user_positions_.size() == 1 ? "" : "s", ", got ", user_inputs.size()));
  std::vector<Tensor> inputs = weights_;
  for (size_t k = 0; k < user_positions_.size(); ++k) inputs[static_cast<size_t>(user_positions_[k])] = user_inputs[k];
  return value_or_throw(replay_graph(*graph_, inputs));
}

}  // namespace kiln::nn
