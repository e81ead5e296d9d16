#include "runtime/cuda/cuda_device.h"

#include <array>

namespace kiln {

namespace {

// CUdevice_attribute values (cuda.h).
constexpr int kAttrMaxThreadsPerBlock = 1;
constexpr int kAttrMaxSharedMemoryPerBlock = 8;
constexpr int kAttrMultiprocessorCount = 16;
constexpr int kAttrL2CacheSize = 38;
constexpr int kAttrMaxThreadsPerMultiprocessor = 39;
constexpr int kAttrComputeCapabilityMajor = 75;
constexpr int kAttrComputeCapabilityMinor = 76;
constexpr int kAttrMaxSharedMemoryPerMultiprocessor = 81;
constexpr int kAttrMaxRegistersPerMultiprocessor = 82;
constexpr int kAttrMaxSharedMemoryPerBlockOptin = 97;

Expected<int> attribute(const CudaDriver& driver, CuDevice device, int which) {
  int value = 0;
  KILN_TRY(driver.check(driver.api().device_get_attribute(&value, which, device), "cuDeviceGetAttribute",
                        "attribute " + std::to_string(which)));
  return value;
}

Expected<CuDevice> device_of(const CudaDriver& driver, int ordinal) {
  CuDevice device = 0;
  KILN_TRY(driver.check(driver.api().device_get(&device, ordinal), "cuDeviceGet", "device " + std::to_string(ordinal)));
  return device;
}

}  // namespace

std::string CudaDeviceProperties::arch() const {
  return "sm_" + std::to_string(compute_major) + std::to_string(compute_minor);
}

Expected<int> cuda_device_count(const CudaDriver& driver) {
  int count = 0;
  KILN_TRY(driver.check(driver.api().device_get_count(&count), "cuDeviceGetCount"));
  return count;
}

Expected<CudaDeviceProperties> query_cuda_device(const CudaDriver& driver, int ordinal) {
  KILN_ASSIGN_OR_RETURN(CuDevice device, device_of(driver, ordinal));
  CudaDeviceProperties p;
  p.ordinal = ordinal;
  std::array<char, 256> name{};
  KILN_TRY(driver.check(driver.api().device_get_name(name.data(), static_cast<int>(name.size()), device),
                        "cuDeviceGetName"));
  p.name = name.data();
  KILN_ASSIGN_OR_RETURN(p.compute_major, attribute(driver, device, kAttrComputeCapabilityMajor));
  KILN_ASSIGN_OR_RETURN(p.compute_minor, attribute(driver, device, kAttrComputeCapabilityMinor));
  KILN_ASSIGN_OR_RETURN(p.sm_count, attribute(driver, device, kAttrMultiprocessorCount));
  KILN_ASSIGN_OR_RETURN(p.max_threads_per_block, attribute(driver, device, kAttrMaxThreadsPerBlock));
  KILN_ASSIGN_OR_RETURN(p.max_threads_per_sm, attribute(driver, device, kAttrMaxThreadsPerMultiprocessor));
  KILN_ASSIGN_OR_RETURN(int optin, attribute(driver, device, kAttrMaxSharedMemoryPerBlockOptin));
  KILN_ASSIGN_OR_RETURN(int per_block, attribute(driver, device, kAttrMaxSharedMemoryPerBlock));
  p.shared_memory_per_block = optin > 0 ? optin : per_block;
  p.shared_memory_per_block_without_optin = per_block;
  KILN_ASSIGN_OR_RETURN(p.shared_memory_per_sm, attribute(driver, device, kAttrMaxSharedMemoryPerMultiprocessor));
  KILN_ASSIGN_OR_RETURN(p.registers_per_sm, attribute(driver, device, kAttrMaxRegistersPerMultiprocessor));
  KILN_ASSIGN_OR_RETURN(p.l2_bytes, attribute(driver, device, kAttrL2CacheSize));
  size_t memory = 0;
  KILN_TRY(driver.check(driver.api().device_total_mem(&memory, device), "cuDeviceTotalMem"));
  p.memory_bytes = static_cast<int64_t>(memory);
  return p;
}

Expected<CudaContext> CudaContext::open(const CudaDriver& driver, int ordinal) {
  KILN_ASSIGN_OR_RETURN(CuDevice device, device_of(driver, ordinal));
  CuContext context = nullptr;
  KILN_TRY(driver.check(driver.api().primary_ctx_retain(&context, device), "cuDevicePrimaryCtxRetain"));
  CudaContext retained(driver, device, context);
  KILN_TRY(retained.make_current());
  return retained;
}

Status CudaContext::make_current() const {
  return driver_->check(driver_->api().ctx_set_current(context_), "cuCtxSetCurrent");
}

CudaContext::CudaContext(CudaContext&& other) noexcept
    : driver_(other.driver_), device_(other.device_), context_(other.context_), retained_(other.retained_) {
  other.retained_ = false;
}

// A release that fails leaves nothing to do: the context goes with the process.
CudaContext::~CudaContext() {
  if (retained_) (void)driver_->api().primary_ctx_release(device_);
}

}  // namespace kiln
