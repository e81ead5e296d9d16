// The backends of this build, found by device: the one place that knows them all. A new
// backend adds its options to BackendOptions and its case to backend_for (docs/BACKENDS.md).
#pragma once

#include <memory>

#include "backend/backend.h"
#include "core/device.h"
#include "runtime/cpu/cpu_backend.h"
#include "runtime/cuda/cuda_backend.h"
#include "support/diagnostic.h"

namespace kiln {

// Every backend's own knobs, one field per backend; backend_for hands each its own.
struct BackendOptions {
  CpuBackendOptions cpu = {};
  CudaBackendOptions cuda = {};
};

// The backend that compiles for `device`, configured by its field of `options`. Errors: a
// device no backend of this build compiles for ("no backend for device cuda:0 in this build").
Expected<std::unique_ptr<Backend>> backend_for(Device device, const BackendOptions& options = {});

}  // namespace kiln
