// Timing a loaded CudaProgram with its inputs resident on the device (CudaProgram::time_resident):
// the inputs are copied in once, then the program's launches run `warmup_runs + timed_runs`
// times on its stream with no host copy and no host wait between runs, each timed run between
// two CUDA events. What a timed run does is what run() does between copying the inputs in and
// the outputs out; the outputs are read once, after the last run. The benchmarks (bench/) use it.
//
// A program can be timed so only when every run launches the same work on the device alone:
// no control kernel (cond and while wait for the host to read a predicate), no extern kernel
// run on the host (its operands cross to the host and back), no kernel that writes an input
// (each run would start from the last one's result, where run() starts from the caller's).
#pragma once

#include <vector>

#include "core/tensor.h"
#include "lower/loop_ir.h"
#include "support/diagnostic.h"

namespace kiln {

struct ResidentTimingOptions {
  int warmup_runs = 3;  // untimed runs first: caches, clocks, the driver's first-launch work
  int timed_runs = 20;  // each timed alone between two events; at least 1
};

struct ResidentTiming {
  double median_seconds = 0;  // of the timed runs, by CUDA events
  double min_seconds = 0;
  // Host time of the enqueue loop (the timed runs' launches, events excluded) divided by its
  // launches: what the host spends per launch, with no synchronization in the loop.
  double host_seconds_per_launch = 0;
  int launches_per_run = 0;     // kernel launches and library calls
  std::vector<Tensor> outputs;  // the program's outputs after the last run
};

// Ok when `p` can be timed with its inputs resident and `o` asks for at least one timed run;
// else an error naming the kernel or the option that prevents it.
Status check_resident_timing(const LoopProgram& p, const ResidentTimingOptions& o);

}  // namespace kiln
