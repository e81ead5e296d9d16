// The interpreter runner and the compiled CPU runner.
#include "train/graph_runner.h"

#include <map>
#include <mutex>

#include "interp/interpreter.h"
#include "passes/specialize_shapes.h"
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

// A graph with symbolic input dims: compiled once per distinct input shape, specialized to it
// (passes/specialize_shapes.h), as torch.compile recompiles for new shapes.
class SpecializingCpuRunner final : public GraphRunner {
 public:
  SpecializingCpuRunner(const Graph& graph, CpuGraphOptions options) : graph_(graph), options_(std::move(options)) {}
  Expected<std::vector<Tensor>> run(std::span<const Tensor> inputs) const override {
    std::vector<std::vector<int64_t>> key;
    for (const Tensor& t : inputs) key.push_back(t.sizes());
    const CompiledGraph* compiled = nullptr;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = compiled_.find(key);
      if (it == compiled_.end()) {
        KILN_ASSIGN_OR_RETURN(Specialized s, specialize_shapes(graph_, inputs));
        KILN_ASSIGN_OR_RETURN(CompiledGraph c, compile_graph_cpu(*s.graph, options_));
        it = compiled_.emplace(std::move(key), std::make_unique<CompiledGraph>(std::move(c))).first;
      }
      compiled = it->second.get();
    }
    return compiled->run(inputs);
  }

 private:
  const Graph& graph_;
  const CpuGraphOptions options_;
  mutable std::mutex mutex_;
  mutable std::map<std::vector<std::vector<int64_t>>, std::unique_ptr<CompiledGraph>> compiled_;
};

}  // namespace

Status check_runner_options(const RunnerOptions& options) {
  if (options.backend == Backend::Compiled && !options.device.is_cpu())
    return make_error("no compiled backend for device ", options.device.to_string(),
                      " in this build: compile for Device::cpu(), or run the reference interpreter "
                      "(Backend::Interpreter)");
  return Status::ok();
}

Expected<std::unique_ptr<GraphRunner>> make_graph_runner(const Graph& graph, const RunnerOptions& options) {
  KILN_TRY(check_runner_options(options));
  if (options.backend == Backend::Interpreter)
    return std::unique_ptr<GraphRunner>(std::make_unique<InterpreterRunner>(graph));
  if (has_symbolic_inputs(graph))
    return std::unique_ptr<GraphRunner>(std::make_unique<SpecializingCpuRunner>(graph, options.cpu));
  KILN_ASSIGN_OR_RETURN(CompiledGraph compiled, compile_graph_cpu(graph, options.cpu));
  return make_cpu_graph_runner(std::move(compiled));
}

Expected<std::unique_ptr<GraphRunner>> make_graph_runner_reported(const Graph& graph, const RunnerOptions& options,
                                                                  const std::string& label, PhaseTimes& times,
                                                                  CompileReport* report) {
  if (options.backend == Backend::Interpreter || has_symbolic_inputs(graph)) return make_graph_runner(graph, options);
  KILN_TRY(check_runner_options(options));
  KILN_ASSIGN_OR_RETURN(CompiledGraph compiled, compile_graph_cpu(graph, options.cpu));
  times.add(compiled.times());
  if (report) {
    report->graphs.push_back(report_graph(label + " after the CPU backend's passes", compiled.graph()));
    report->programs.push_back(report_program(label, compiled, options.cpu.compile.emit));
  }
  return make_cpu_graph_runner(std::move(compiled));
}

std::unique_ptr<GraphRunner> make_cpu_graph_runner(CompiledGraph compiled) {
  return std::make_unique<CpuRunner>(std::move(compiled));
}

}  // namespace kiln
