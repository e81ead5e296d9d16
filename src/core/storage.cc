#include "core/storage.h"

namespace kiln {

// Always allocate at least one byte so data() is a valid pointer for empty tensors.
Storage::Storage(size_t nbytes, Device device)
    : nbytes_(nbytes), device_(device), data_(new std::byte[nbytes == 0 ? 1 : nbytes]()) {}

Storage::Storage(size_t nbytes, Uninitialized)
    : nbytes_(nbytes), device_(Device::cpu()), data_(new std::byte[nbytes == 0 ? 1 : nbytes]) {}

std::unique_ptr<Storage> Storage::uninitialized(size_t nbytes) {
  return std::unique_ptr<Storage>(new Storage(nbytes, Uninitialized{}));
}

}  // namespace kiln
