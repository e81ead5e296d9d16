// What every NVRTC program of a loop program starts with (CudaProgramSource::prelude): the
// fixed-width integer types, kiln's f16/bf16 conversions, the integer and floating helpers the
// C-family printers call (codegen/cpp/cpp_scalar.h, cpp_index.h, cuda_math.h), the reductions'
// combining steps and the counter-based Philox draws of core/random.h. No CUDA header is
// included: the programs compile with NVRTC -minimal.
#pragma once

#include <string>
#include <string_view>

namespace kiln::cuda {

// The whole prelude: the types and every helper.
std::string cuda_prelude();

// The types and the helpers `kernel_text` calls, with the helpers they call, in the whole
// prelude's order. NVRTC parses each program's prelude: the helpers a program never calls
// cost its compile time for nothing (docs/CUDA.md, "Cold compile").
std::string cuda_prelude_for(std::string_view kernel_text);

}  // namespace kiln::cuda
