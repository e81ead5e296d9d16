#include "runtime/backend_registry.h"

namespace kiln {

Expected<std::unique_ptr<Backend>> backend_for(Device device, const BackendOptions& options) {
  switch (device.kind()) {
    case Device::Kind::Cpu: return std::unique_ptr<Backend>(std::make_unique<CpuBackend>(options.cpu));
    case Device::Kind::Cuda: return std::unique_ptr<Backend>(std::make_unique<CudaBackend>(device, options.cuda));
  }
  return make_error("no backend for device ", device.to_string(), " in this build");
}

}  // namespace kiln
