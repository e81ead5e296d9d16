// A loaded cubin (cuModuleLoadData) and launching its kernels (cuLaunchKernel). Loading a cubin
// costs about 0.1 ms; PTX would cost the driver's JIT (DESIGN.md section 6), so only cubins are
// loaded.
#pragma once

#include <string>
#include <string_view>

#include "runtime/cuda/cuda_device.h"
#include "runtime/cuda/driver_handle.h"

namespace kiln {

// What the driver says of a loaded kernel's resources (cuFuncGetAttribute), per thread but the
// shared memory.
struct KernelAttributes {
  int registers = 0;
  int64_t local_bytes = 0;          // local memory: stack frame and spills
  int64_t static_shared_bytes = 0;  // __shared__ arrays of fixed size, per block
};

// Grid and block sizes, and the dynamic shared memory a launch asks for.
struct LaunchDims {
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  unsigned shared_bytes = 0;
};

class CudaModule {
 public:
  // Error: the driver refuses the image (not a cubin, or not for this device's architecture).
  static Expected<CudaModule> load(const CudaContext& context, std::string_view cubin);

  // The kernel named `name` (its symbol: extern "C" names are as written). Error: no such kernel.
  Expected<CuFunction> kernel(const std::string& name) const;

  // Lets `kernel` ask for up to `bytes` of dynamic shared memory: above 48 KiB a launch needs
  // this opt-in (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES). Error: more than the device has.
  Status allow_shared_bytes(CuFunction kernel, const std::string& name, unsigned bytes) const;

  // Its registers, local and static shared memory. Error: the driver's, naming the kernel.
  Expected<KernelAttributes> attributes(CuFunction kernel, const std::string& name) const;

  // Queues `kernel` on `stream` (nullptr: the legacy default stream); `params` points at each
  // parameter's value, in order. Error: the driver's, naming the kernel and the sizes.
  Status launch(CuFunction kernel, const LaunchDims& dims, CuStream stream, void** params) const;

 private:
  explicit CudaModule(DriverHandle<CuModule, &CudaDriverApi::module_unload> module) : module_(std::move(module)) {}

  DriverHandle<CuModule, &CudaDriverApi::module_unload> module_;
};

}  // namespace kiln
