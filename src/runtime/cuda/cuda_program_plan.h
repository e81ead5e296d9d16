// What CudaProgram::load decides about a loop program before it needs a device: the program and
// its source checked, each extern kernel's cuBLASLt call or its place on the host, and the
// device arena. The compile report describes a program from it where no GPU is present
// (CudaBackend::describe).
#pragma once

#include <optional>
#include <vector>

#include "codegen/cuda/cuda_program_source.h"
#include "runtime/cuda/cublaslt_matmul.h"
#include "runtime/cuda/cuda_arena.h"

namespace kiln {

struct CudaProgramPlan {
  std::vector<std::optional<LtMatmulPlan>> matmuls;  // per flat kernel: an extern kernel cuBLASLt runs
  // The ops of the extern kernels that run on the host, in flat kernel order, each once.
  std::vector<OpKind> host_copied_ops;
  CudaArenaPlan arena;  // with cuBLASLt's workspace of `library_workspace_bytes` when a matmul runs there
};

// Errors: the program's index bounds, divisors and byte counts, and the source against the
// program (as the CPU runtime checks them), with `where` as their context.
Expected<CudaProgramPlan> plan_cuda_program(const LoopProgram& p, const CudaProgramSource& source,
                                            int64_t library_workspace_bytes, const std::string& where);

}  // namespace kiln
