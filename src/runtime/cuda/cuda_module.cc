#include "runtime/cuda/cuda_module.h"

namespace kiln {

Expected<CudaModule> CudaModule::load(const CudaContext& context, std::string_view cubin) {
  const CudaDriver& driver = context.driver();
  CuModule module = nullptr;
  KILN_TRY(driver.check(driver.api().module_load_data(&module, cubin.data()), "cuModuleLoadData",
                        "loading a cubin of " + format_bytes(cubin.size())));
  return CudaModule({driver, module});
}

Expected<CuFunction> CudaModule::kernel(const std::string& name) const {
  const CudaDriver& driver = module_.driver();
  CuFunction function = nullptr;
  KILN_TRY(driver.check(driver.api().module_get_function(&function, module_.get(), name.c_str()), "cuModuleGetFunction",
                        "kernel '" + name + "'"));
  return function;
}

Status CudaModule::allow_shared_bytes(CuFunction kernel, const std::string& name, unsigned bytes) const {
  constexpr int kMaxDynamicSharedSizeBytes = 8;  // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
  const CudaDriver& driver = module_.driver();
  return driver.check(driver.api().func_set_attribute(kernel, kMaxDynamicSharedSizeBytes, static_cast<int>(bytes)),
                      "cuFuncSetAttribute",
                      "kernel '" + name + "' asking for " + format_bytes(bytes) + " of shared memory");
}

Expected<KernelAttributes> CudaModule::attributes(CuFunction kernel, const std::string& name) const {
  // CUfunction_attribute's values (cuda.h).
  constexpr int kSharedSizeBytes = 1, kLocalSizeBytes = 3, kNumRegs = 4;
  const CudaDriver& driver = module_.driver();
  auto get = [&](int attribute, const char* what) -> Expected<int> {
    int value = 0;
    KILN_TRY(driver.check(driver.api().func_get_attribute(&value, attribute, kernel), "cuFuncGetAttribute",
                          std::string(what) + " of kernel '" + name + "'"));
    return value;
  };
  KernelAttributes a;
  KILN_ASSIGN_OR_RETURN(a.registers, get(kNumRegs, "the registers"));
  KILN_ASSIGN_OR_RETURN(a.local_bytes, get(kLocalSizeBytes, "the local memory"));
  KILN_ASSIGN_OR_RETURN(a.static_shared_bytes, get(kSharedSizeBytes, "the static shared memory"));
  return a;
}

Status CudaModule::launch(CuFunction kernel, const LaunchDims& dims, CuStream stream, void** params) const {
  const CudaDriver& driver = module_.driver();
  CuResult result =
      driver.api().launch_kernel(kernel, dims.grid[0], dims.grid[1], dims.grid[2], dims.block[0], dims.block[1],
                                 dims.block[2], dims.shared_bytes, stream, params, nullptr);
  if (result == kCudaSuccess) return Status::ok();
  std::string detail = "grid [" + std::to_string(dims.grid[0]) + ", " + std::to_string(dims.grid[1]) + ", " +
                       std::to_string(dims.grid[2]) + "], block [" + std::to_string(dims.block[0]) + ", " +
                       std::to_string(dims.block[1]) + ", " + std::to_string(dims.block[2]) + "], " +
                       std::to_string(dims.shared_bytes) + " bytes of shared memory";
  return driver.check(result, "cuLaunchKernel", detail);
}

}  // namespace kiln
