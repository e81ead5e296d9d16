// The interpreter runner and the compiled runners of the device's backend.
#include "train/graph_runner.h"

#include <map>
#include <mutex>

#include "backend/compile_graph.h"
#include "interp/interpreter.h"
#include "passes/specialize_shapes.h"

namespace kiln {

namespace {

class InterpreterRunner final : public GraphRunner {
 public:
  explicit InterpreterRunner(const Graph& graph) : graph_(graph) {}
  Expected<std::vector<Tensor>> run(std::span<const Tensor> inputs) const override { return interpret(graph_, inputs); }

 private:
  const Graph& graph_;
};

class CompiledRunner final : public GraphRunner {
 public:
  explicit CompiledRunner(CompiledGraph compiled) : compiled_(std::move(compiled)) {}
  Expected<std::vector<Tensor>> run(std::span<const Tensor> inputs) const override { return compiled_.run(inputs); }

 private:
  CompiledGraph compiled_;
};

// A graph with symbolic input dims: compiled once per distinct input shape, specialized to it
// (passes/specialize_shapes.h), as torch.compile recompiles for new shapes.
class SpecializingRunner final : public GraphRunner {
 public:
  SpecializingRunner(const Graph& graph, std::unique_ptr<Backend> backend)
      : graph_(graph), backend_(std::move(backend)) {}
  Expected<std::vector<Tensor>> run(std::span<const Tensor> inputs) const override {
    std::vector<std::vector<int64_t>> key;
    for (const Tensor& t : inputs) key.push_back(t.sizes());
    const CompiledGraph* compiled = nullptr;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = compiled_.find(key);
      if (it == compiled_.end()) {
        KILN_ASSIGN_OR_RETURN(Specialized s, specialize_shapes(graph_, inputs));
        KILN_ASSIGN_OR_RETURN(CompiledGraph c, compile_graph(*s.graph, *backend_));
        it = compiled_.emplace(std::move(key), std::make_unique<CompiledGraph>(std::move(c))).first;
      }
      compiled = it->second.get();
    }
    return compiled->run(inputs);
  }

 private:
  const Graph& graph_;
  const std::unique_ptr<Backend> backend_;
  mutable std::mutex mutex_;
  mutable std::map<std::vector<std::vector<int64_t>>, std::unique_ptr<CompiledGraph>> compiled_;
};

}  // namespace

Expected<std::unique_ptr<GraphRunner>> make_graph_runner(const Graph& graph, const RunnerOptions& options) {
  if (options.execution == Execution::Interpreter)
    return std::unique_ptr<GraphRunner>(std::make_unique<InterpreterRunner>(graph));
  KILN_ASSIGN_OR_RETURN(std::unique_ptr<Backend> backend, backend_for(options.device, options.backends));
  if (has_symbolic_inputs(graph))
    return std::unique_ptr<GraphRunner>(std::make_unique<SpecializingRunner>(graph, std::move(backend)));
  KILN_ASSIGN_OR_RETURN(CompiledGraph compiled, compile_graph(graph, *backend));
  return std::unique_ptr<GraphRunner>(std::make_unique<CompiledRunner>(std::move(compiled)));
}

Expected<std::unique_ptr<GraphRunner>> make_graph_runner_reported(const Graph& graph, const RunnerOptions& options,
                                                                  const std::string& label, PhaseTimes& times,
                                                                  CompileReport* report) {
  if (options.execution == Execution::Interpreter || has_symbolic_inputs(graph))
    return make_graph_runner(graph, options);
  KILN_ASSIGN_OR_RETURN(std::unique_ptr<Backend> backend, backend_for(options.device, options.backends));
  KILN_ASSIGN_OR_RETURN(CompiledGraph compiled, compile_graph(graph, *backend));
  times.add(compiled.times());
  if (report) {
    report->graphs.push_back(
        report_graph(label + " after the " + backend->name() + " backend's passes", compiled.graph()));
    report->programs.push_back(report_program(label, compiled, *backend));
  }
  return std::unique_ptr<GraphRunner>(std::make_unique<CompiledRunner>(std::move(compiled)));
}

}  // namespace kiln
