// The one device allocation a CUDA program runs in, planned at load: every buffer of the loop
// program (inputs, outputs and the temporaries, which share bytes by liveness as
// lower/memory_plan.h places them), the emitted kernels' scratch workspace and the error slot,
// cuBLASLt's workspace, each on a 256-byte boundary (codegen/cuda/cuda_program_source.h promises it to the kernels).
#pragma once

#include <cstdint>
#include <vector>

#include "lower/loop_ir.h"
#include "lower/memory_plan.h"

namespace kiln {

struct CudaArenaPlan {
  static constexpr int64_t kAlignment = 256;

  // The temporaries' plan, at kAlignment: its offsets count from temp_offset.
  MemoryPlan temporaries;
  std::vector<int64_t> offset;           // per buffer: its byte offset in the arena
  int64_t temp_offset = 0;               // where the temporaries' region starts
  int64_t scratch_offset = 0;            // the scratch workspace (CudaArg::Scratch offsets count from here)
  int64_t library_workspace_offset = 0;  // cuBLASLt's workspace
  int64_t library_workspace_bytes = 0;
  int64_t error_offset = 0;  // the error slot, one int
  int64_t bytes = 0;         // the whole arena
};

// Inputs, then outputs (each its own bytes), then the temporaries' region, the scratch
// workspace of `scratch_bytes`, cuBLASLt's of `library_workspace_bytes` and the error slot.
CudaArenaPlan plan_cuda_arena(const LoopProgram& p, int64_t scratch_bytes, int64_t library_workspace_bytes = 0);

}  // namespace kiln
