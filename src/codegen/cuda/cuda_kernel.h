// One loop kernel (pointwise, scan, reduction or fused) as CUDA C++ text and its launches: its
// __global__ functions, their parameters the buffers the kernel touches (in buffer order), then
// the error slot when it checks indirect indices, then the scratch workspace when it writes
// partials. docs/CUDA_CODEGEN.md has the shapes:
//  * pointwise: a thread per point (grid-stride), the loop variables from the flat point;
//  * scan: a thread per point of the outer loops, the innermost loop in order;
//  * reduction: by cuda_reduce_strategy.h's plan: a block per output point, or partials of
//    chunks (split rows, column partials) then a pass folding them in order;
//  * fused: a block per row (point of the shared loops), its parts in order with a barrier
//    after each, each part as above within the row.
// Kernels whose points store to repeated elements keep the evaluator's order: their points (or
// rows) run one after another (a grid of one block; one thread for pointwise work).
#pragma once

#include <string>
#include <vector>

#include "codegen/cuda/cuda_program_source.h"
#include "lower/loop_ir.h"

namespace kiln::cuda {

struct CudaKernel {
  std::string text;
  std::vector<CudaLaunch> launches;  // in order
  int64_t scratch_bytes = 0;         // the partials' workspace, at offset 0 (CudaArg::Scratch)
};

// Kernel `k` of `p` (not extern, not control) under `symbol` (its launches' symbols start
// with it). Requires a well-formed program.
CudaKernel emit_cuda_kernel(const LoopProgram& p, const LoopKernel& k, const std::string& symbol,
                            const CudaTarget& target);

}  // namespace kiln::cuda
