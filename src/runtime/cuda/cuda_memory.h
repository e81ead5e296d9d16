// Device memory: one allocation (cuMemAlloc), freed with the object, and copies between it and
// the host. Copies run on the legacy default stream and return when done; errors name the call
// and the sizes involved.
#pragma once

#include <cstddef>

#include "runtime/cuda/cuda_device.h"
#include "runtime/cuda/driver_handle.h"

namespace kiln {

class DeviceBuffer {
 public:
  // `bytes` of device memory in the current context. Error: the driver's, with the size asked
  // for ("cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (2): out of memory, asking for 80.0 GiB").
  static Expected<DeviceBuffer> allocate(const CudaContext& context, size_t bytes);

  CuDevicePtr address() const { return memory_.get(); }
  size_t bytes() const { return bytes_; }

  // Copies `bytes` from the host into the buffer's start, or from its start to the host.
  // Error: more bytes than the buffer holds, or the driver's.
  Status copy_from_host(const void* host, size_t bytes);
  Status copy_to_host(void* host, size_t bytes) const;
  // Sets every byte to `value`.
  Status fill_bytes(unsigned char value);

 private:
  DeviceBuffer(DriverHandle<CuDevicePtr, &CudaDriverApi::mem_free> memory, size_t bytes)
      : memory_(std::move(memory)), bytes_(bytes) {}
  Status check_fits(const char* call, size_t bytes) const;
  const CudaDriver& driver() const { return memory_.driver(); }

  DriverHandle<CuDevicePtr, &CudaDriverApi::mem_free> memory_;
  size_t bytes_;
};

}  // namespace kiln
