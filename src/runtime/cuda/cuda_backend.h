// The CUDA backend (backend/backend.h): keeps the matmul family (linear, addmm) whole as
// library calls and var/std whole for Welford, decomposes every other composite op, fuses rows
// a block can hold; emits CUDA C++ (codegen/cuda), which runtime/cuda's CudaProgram compiles
// with NVRTC through the cubin cache, loads and runs (the driver API, cuBLASLt for matmuls).
#pragma once

#include <memory>

#include "backend/backend.h"
#include "codegen/cuda/cuda_emitter.h"
#include "runtime/cuda/cuda_program.h"

namespace kiln {

// The CUDA backend's own knobs.
struct CudaBackendOptions {
  CudaEmitOptions emit = {};  // the device the launches are sized for
  CudaRunOptions run = {};    // the cubin cache, parallel compiles, TF32 (its `device` is the backend's)
  // Size the launches for the backend's own device instead of emit.target, where the driver can
  // tell its properties (runtime/cuda/cuda_device_target.h); emit.target where it cannot.
  bool target_from_device = true;
};

class CudaBackend final : public Backend {
 public:
  explicit CudaBackend(Device device = Device::cuda(), CudaBackendOptions options = {});

  Device device() const override { return device_; }
  std::string name() const override { return "CUDA"; }
  const BackendPolicy& policy() const override { return policy_; }
  std::string emit(const LoopProgram& p) const override;
  SourceFormat source_format() const override { return {"CUDA C++", "cu"}; }
  Expected<std::unique_ptr<Executable>> compile(LoopProgram p) const override;
  // Errors: no CUDA driver (or the toolkit's stub, or cuInit failing), no device of the
  // backend's ordinal.
  Status available() const override;
  // Emitted, planned and, where NVRTC is installed, compiled to cubins through the cache (the
  // register figures of ptxas's report); needs no driver or GPU.
  Expected<DescribedProgram> describe(const LoopProgram& p) const override;

 private:
  Device device_;
  CudaBackendOptions options_;
  BackendPolicy policy_;
};

// The CUDA backend's policy for `target` (what `kiln backend --device=cuda` prints).
BackendPolicy cuda_policy(const CudaTarget& target);

}  // namespace kiln
