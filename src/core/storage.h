// A flat, shared byte buffer that tensors view. Storage is zero-initialized. Out of memory is
// std::bad_alloc; Tensor turns it into a kiln::Error naming the bytes (core/tensor.h).
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
  std::byte* data() { return data_.get(); }
  const std::byte* data() const { return data_.get(); }

  static constexpr size_t kAlignment = 64;
  // The bytes of RAM and swap of this machine. A larger request fails with std::bad_alloc
  // before it reaches the allocator, which under memory overcommit could grant it and leave
  // the process to be killed while it zero-fills the pages.
  static size_t machine_memory();

 private:
  struct Uninitialized {};
  Storage(size_t nbytes, Uninitialized);
  struct Free {
    void operator()(std::byte* p) const;
  };

  size_t nbytes_;
  Device device_;
  std::unique_ptr<std::byte[], Free> data_;
};

}  // namespace kiln
