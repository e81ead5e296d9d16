// The graphs issue 19's CUDA figures are measured on (docs/PERF.md): kiln_bench_cuda_kernels
// times them on a GPU, kiln_bench_cuda_compile compiles them with NVRTC on any machine.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace kiln::bench {

struct Workload {
  std::string key;  // the name in the tables and in torch_cuda_kernels.py's JSON
  std::unique_ptr<Graph> graph;
};

// The 8-op bf16 chain, softmax and layer_norm over [16384,1024] and [8192,50257] bf16, column
// sums, a 3x3 conv2d, and the CPU golden set's graphs at GPU sizes, in that order.
std::vector<Workload> cuda_workloads();

}  // namespace kiln::bench
