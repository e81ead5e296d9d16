// Tensors' memory on CUDA devices (core/device_memory.h) through the driver table: cuMemAlloc,
// synchronous copies and cuMemsetD8 in each device's primary context, which is retained once for
// the process and made current on the calling thread for every call. It is registered for
// Device::Kind::Cuda when the program starts: kiln_runtime makes every program that links it keep
// this file's object (CMakeLists.txt). Nothing touches the driver before the first CUDA tensor.
#pragma once

#include "core/device_memory.h"

namespace kiln {

// The process's CUDA device memory, registered at start-up.
const DeviceMemory& cuda_device_memory();

}  // namespace kiln

// Defined by the file whose static initializer registers cuda_device_memory(); the linker is told
// to need it (--undefined), so that a program using only tensors still gets CUDA memory.
extern "C" void kiln_link_cuda_device_memory();
