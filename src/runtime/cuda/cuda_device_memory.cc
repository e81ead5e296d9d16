#include "runtime/cuda/cuda_device_memory.h"

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "runtime/cuda/cuda_device.h"

namespace kiln {
namespace {

CuDevicePtr on_device(const std::byte* address) { return reinterpret_cast<std::uintptr_t>(address); }

std::string copying(size_t nbytes) { return "copying " + format_bytes(nbytes); }

class CudaDeviceMemory final : public DeviceMemory {
 public:
  Expected<int> device_count() const override {
    KILN_ASSIGN_OR_RETURN(const CudaDriver* driver, CudaDriver::get());
    return cuda_device_count(*driver);
  }

  Expected<std::byte*> allocate(int index, size_t nbytes) const override {
    KILN_ASSIGN_OR_RETURN(const CudaDriver* driver, current(index));
    CuDevicePtr address = 0;
    KILN_TRY(
        driver->check(driver->api().mem_alloc(&address, nbytes), "cuMemAlloc", "asking for " + format_bytes(nbytes)));
    return reinterpret_cast<std::byte*>(static_cast<std::uintptr_t>(address));
  }

  void free(int index, std::byte* address) const override {
    if (Expected<const CudaDriver*> driver = current(index)) (void)(*driver)->api().mem_free(on_device(address));
  }

  Status copy_to_device(int index, std::byte* device, const std::byte* host, size_t nbytes) const override {
    KILN_ASSIGN_OR_RETURN(const CudaDriver* driver, current(index));
    return driver->check(driver->api().memcpy_htod(on_device(device), host, nbytes), "cuMemcpyHtoD", copying(nbytes));
  }

  Status copy_to_host(int index, std::byte* host, const std::byte* device, size_t nbytes) const override {
    KILN_ASSIGN_OR_RETURN(const CudaDriver* driver, current(index));
    return driver->check(driver->api().memcpy_dtoh(host, on_device(device), nbytes), "cuMemcpyDtoH", copying(nbytes));
  }

  Status copy_on_device(int index, std::byte* to, const std::byte* from, size_t nbytes) const override {
    KILN_ASSIGN_OR_RETURN(const CudaDriver* driver, current(index));
    return driver->check(driver->api().memcpy_dtod(on_device(to), on_device(from), nbytes), "cuMemcpyDtoD",
                         copying(nbytes));
  }

  Status fill_zero(int index, std::byte* device, size_t nbytes) const override {
    KILN_ASSIGN_OR_RETURN(const CudaDriver* driver, current(index));
    return driver->check(driver->api().memset_d8(on_device(device), 0, nbytes), "cuMemsetD8",
                         "zeroing " + format_bytes(nbytes));
  }

 private:
  // The driver, with device `index`'s primary context current on the calling thread.
  Expected<const CudaDriver*> current(int index) const {
    KILN_ASSIGN_OR_RETURN(const CudaDriver* driver, CudaDriver::get());
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = contexts_.find(index); it != contexts_.end()) {
      KILN_TRY(it->second.make_current());
      return driver;
    }
    KILN_ASSIGN_OR_RETURN(CudaContext context, CudaContext::open(*driver, index));  // and makes it current
    contexts_.emplace(index, std::move(context));
    return driver;
  }

  mutable std::mutex mutex_;
  mutable std::map<int, CudaContext> contexts_;
};

[[maybe_unused]] const bool kRegistered = (register_device_memory(Device::Kind::Cuda, &cuda_device_memory()), true);

}  // namespace

// Never destroyed: storages freed while the process exits still give their bytes back through it.
const DeviceMemory& cuda_device_memory() {
  static const CudaDeviceMemory* memory = new CudaDeviceMemory();
  return *memory;
}

}  // namespace kiln

extern "C" void kiln_link_cuda_device_memory() {}
