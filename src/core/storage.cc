#include "core/storage.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#include <sys/sysinfo.h>
#endif

#include "support/check.h"
#include "support/error.h"

namespace kiln {
namespace {

constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kHugeThreshold = size_t{4} << 20;

// At least one byte, so that data() is a valid pointer for empty tensors.
std::byte* allocate(size_t nbytes) {
  if (nbytes > Storage::machine_memory()) throw std::bad_alloc();
  const size_t n = nbytes == 0 ? 1 : nbytes;
  const size_t align = n >= kHugeThreshold ? kHugePage : Storage::kAlignment;
  void* p = nullptr;
  if (posix_memalign(&p, align, n) != 0) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (n >= kHugeThreshold) (void)madvise(p, n - n % kHugePage, MADV_HUGEPAGE);  // advice only
#endif
  return static_cast<std::byte*>(p);
}

}  // namespace

size_t Storage::machine_memory() {
  static const size_t bytes = [] {
#if defined(__linux__)
    struct sysinfo info {};
    if (sysinfo(&info) == 0) return (static_cast<size_t>(info.totalram) + info.totalswap) * info.mem_unit;
#endif
    return std::numeric_limits<size_t>::max();
  }();
  return bytes;
}

void Storage::Free::operator()(std::byte* p) const {
  if (memory)
    memory->free(index, p);
  else
    std::free(p);
}

std::unique_ptr<std::byte[], Storage::Free> Storage::allocate_on_device(size_t nbytes, Device device) {
  const DeviceMemory* memory = value_or_throw(device_memory_for(device));
  Expected<std::byte*> bytes = memory->allocate(device.index(), std::max<size_t>(nbytes, 1));
  if (!bytes)
    throw Error(
        make_error("cannot allocate ", nbytes, " bytes on ", device.to_string(), ": ", bytes.error().message()));
  std::unique_ptr<std::byte[], Free> data(*bytes, Free{memory, device.index()});
  if (Status zeroed = memory->fill_zero(device.index(), data.get(), nbytes); !zeroed)
    throw Error(make_error("zeroing ", nbytes, " bytes on ", device.to_string(), ": ", zeroed.error().message()));
  return data;
}

Storage::Storage(size_t nbytes, Device device) : nbytes_(nbytes), device_(device) {
  if (!device.is_cpu()) {
    data_ = allocate_on_device(nbytes, device);
    return;
  }
  data_.reset(allocate(nbytes));
  std::memset(data_.get(), 0, nbytes == 0 ? 1 : nbytes);
}

Storage::Storage(size_t nbytes, Uninitialized) : nbytes_(nbytes), device_(Device::cpu()), data_(allocate(nbytes)) {}

std::unique_ptr<Storage> Storage::uninitialized(size_t nbytes) {
  return std::unique_ptr<Storage>(new Storage(nbytes, Uninitialized{}));
}

void Storage::fail_not_on_host() const {
  throw Error(make_error("Storage::data: the storage is on ", device_.to_string(),
                         ", and host code reads only host memory: copy it to the host first"));
}

void Storage::copy_bytes(Storage& to, size_t to_offset, const Storage& from, size_t from_offset, size_t nbytes) {
  KILN_CHECK(to_offset + nbytes <= to.nbytes_ && from_offset + nbytes <= from.nbytes_)
      << "copy_bytes: " << nbytes << " bytes from " << from_offset << " of " << from.nbytes_ << " to " << to_offset
      << " of " << to.nbytes_;
  if (nbytes == 0) return;
  std::byte* dst = to.address() + to_offset;
  const std::byte* src = from.address() + from_offset;
  const Device d = to.device_, s = from.device_;
  if (d.is_cpu() && s.is_cpu()) {
    std::memcpy(dst, src, nbytes);
    return;
  }
  if (!d.is_cpu() && !s.is_cpu() && !(d == s))
    throw Error(make_error("cannot copy from ", s.to_string(), " to ", d.to_string(),
                           " directly: copy through the host (.to(Device::cpu()))"));
  Status copied = s.is_cpu()   ? to.data_.get_deleter().memory->copy_to_device(d.index(), dst, src, nbytes)
                  : d.is_cpu() ? from.data_.get_deleter().memory->copy_to_host(s.index(), dst, src, nbytes)
                               : to.data_.get_deleter().memory->copy_on_device(d.index(), dst, src, nbytes);
  if (!copied)
    throw Error(make_error("copying ", nbytes, " bytes from ", s.to_string(), " to ", d.to_string(), ": ",
                           copied.error().message()));
}

}  // namespace kiln
