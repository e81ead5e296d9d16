// The CUDA backend's code generator: a loop program's pointwise, scan, reduction and fused
// kernels as CUDA C++ (text only; runtime/cuda compiles it with NVRTC), with their launches
// (cuda_program_source.h has the contract and the ABI). Extern kernels (matmuls: library calls)
// and control kernels (driven from the host) get no text and no launch. docs/CUDA_CODEGEN.md
// has the kernel shapes, compute types and the launch cost model.
// The text is deterministic: the same program and options give the same bytes.
#pragma once

#include <string>

#include "codegen/cuda/cuda_program_source.h"
#include "lower/loop_ir.h"

namespace kiln {

struct CudaEmitOptions {
  CudaTarget target = {};  // the device the launch sizes are chosen for

  // Stable text of every field, for cache keys and the header: "target=sm_90 sms=132 ...".
  std::string to_string() const;
};

// Every kernel of `p`. Requires a well-formed program (parse_loops or lower_graph made it).
CudaProgramSource emit_cuda_program(const LoopProgram& p, const CudaEmitOptions& o = {});

}  // namespace kiln
