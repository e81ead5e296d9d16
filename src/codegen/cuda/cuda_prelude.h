// What every NVRTC program of a loop program starts with (CudaProgramSource::prelude): the
// fixed-width integer types, kiln's f16/bf16 conversions, the integer and floating helpers the
// C-family printers call (codegen/cpp/cpp_scalar.h, cpp_index.h, cuda_math.h), the reductions'
// combining steps and the counter-based Philox draws of core/random.h. No CUDA header is
// included: the programs compile with NVRTC -minimal.
#pragma once

#include <string>

namespace kiln::cuda {

std::string cuda_prelude();

}  // namespace kiln::cuda
