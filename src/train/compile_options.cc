#include "train/compile_options.h"

#include <utility>

#include "report/compile_report.h"

namespace kiln {

RunnerOptions runner_options(const CompileOptions& options) {
  return RunnerOptions{.execution = options.execution, .device = options.device, .backends = options.backends};
}

GradOptions grad_options(const CompileOptions& options, JointOptions joint) {
  return GradOptions{.joint = std::move(joint),
                     .run_joint_passes = options.run_joint_passes,
                     .joint_passes = options.joint_passes,
                     .partition = {.kind = options.partition, .memory_budget = options.memory_budget},
                     .runner = runner_options(options),
                     .seed = options.seed};
}

Expected<GradFunction> compile_gradients(const Graph& captured, std::vector<Tensor> lifted, JointOptions joint,
                                         const CompileOptions& options, const std::string& title,
                                         const PhaseTimes& before) {
  GradOptions grad = grad_options(options, std::move(joint));
  if (options.report_dir.empty()) return GradFunction::create(captured, std::move(lifted), grad);
  CompileReport report{.title = title};
  report.graphs.push_back(report_graph("captured", captured));
  grad.report = &report;
  KILN_ASSIGN_OR_RETURN(GradFunction fn, GradFunction::create(captured, std::move(lifted), grad));
  report.times = before;
  report.times.add(fn.phase_times());
  KILN_TRY(write_compile_report(report, options.report_dir));
  return fn;
}

}  // namespace kiln
