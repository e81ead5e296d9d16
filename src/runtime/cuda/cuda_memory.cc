#include "runtime/cuda/cuda_memory.h"

namespace kiln {

Expected<DeviceBuffer> DeviceBuffer::allocate(const CudaContext& context, size_t bytes) {
  const CudaDriver& driver = context.driver();
  CuDevicePtr address = 0;
  KILN_TRY(driver.check(driver.api().mem_alloc(&address, bytes), "cuMemAlloc", "asking for " + format_bytes(bytes)));
  return DeviceBuffer(driver, address, bytes);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : driver_(other.driver_), address_(other.address_), bytes_(other.bytes_) {
  other.address_ = 0;
}

// A free that fails (the context is already gone) leaves nothing to do.
DeviceBuffer::~DeviceBuffer() {
  if (address_ != 0) (void)driver_->api().mem_free(address_);
}

Status DeviceBuffer::check_fits(const char* call, size_t bytes) const {
  if (bytes <= bytes_) return Status::ok();
  return make_error(call, ": ", format_bytes(bytes), " (", bytes, " bytes) do not fit a device buffer of ",
                    format_bytes(bytes_), " (", bytes_, " bytes)");
}

Status DeviceBuffer::copy_from_host(const void* host, size_t bytes) {
  KILN_TRY(check_fits("cuMemcpyHtoD", bytes));
  return driver_->check(driver_->api().memcpy_htod(address_, host, bytes), "cuMemcpyHtoD",
                        "copying " + format_bytes(bytes));
}

Status DeviceBuffer::copy_to_host(void* host, size_t bytes) const {
  KILN_TRY(check_fits("cuMemcpyDtoH", bytes));
  return driver_->check(driver_->api().memcpy_dtoh(host, address_, bytes), "cuMemcpyDtoH",
                        "copying " + format_bytes(bytes));
}

Status DeviceBuffer::fill_bytes(unsigned char value) {
  return driver_->check(driver_->api().memset_d8(address_, value, bytes_), "cuMemsetD8",
                        "filling " + format_bytes(bytes_));
}

}  // namespace kiln
