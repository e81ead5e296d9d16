// CompileOptions: how kiln compiles and runs a program, the one value that compile(),
// value_and_grad() and compile_train_step() take (DESIGN.md: options are values, never
// global). The default compiles for the CPU; the reference interpreter is one option away:
//
//   CompileOptions{.device = Device::cpu(), .memory_budget = 0.5}   // compiled C++ kernels
//   CompileOptions{.execution = Execution::Interpreter}              // the oracle, op by op
//
// Each API maps it to its lower-level options here (runner_options, grad_options); the
// graph-level API (GradFunction::create with GradOptions) keeps every knob of the partitioner.
#pragma once

#include <cstdint>
#include <string>

#include "autograd/joint_graph.h"
#include "autograd/partition.h"
#include "core/device.h"
#include "patterns/joint_graph_passes.h"
#include "report/phase_times.h"
#include "train/grad_function.h"
#include "train/graph_runner.h"

namespace kiln {

struct CompileOptions {
  // Where the compiled program runs, which picks its backend (runtime/backend_registry.h):
  // Device::cpu() generates and compiles C++ kernels for this machine. A device with no
  // backend in this build is an error that names it.
  Device device = Device::cpu();
  // Execution::Compiled: the device's generated kernels. Execution::Interpreter: the reference
  // interpreter, op by op (the numerical oracle; slow, but runs every op and body).
  Execution execution = Execution::Compiled;
  // Training: the fraction in [0, 1] of the activation memory the min-cut partitioner may save
  // between forward and backward (PartitionOptions::memory_budget); the rest is recomputed.
  double memory_budget = 1.0;
  // Training: which partitioner splits the joint graph (autograd/partition.h).
  PartitionKind partition = PartitionKind::MinCut;
  // The pattern and cleanup passes run before partitioning (before compiling, for inference):
  // no-op removal, constant folding, attention fusion, matmul padding, unique indices.
  bool run_joint_passes = true;
  JointGraphPassOptions joint_passes = {};
  // Each backend's own knobs (runtime/backend_registry.h): for the CPU, which ops it keeps
  // whole, its compiler, kernel cache directory and matmul library. Part of every kernel's
  // cache key.
  BackendOptions backends = {};
  // Training: the seed of random draws (dropout); step n draws with (seed, n).
  uint64_t seed = 0;
  // When not empty, the compile report (docs/REPORT.md) is written to this directory.
  std::string report_dir = {};
};

// The runner of a compiled program: execution, device and the backends' options.
RunnerOptions runner_options(const CompileOptions& options);

// The gradient compilation of `options` differentiating `joint` (GradOptions::report is left
// unset: the caller owns the report).
GradOptions grad_options(const CompileOptions& options, JointOptions joint);

// GradFunction::create on `captured` under `options`; when options.report_dir is set, it also
// writes the compile report there, titled `title`, with the captured graph first and `before`
// (the capture's time) in its timing table. Fails where create fails or the report cannot be
// written (the error names the directory).
Expected<GradFunction> compile_gradients(const Graph& captured, std::vector<Tensor> lifted, JointOptions joint,
                                         const CompileOptions& options, const std::string& title,
                                         const PhaseTimes& before);

}  // namespace kiln
