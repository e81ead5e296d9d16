// A flat, shared byte buffer that tensors view, in host memory or on a device. Storage is
// zero-initialized. Out of host memory is std::bad_alloc; Tensor turns it into a kiln::Error
// naming the bytes (core/tensor.h). Device bytes come from the DeviceMemory registered for the
// device's kind (core/device_memory.h); a missing device or driver, or a device out of memory, is
// a kiln::Error. Host code reads only host bytes: data() of device storage is a kiln::Error.
//
// The bytes start on a 64-byte boundary (a cache line, an AVX-512 vector), so that the compiled
// CPU kernels' vector loads and stores of a tensor's rows do not straddle cache lines; malloc's
// 16-byte alignment made every 64-byte access of a large buffer touch two lines, and a
// layer_norm forward over [8192, 1024] take 1.4x as long (docs/PERF.md). Buffers of 4 MiB and
// more start on a 2 MiB boundary and are offered to the kernel as transparent huge pages
// (madvise; a no-op where THP is off), which saves TLB misses on streaming passes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/device.h"
#include "core/device_memory.h"

namespace kiln {

class Storage {
 public:
  explicit Storage(size_t nbytes, Device device = Device::cpu());  // zero-filled
  // Bytes left as the allocator gives them, for buffers that are written before they are read
  // (the compiled CPU runtime's arenas and outputs): no pass over memory to zero them.
  static std::unique_ptr<Storage> uninitialized(size_t nbytes);
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }
  // The bytes, for host code: kiln::Error for device storage.
  std::byte* data() { return host_bytes(); }
  const std::byte* data() const { return host_bytes(); }
  // Where the bytes are on their device, for code that hands them to the device (a kernel's
  // arguments); host code never dereferences a device's address.
  std::byte* address() const { return data_.get(); }

  // Copies `nbytes` from `from` at byte `from_offset` into `to` at byte `to_offset`, between
  // the host and a device or within one (the ranges must lie inside both). Error (kiln::Error):
  // the device's, or two different devices (copy through the host).
  static void copy_bytes(Storage& to, size_t to_offset, const Storage& from, size_t from_offset, size_t nbytes);

  static constexpr size_t kAlignment = 64;
  // The bytes of RAM and swap of this machine. A larger request fails with std::bad_alloc
  // before it reaches the allocator, which under memory overcommit could grant it and leave
  // the process to be killed while it zero-fills the pages.
  static size_t machine_memory();

 private:
  struct Uninitialized {};
  Storage(size_t nbytes, Uninitialized);
  std::byte* host_bytes() const {
    if (!device_.is_cpu()) fail_not_on_host();
    return data_.get();
  }
  [[noreturn]] void fail_not_on_host() const;
  // Frees host bytes, or device bytes through `memory`.
  struct Free {
    Free() : Free(nullptr, 0) {}  // host bytes
    Free(const DeviceMemory* memory, int index) : memory(memory), index(index) {}
    void operator()(std::byte* p) const;
    const DeviceMemory* memory;
    int index;
  };
  static std::unique_ptr<std::byte[], Free> allocate_on_device(size_t nbytes, Device device);

  size_t nbytes_;
  Device device_;
  std::unique_ptr<std::byte[], Free> data_;
};

}  // namespace kiln
