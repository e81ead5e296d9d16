#include "runtime/cuda/cuda_driver.h"

#include <utility>

namespace kiln {

namespace {

Status resolve_driver_api(const VendorLibrary& lib, CudaDriverApi& a) {
  KILN_TRY(lib.resolve("cuInit", a.init));
  KILN_TRY(lib.resolve("cuDeviceGet", a.device_get));
  KILN_TRY(lib.resolve("cuDeviceGetCount", a.device_get_count));
  KILN_TRY(lib.resolve("cuDeviceGetAttribute", a.device_get_attribute));
  KILN_TRY(lib.resolve("cuDeviceGetName", a.device_get_name));
  KILN_TRY(lib.resolve("cuDeviceTotalMem_v2", a.device_total_mem));
  KILN_TRY(lib.resolve("cuDevicePrimaryCtxRetain", a.primary_ctx_retain));
  KILN_TRY(lib.resolve("cuDevicePrimaryCtxRelease_v2", a.primary_ctx_release));
  KILN_TRY(lib.resolve("cuCtxSetCurrent", a.ctx_set_current));
  KILN_TRY(lib.resolve("cuModuleLoadData", a.module_load_data));
  KILN_TRY(lib.resolve("cuModuleGetFunction", a.module_get_function));
  KILN_TRY(lib.resolve("cuModuleUnload", a.module_unload));
  KILN_TRY(lib.resolve("cuFuncSetAttribute", a.func_set_attribute));
  KILN_TRY(lib.resolve("cuFuncGetAttribute", a.func_get_attribute));
  KILN_TRY(lib.resolve("cuLaunchKernel", a.launch_kernel));
  KILN_TRY(lib.resolve("cuMemAlloc_v2", a.mem_alloc));
  KILN_TRY(lib.resolve("cuMemFree_v2", a.mem_free));
  KILN_TRY(lib.resolve("cuMemcpyHtoD_v2", a.memcpy_htod));
  KILN_TRY(lib.resolve("cuMemcpyDtoH_v2", a.memcpy_dtoh));
  KILN_TRY(lib.resolve("cuMemcpyDtoD_v2", a.memcpy_dtod));
  KILN_TRY(lib.resolve("cuMemcpyHtoDAsync_v2", a.memcpy_htod_async));
  KILN_TRY(lib.resolve("cuMemcpyDtoHAsync_v2", a.memcpy_dtoh_async));
  KILN_TRY(lib.resolve("cuMemcpyDtoDAsync_v2", a.memcpy_dtod_async));
  KILN_TRY(lib.resolve("cuMemsetD8_v2", a.memset_d8));
  KILN_TRY(lib.resolve("cuStreamCreate", a.stream_create));
  KILN_TRY(lib.resolve("cuStreamSynchronize", a.stream_synchronize));
  KILN_TRY(lib.resolve("cuStreamDestroy_v2", a.stream_destroy));
  KILN_TRY(lib.resolve("cuEventCreate", a.event_create));
  KILN_TRY(lib.resolve("cuEventRecord", a.event_record));
  KILN_TRY(lib.resolve("cuEventSynchronize", a.event_synchronize));
  // cuEventElapsedTime_v2 is CUDA 12.8's; older drivers have only the first version, same signature.
  if (!lib.resolve("cuEventElapsedTime_v2", a.event_elapsed_time))
    KILN_TRY(lib.resolve("cuEventElapsedTime", a.event_elapsed_time));
  KILN_TRY(lib.resolve("cuEventDestroy_v2", a.event_destroy));
  KILN_TRY(lib.resolve("cuGetErrorName", a.get_error_name));
  KILN_TRY(lib.resolve("cuGetErrorString", a.get_error_string));
  return Status::ok();
}

// Why cuInit failed, in words a user can act on.
std::string_view cu_init_advice(CuResult result) {
  if (result == kCudaErrorStubLibrary)
    return "it is the CUDA toolkit's stub library, not a driver: install the NVIDIA driver";
  if (result == kCudaErrorNoDevice) return "no CUDA device: this machine has no NVIDIA GPU the driver can use";
  return {};
}

}  // namespace

Expected<CudaDriver> CudaDriver::load(const std::string& library) {
  KILN_ASSIGN_OR_RETURN(VendorLibrary lib,
                        VendorLibrary::open({library}, "the CUDA driver (" + library + ")",
                                            "install the NVIDIA driver; CUDA programs run only on a machine "
                                            "with one and an NVIDIA GPU"));
  CudaDriverApi api{};
  KILN_TRY(resolve_driver_api(lib, api));
  CudaDriver driver(std::move(lib), api);
  CuResult init = api.init(0);
  KILN_TRY(driver.check(init, "cuInit", cu_init_advice(init)));
  return driver;
}

Expected<const CudaDriver*> CudaDriver::get() {
  static const Expected<CudaDriver> driver = load("libcuda.so.1");
  if (!driver) return driver.error();
  return &*driver;
}

// The stub's cuGetErrorName fails too: then the name is kiln's own for the codes it knows.
Status CudaDriver::check(CuResult result, std::string_view call, std::string_view detail) const {
  if (result == kCudaSuccess) return Status::ok();
  const char* name = nullptr;
  const char* description = nullptr;
  std::string_view name_text = api_.get_error_name(result, &name) == kCudaSuccess && name ? name : "";
  if (name_text.empty()) name_text = known_cuda_result_name(result);
  std::string_view description_text =
      api_.get_error_string(result, &description) == kCudaSuccess && description ? description : "";
  return make_error(format_cuda_error(call, result, name_text, description_text, detail));
}

}  // namespace kiln
