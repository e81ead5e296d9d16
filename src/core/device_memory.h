// Memory on a device other than the host, for Storage. Core knows no device: a device layer
// (runtime/cuda for CUDA, DESIGN.md section 3) registers one DeviceMemory for its kind of device,
// and Storage allocates, frees, copies and zeroes device bytes through it. Addresses on a device
// are std::byte* that host code never dereferences.
#pragma once

#include <cstddef>

#include "core/device.h"
#include "support/diagnostic.h"

namespace kiln {

class DeviceMemory {
 public:
  virtual ~DeviceMemory() = default;

  // How many devices of this kind the machine has. Error: why none can be used (no driver).
  virtual Expected<int> device_count() const = 0;
  // `nbytes` (at least 1) on device `index`, which exists. Error: the device's own, with the
  // bytes asked for (out of memory).
  virtual Expected<std::byte*> allocate(int index, size_t nbytes) const = 0;
  // Gives back what allocate returned; a failure is ignored (nothing is left to do).
  virtual void free(int index, std::byte* address) const = 0;
  // Copies `nbytes` between host memory and device `index`, or within the device; the copy is
  // done when the call returns.
  virtual Status copy_to_device(int index, std::byte* device, const std::byte* host, size_t nbytes) const = 0;
  virtual Status copy_to_host(int index, std::byte* host, const std::byte* device, size_t nbytes) const = 0;
  virtual Status copy_on_device(int index, std::byte* to, const std::byte* from, size_t nbytes) const = 0;
  virtual Status fill_zero(int index, std::byte* device, size_t nbytes) const = 0;
};

// Makes `memory` (null: none) the memory of every device of `kind`, which is not Cpu, and
// returns the one it replaces (null if none). `memory` must outlive its registration.
const DeviceMemory* register_device_memory(Device::Kind kind, const DeviceMemory* memory);

// The memory of `device` (not the host), once the device is known to exist. Errors: "no CUDA
// device: ..." where none is registered or the device layer says why none can be used;
// "cuda:3 does not exist: this machine has 1 CUDA device".
Expected<const DeviceMemory*> device_memory_for(Device device);

}  // namespace kiln
