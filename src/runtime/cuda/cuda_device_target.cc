#include "runtime/cuda/cuda_device_target.h"

namespace kiln {

CudaTarget cuda_target_of(const CudaDeviceProperties& p) {
  CudaTarget t;
  t.compute_capability = 10 * p.compute_major + p.compute_minor;
  t.multiprocessors = p.sm_count;
  t.max_threads_per_block = p.max_threads_per_block;
  t.shared_bytes_per_block = p.shared_memory_per_block_without_optin;
  t.shared_bytes_per_block_optin = p.shared_memory_per_block;
  t.shared_bytes_per_multiprocessor = p.shared_memory_per_sm;
  t.registers_per_multiprocessor = p.registers_per_sm;
  t.max_threads_per_multiprocessor = p.max_threads_per_sm;
  t.l2_bytes = p.l2_bytes;
  return t;
}

CudaTarget cuda_target_or(int ordinal, const CudaTarget& fallback) {
  Expected<const CudaDriver*> driver = CudaDriver::get();
  if (!driver) return fallback;
  Expected<CudaDeviceProperties> p = query_cuda_device(**driver, ordinal);
  return p ? cuda_target_of(*p) : fallback;
}

}  // namespace kiln
