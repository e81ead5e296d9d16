// The interpreter runner and the compiled CPU runner.
#include "train/graph_runner.h"

#include "interp/interpreter.h"
#include "runtime/cpu/compile_graph.h"

namespace kiln {

namespace {

class InterpreterRunner final : public GraphRunner {
 public:
  explicit InterpreterRunner(const Graph& graph) : graph_(graph) {}
  Expected<std::vector<Tensor>> run(std::span<const Tensor> inputs) const override { return interpret(graph_, inputs); }

 private:
  const Graph& graph_;
};

class CpuRunner final : public GraphRunner {
 public:
  explicit CpuRunner(CompiledGraph compiled) : compiled_(std::move(compiled)) {}
  Expected<std::vector<Tensor>> run(std::span<const Tensor> inputs) const override { return compiled_.run(inputs); }

 private:
  CompiledGraph compiled_;
};

}  // namespace

Expected<std::unique_ptr<GraphRunner>> make_graph_runner(const Graph& graph, Backend backend) {
  switch (backend) {
    case Backend::Interpreter:
      return std::unique_ptr<GraphRunner>(std::make_unique<InterpreterRunner>(graph));
    case Backend::Cpu: {
      KILN_ASSIGN_OR_RETURN(CompiledGraph compiled, compile_graph_cpu(graph));
      return make_cpu_graph_runner(std::move(compiled));
    }
  }
  return make_error("unknown backend");
}

std::unique_ptr<GraphRunner> make_cpu_graph_runner(CompiledGraph compiled) {
  return std::make_unique<CpuRunner>(std::move(compiled));
}

}  // namespace kiln
