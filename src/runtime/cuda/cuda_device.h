// A CUDA device: what it is (the numbers the launch cost model designs against) and its primary
// context, made current on the calling thread while a CudaContext lives.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/cuda/cuda_driver.h"

namespace kiln {

struct CudaDeviceProperties {
  int ordinal = 0;
  std::string name;  // "NVIDIA H100 80GB HBM3"
  int compute_major = 0;
  int compute_minor = 0;
  int sm_count = 0;
  int max_threads_per_block = 0;
  int max_threads_per_sm = 0;
  int64_t shared_memory_per_block = 0;  // the opt-in maximum a kernel may ask for
  int64_t shared_memory_per_block_without_optin = 0;
  int64_t shared_memory_per_sm = 0;
  int registers_per_sm = 0;
  int64_t l2_bytes = 0;
  int64_t memory_bytes = 0;

  // The architecture NVRTC compiles a cubin for: "sm_90".
  std::string arch() const;
};

// How many devices the driver sees.
Expected<int> cuda_device_count(const CudaDriver& driver);

// The properties of device `ordinal`. Error: no such device (cuDeviceGet's error).
Expected<CudaDeviceProperties> query_cuda_device(const CudaDriver& driver, int ordinal = 0);

// The device's primary context (shared with every other user of the driver API in the process,
// PyTorch included), retained and made current on construction, released on destruction.
class CudaContext {
 public:
  static Expected<CudaContext> open(const CudaDriver& driver, int ordinal = 0);
  CudaContext(CudaContext&& other) noexcept;
  CudaContext& operator=(CudaContext&&) = delete;
  CudaContext(const CudaContext&) = delete;
  ~CudaContext();

  const CudaDriver& driver() const { return *driver_; }
  CuDevice device() const { return device_; }
  // Makes the context current on the calling thread (another thread than the one that opened it).
  Status make_current() const;

 private:
  CudaContext(const CudaDriver& driver, CuDevice device, CuContext context)
      : driver_(&driver), device_(device), context_(context) {}

  const CudaDriver* driver_;
  CuDevice device_;
  CuContext context_;
  bool retained_ = true;
};

}  // namespace kiln
