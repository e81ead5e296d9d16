// The interpreter runner; compiled backends add theirs beside it.
#include "train/graph_runner.h"

#include "interp/interpreter.h"

namespace kiln {

namespace {

class InterpreterRunner final : public GraphRunner {
 public:
  explicit InterpreterRunner(const Graph& graph) : graph_(graph) {}
  Expected<std::vector<Tensor>> run(std::span<const Tensor> inputs) const override { return interpret(graph_, inputs); }

 private:
  const Graph& graph_;
};

}  // namespace

std::unique_ptr<GraphRunner> make_graph_runner(const Graph& graph, Backend backend) {
  switch (backend) {
    case Backend::Interpreter:
      return std::make_unique<InterpreterRunner>(graph);
  }
  return nullptr;
}

}  // namespace kiln
