// The CUDA backend's part of the compile report (backend/target_report.h): per launch its grid,
// block and dynamic shared memory (the emitter's), registers and local memory (the driver's
// where the program is loaded, else ptxas's report from NVRTC's log where it gave one), spills
// (ptxas's); the arena's regions; the host-copied ops; the cubin compile's statistics; and
// notes saying where each figure comes from and what needs a GPU.
#pragma once

#include <string>
#include <vector>

#include "backend/target_report.h"
#include "runtime/cuda/cubin_chunks.h"
#include "runtime/cuda/cuda_module.h"
#include "runtime/cuda/cuda_program_plan.h"

namespace kiln {

struct CudaReportSources {
  const LoopProgram& program;
  const CudaProgramSource& source;
  const CudaProgramPlan& plan;
  std::string arch;                             // "sm_90": what the cubins are (or would be) for
  const CubinCompileStats* compiled = nullptr;  // null: not compiled
  // Where loaded: the device's name, and per flat kernel, per launch, the driver's attributes.
  std::string loaded_on = {};
  const std::vector<std::vector<KernelAttributes>>* attributes = nullptr;
};

TargetReport cuda_target_report(const CudaReportSources& s);

}  // namespace kiln
