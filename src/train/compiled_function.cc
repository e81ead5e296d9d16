// compile(): capture, the pre-backend passes, then one runner for the forward graph.
#include "train/compiled_function.h"

#include <chrono>
#include <utility>

#include "patterns/joint_graph_passes.h"
#include "report/compile_report.h"
#include "support/error.h"

namespace kiln {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

std::vector<Tensor> CompiledFunction::operator()(const std::vector<Tensor>& inputs) const {
  const size_t num_user = static_cast<size_t>(graph_->num_inputs()) - lifted_.size();
  if (inputs.size() != num_user)
    throw Error(
        make_error("compiled function @", graph_->name(), ": takes ", num_user, " inputs, given ", inputs.size()));
  std::vector<Tensor> all = inputs;
  all.insert(all.end(), lifted_.begin(), lifted_.end());
  return value_or_throw(runner_->run(all));
}

CompiledFunction compile(CaptureFn fn, std::vector<Tensor> example_inputs, const CompileOptions& options,
                         const CaptureOptions& capture_options) {
  PhaseTimes times;
  auto t0 = std::chrono::steady_clock::now();
  Captured captured = value_or_throw(capture(std::move(fn), std::move(example_inputs), capture_options));
  times.add(Phase::Capture, seconds_since(t0));
  std::shared_ptr<Graph> graph(std::move(captured.graph));

  CompileReport report{.title = "compiled function @" + graph->name()};
  CompileReport* reporting = options.report_dir.empty() ? nullptr : &report;
  if (reporting) report.graphs.push_back(report_graph("captured", *graph));
  if (options.run_joint_passes) {
    t0 = std::chrono::steady_clock::now();
    value_or_throw(joint_graph_passes(*graph, options.joint_passes));
    times.add(Phase::Passes, seconds_since(t0));
    if (reporting) report.graphs.push_back(report_graph("after the joint-graph passes", *graph));
  }
  std::shared_ptr<const GraphRunner> runner =
      value_or_throw(make_graph_runner_reported(*graph, runner_options(options), "forward", times, reporting));
  if (reporting) {
    report.times = times;
    if (Status s = write_compile_report(report, options.report_dir); !s) throw Error(s.error());
  }
  return CompiledFunction(std::move(graph), std::move(captured.lifted), std::move(runner), times);
}

CompiledFunction compile(CaptureFn1 fn, std::vector<Tensor> example_inputs, const CompileOptions& options,
                         const CaptureOptions& capture_options) {
  CaptureFn many = [fn = std::move(fn)](std::span<const Tensor> in) { return std::vector<Tensor>{fn(in)}; };
  return compile(std::move(many), std::move(example_inputs), options, capture_options);
}

}  // namespace kiln
