// A flat, shared byte buffer that tensors view. Storage is zero-initialized.
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

 private:
  struct Uninitialized {};
  Storage(size_t nbytes, Uninitialized);

  size_t nbytes_;
  Device device_;
  std::unique_ptr<std::byte[]> data_;
};

}  // namespace kiln
