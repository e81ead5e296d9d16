// A flat, shared byte buffer that tensors view. Storage is zero-initialized.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/device.h"

namespace kiln {

class Storage {
 public:
  explicit Storage(size_t nbytes, Device device = Device::cpu());
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }
  std::byte* data() { return data_.get(); }
  const std::byte* data() const { return data_.get(); }

 private:
  size_t nbytes_;
  Device device_;
  std::unique_ptr<std::byte[]> data_;
};

}  // namespace kiln
