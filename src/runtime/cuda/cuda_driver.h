// The CUDA driver API, loaded at run time: dlopen("libcuda.so.1") and each entry point kiln uses
// resolved by name once into a table, declared by its C signature (no CUDA header). The toolkit's
// stub libcuda is never linked: a binary linked to it does not start on a machine without the
// driver (DEPS.md). A missing driver, a failing cuInit and every failed call are errors that name
// the call and CUDA's name for the result (cuda_error.h); nothing here aborts.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "runtime/cuda/cuda_error.h"
#include "runtime/cuda/vendor_library.h"
#include "support/diagnostic.h"

namespace kiln {

// The driver's handle types, by their C ABI (cuda.h on a 64-bit host).
using CuDevice = int;
using CuDevicePtr = unsigned long long;
using CuContext = struct CuContextOpaque*;
using CuModule = struct CuModuleOpaque*;
using CuFunction = struct CuFunctionOpaque*;
using CuStream = struct CuStreamOpaque*;
using CuEvent = struct CuEventOpaque*;

// The entry points, each the symbol named in its comment (the _v2 ones are what cuda.h's macros
// select).
struct CudaDriverApi {
  CuResult (*init)(unsigned flags);                                              // cuInit
  CuResult (*device_get)(CuDevice* device, int ordinal);                         // cuDeviceGet
  CuResult (*device_get_count)(int* count);                                      // cuDeviceGetCount
  CuResult (*device_get_attribute)(int* value, int attribute, CuDevice d);       // cuDeviceGetAttribute
  CuResult (*device_get_name)(char* name, int length, CuDevice d);               // cuDeviceGetName
  CuResult (*device_total_mem)(size_t* bytes, CuDevice d);                       // cuDeviceTotalMem_v2
  CuResult (*primary_ctx_retain)(CuContext* context, CuDevice d);                // cuDevicePrimaryCtxRetain
  CuResult (*primary_ctx_release)(CuDevice d);                                   // cuDevicePrimaryCtxRelease_v2
  CuResult (*ctx_set_current)(CuContext context);                                // cuCtxSetCurrent
  CuResult (*module_load_data)(CuModule* module, const void* image);             // cuModuleLoadData
  CuResult (*module_get_function)(CuFunction* f, CuModule m, const char* name);  // cuModuleGetFunction
  CuResult (*module_unload)(CuModule m);                                         // cuModuleUnload
  CuResult (*func_set_attribute)(CuFunction f, int attribute, int value);        // cuFuncSetAttribute
  CuResult (*func_get_attribute)(int* value, int attribute, CuFunction f);       // cuFuncGetAttribute
  CuResult (*launch_kernel)(CuFunction f, unsigned grid_x, unsigned grid_y, unsigned grid_z, unsigned block_x,
                            unsigned block_y, unsigned block_z, unsigned shared_bytes, CuStream stream, void** params,
                            void** extra);                                                    // cuLaunchKernel
  CuResult (*mem_alloc)(CuDevicePtr* ptr, size_t bytes);                                      // cuMemAlloc_v2
  CuResult (*mem_free)(CuDevicePtr ptr);                                                      // cuMemFree_v2
  CuResult (*memcpy_htod)(CuDevicePtr dst, const void* src, size_t bytes);                    // cuMemcpyHtoD_v2
  CuResult (*memcpy_dtoh)(void* dst, CuDevicePtr src, size_t bytes);                          // cuMemcpyDtoH_v2
  CuResult (*memcpy_dtod)(CuDevicePtr dst, CuDevicePtr src, size_t bytes);                    // cuMemcpyDtoD_v2
  CuResult (*memcpy_htod_async)(CuDevicePtr dst, const void* src, size_t bytes, CuStream s);  // cuMemcpyHtoDAsync_v2
  CuResult (*memcpy_dtoh_async)(void* dst, CuDevicePtr src, size_t bytes, CuStream s);        // cuMemcpyDtoHAsync_v2
  CuResult (*memcpy_dtod_async)(CuDevicePtr dst, CuDevicePtr src, size_t bytes, CuStream s);  // cuMemcpyDtoDAsync_v2
  CuResult (*memset_d8)(CuDevicePtr dst, unsigned char value, size_t count);                  // cuMemsetD8_v2
  CuResult (*stream_create)(CuStream* stream, unsigned flags);                                // cuStreamCreate
  CuResult (*stream_synchronize)(CuStream stream);                                            // cuStreamSynchronize
  CuResult (*stream_destroy)(CuStream stream);                                                // cuStreamDestroy_v2
  CuResult (*event_create)(CuEvent* event, unsigned flags);                                   // cuEventCreate
  CuResult (*event_record)(CuEvent event, CuStream stream);                                   // cuEventRecord
  CuResult (*event_synchronize)(CuEvent event);                                               // cuEventSynchronize
  CuResult (*event_elapsed_time)(float* ms, CuEvent start, CuEvent end);                      // cuEventElapsedTime_v2
  CuResult (*event_destroy)(CuEvent event);                                                   // cuEventDestroy_v2
  CuResult (*get_error_name)(CuResult result, const char** name);                             // cuGetErrorName
  CuResult (*get_error_string)(CuResult result, const char** text);                           // cuGetErrorString
};

class CudaDriver {
 public:
  // The process's driver: libcuda.so.1 loaded and cuInit(0) called once; later calls return the
  // same driver or the same error. Errors: no driver installed; cuInit failing (no device, or
  // libcuda.so.1 is the toolkit's stub).
  static Expected<const CudaDriver*> get();

  // Loads `library` (a file name searched on the loader's path, or a path) and calls cuInit(0).
  // Errors as for get(); get() uses it with "libcuda.so.1", tests with other paths.
  static Expected<CudaDriver> load(const std::string& library);

  const CudaDriverApi& api() const { return api_; }

  // Ok for CUDA_SUCCESS; else the error format_cuda_error writes, with the driver's name and
  // description for `result`.
  Status check(CuResult result, std::string_view call, std::string_view detail = {}) const;

 private:
  CudaDriver(VendorLibrary library, const CudaDriverApi& api) : library_(std::move(library)), api_(api) {}

  VendorLibrary library_;
  CudaDriverApi api_;
};

}  // namespace kiln
