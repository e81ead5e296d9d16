// The device a CUDA program's launches are sized for (codegen/cuda's CudaTarget), from a real
// device's properties. The CUDA backend sizes for the device it compiles for when the driver can
// tell its properties, and for CudaTarget's defaults (an H100) otherwise, so `kiln build
// --device=cuda --emit=cuda` on a machine without a GPU prints the text an H100 would run.
#pragma once

#include "codegen/cuda/cuda_program_source.h"
#include "runtime/cuda/cuda_device.h"

namespace kiln {

// `p`'s numbers as a launch target: its architecture, multiprocessors, threads, shared
// memory, registers and L2.
CudaTarget cuda_target_of(const CudaDeviceProperties& p);

// The target of device `ordinal`, or `fallback` when there is no driver or no such device.
CudaTarget cuda_target_or(int ordinal, const CudaTarget& fallback);

}  // namespace kiln
