#include "fuzz/merge_graphs.h"

#include "ir/graph_builder.h"

namespace kiln::fuzz {

std::unique_ptr<Graph> merge_graphs(std::span<const Graph* const> parts) {
  auto merged = std::make_unique<Graph>("batch");
  std::vector<std::vector<Value*>> inputs(parts.size());
  for (size_t k = 0; k < parts.size(); ++k)
    for (const Value* in : parts[k]->inputs())
      inputs[k].push_back(merged->add_input("p" + std::to_string(k) + "_" + in->name(), in->type(), in->role()));
  GraphBuilder b(*merged);
  std::vector<Value*> outputs;
  for (size_t k = 0; k < parts.size(); ++k) {
    std::vector<Value*> outs = b.inline_graph(*parts[k], inputs[k]);
    outputs.insert(outputs.end(), outs.begin(), outs.end());
  }
  merged->set_outputs(outputs);
  return merged;
}

}  // namespace kiln::fuzz
