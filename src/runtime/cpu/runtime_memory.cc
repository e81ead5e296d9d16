#include "runtime/cpu/runtime_memory.h"

#include <new>

#include "support/check.h"

// In the sanitized build, AddressSanitizer answers a request it cannot meet by aborting the
// process ("requested allocation size exceeds maximum supported size", or "allocator is out of
// memory"), unless allocator_may_return_null is set; then malloc returns null as glibc's does,
// and allocate_storage's error is what the user sees, as in the release build. ASAN_OPTIONS
// given in the environment still apply on top of these defaults.
#if defined(__SANITIZE_ADDRESS__)
#define KILN_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KILN_ADDRESS_SANITIZER 1
#endif
#endif
#ifdef KILN_ADDRESS_SANITIZER
extern "C" const char* __asan_default_options() { return "allocator_may_return_null=1"; }
#endif

namespace kiln {

Expected<std::unique_ptr<Storage>> allocate_storage(int64_t bytes, const AllocationPurpose& purpose) {
  KILN_CHECK(bytes >= 0) << "a negative byte count (" << bytes << ") to allocate";
  try {
    return Storage::uninitialized(static_cast<size_t>(bytes));
  } catch (const std::bad_alloc&) {
    return make_error("out of memory: cannot allocate ", bytes, " bytes for ", purpose());
  }
}

Expected<Tensor> allocate_tensor(const std::vector<int64_t>& sizes, DType dtype, const AllocationPurpose& purpose) {
  const std::vector<int64_t> strides = contiguous_strides(sizes);
  Expected<int64_t> bytes = layout_bytes(sizes, strides, dtype);
  if (!bytes) return make_error("cannot allocate ", purpose(), ": ", bytes.error().message());
  KILN_ASSIGN_OR_RETURN(std::unique_ptr<Storage> storage, allocate_storage(*bytes, purpose));
  return Tensor::over_storage(std::move(storage), dtype, sizes, strides, 0);
}

}  // namespace kiln
