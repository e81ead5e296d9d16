#include "runtime/cuda/cuda_module.h"

namespace kiln {

Expected<CudaModule> CudaModule::load(const CudaContext& context, std::string_view cubin) {
  const CudaDriver& driver = context.driver();
  CuModule module = nullptr;
  KILN_TRY(driver.check(driver.api().module_load_data(&module, cubin.data()), "cuModuleLoadData",
                        "loading a cubin of " + format_bytes(cubin.size())));
  return CudaModule(driver, module);
}

CudaModule::CudaModule(CudaModule&& other) noexcept : driver_(other.driver_), module_(other.module_) {
  other.module_ = nullptr;
}

CudaModule::~CudaModule() {
  if (module_) (void)driver_->api().module_unload(module_);
}

Expected<CuFunction> CudaModule::kernel(const std::string& name) const {
  CuFunction function = nullptr;
  KILN_TRY(driver_->check(driver_->api().module_get_function(&function, module_, name.c_str()),
                          "cuModuleGetFunction", "kernel '" + name + "'"));
  return function;
}

Status CudaModule::launch(CuFunction kernel, const LaunchDims& dims, CuStream stream, void** params) const {
  CuResult result = driver_->api().launch_kernel(kernel, dims.grid[0], dims.grid[1], dims.grid[2], dims.block[0],
                                                 dims.block[1], dims.block[2], dims.shared_bytes, stream, params,
                                                 nullptr);
  if (result == kCudaSuccess) return Status::ok();
  std::string detail = "grid [" + std::to_string(dims.grid[0]) + ", " + std::to_string(dims.grid[1]) + ", " +
                       std::to_string(dims.grid[2]) + "], block [" + std::to_string(dims.block[0]) + ", " +
                       std::to_string(dims.block[1]) + ", " + std::to_string(dims.block[2]) + "], " +
                       std::to_string(dims.shared_bytes) + " bytes of shared memory";
  return driver_->check(result, "cuLaunchKernel", detail);
}

}  // namespace kiln
