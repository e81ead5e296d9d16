#include "core/storage.h"

#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#include <sys/sysinfo.h>
#endif

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

void Storage::Free::operator()(std::byte* p) const { std::free(p); }

Storage::Storage(size_t nbytes, Device device) : nbytes_(nbytes), device_(device), data_(allocate(nbytes)) {
  std::memset(data_.get(), 0, nbytes == 0 ? 1 : nbytes);
}

Storage::Storage(size_t nbytes, Uninitialized) : nbytes_(nbytes), device_(Device::cpu()), data_(allocate(nbytes)) {}

std::unique_ptr<Storage> Storage::uninitialized(size_t nbytes) {
  return std::unique_ptr<Storage>(new Storage(nbytes, Uninitialized{}));
}

}  // namespace kiln
