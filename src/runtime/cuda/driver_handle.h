// An object the driver made (a stream, an event, a module, device memory), owned: destroyed with
// the owner through the driver's entry point for it, never copied, moved by taking it over.
#pragma once

#include <utility>

#include "runtime/cuda/cuda_driver.h"

namespace kiln {

// `kDestroy` is the CudaDriverApi entry point that frees a `Handle` (&CudaDriverApi::stream_destroy).
// A null handle (0) owns nothing.
template <typename Handle, CuResult (*CudaDriverApi::*kDestroy)(Handle)>
class DriverHandle {
 public:
  DriverHandle(const CudaDriver& driver, Handle handle) : driver_(&driver), handle_(handle) {}
  DriverHandle(DriverHandle&& other) noexcept : driver_(other.driver_), handle_(other.handle_) { other.handle_ = {}; }
  DriverHandle& operator=(DriverHandle&&) = delete;
  DriverHandle(const DriverHandle&) = delete;
  // A destroy that fails (the context is already gone) leaves nothing to do.
  ~DriverHandle() {
    if (handle_) (void)(driver_->api().*kDestroy)(handle_);
  }

  const CudaDriver& driver() const { return *driver_; }
  Handle get() const { return handle_; }

 private:
  const CudaDriver* driver_;
  Handle handle_;
};

}  // namespace kiln
