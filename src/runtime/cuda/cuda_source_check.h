// Whether an emitted CUDA source (codegen/cuda/cuda_program_source.h) fits the loop program it
// claims to run, checked before anything is compiled or launched: one entry per flat kernel
// (lower/loop_control.h), launches and text exactly for the kernels the GPU runs (not extern
// or control kernels), every argument naming a buffer of the program or an aligned place in
// the scratch workspace. A mismatch is a bug in the emitter; it is an error naming the kernel,
// not a launch that reads the wrong memory.
#pragma once

#include "codegen/cuda/cuda_program_source.h"
#include "lower/loop_ir.h"
#include "support/diagnostic.h"

namespace kiln {

Status check_cuda_program_source(const LoopProgram& p, const CudaProgramSource& source);

}  // namespace kiln
