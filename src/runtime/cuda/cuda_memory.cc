#include "runtime/cuda/cuda_memory.h"

namespace kiln {

Expected<DeviceBuffer> DeviceBuffer::allocate(const CudaContext& context, size_t bytes) {
  const CudaDriver& driver = context.driver();
  CuDevicePtr address = 0;
  KILN_TRY(driver.check(driver.api().mem_alloc(&address, bytes), "cuMemAlloc", "asking for " + format_bytes(bytes)));
  return DeviceBuffer({driver, address}, bytes);
}

Status DeviceBuffer::check_fits(const char* call, size_t bytes) const {
  if (bytes <= bytes_) return Status::ok();
  return make_error(call, ": ", format_bytes(bytes), " (", bytes, " bytes) do not fit a device buffer of ",
                    format_bytes(bytes_), " (", bytes_, " bytes)");
}

Status DeviceBuffer::copy_from_host(const void* host, size_t bytes) {
  KILN_TRY(check_fits("cuMemcpyHtoD", bytes));
  return driver().check(driver().api().memcpy_htod(address(), host, bytes), "cuMemcpyHtoD",
                        "copying " + format_bytes(bytes));
}

Status DeviceBuffer::copy_to_host(void* host, size_t bytes) const {
  KILN_TRY(check_fits("cuMemcpyDtoH", bytes));
  return driver().check(driver().api().memcpy_dtoh(host, address(), bytes), "cuMemcpyDtoH",
                        "copying " + format_bytes(bytes));
}

Status DeviceBuffer::fill_bytes(unsigned char value) {
  return driver().check(driver().api().memset_d8(address(), value, bytes_), "cuMemsetD8",
                        "filling " + format_bytes(bytes_));
}

}  // namespace kiln
