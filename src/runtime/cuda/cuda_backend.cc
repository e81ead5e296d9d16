#include "runtime/cuda/cuda_backend.h"

#include "codegen/cuda/cuda_launch.h"
#include "runtime/cuda/cuda_device_target.h"
#include "runtime/cuda/cuda_target_report.h"

namespace kiln {

BackendPolicy cuda_policy(const CudaTarget& target) {
  BackendPolicy p;
  const char* library = "one extern kernel: cuBLASLt adds the bias in its epilogue as it writes the product";
  p.kept_whole.push_back({OpKind::Linear, library});
  p.kept_whole.push_back({OpKind::Addmm, library});
  for (OpKind op : {OpKind::Var, OpKind::Std})
    p.kept_whole.push_back({op, "one Welford pass over the data, a mean beside it from the same accumulator"});
  // A fused kernel runs a block per row, its parts re-reading the row from L2 (codegen/cuda):
  // the rows of every resident block must fit in L2 together, and there must be a row per
  // multiprocessor, or separate kernels spread wider.
  p.schedule.max_row_bytes = cuda::max_fused_row_bytes(target);
  p.schedule.min_rows = target.multiprocessors;
  p.schedule.merge_column_reductions = true;  // column partials hold several reduce ops
  return p;
}

namespace {

CudaBackendOptions sized_for(Device device, CudaBackendOptions o) {
  if (o.target_from_device) o.emit.target = cuda_target_or(device.index(), o.emit.target);
  return o;
}

}  // namespace

CudaBackend::CudaBackend(Device device, CudaBackendOptions options)
    : device_(device), options_(sized_for(device, std::move(options))), policy_(cuda_policy(options_.emit.target)) {}

std::string CudaBackend::emit(const LoopProgram& p) const { return emit_cuda_program(p, options_.emit).source(); }

Expected<std::unique_ptr<Executable>> CudaBackend::compile(LoopProgram p) const {
  CudaProgramSource source = emit_cuda_program(p, options_.emit);
  CudaRunOptions run = options_.run;
  run.device = device_.index();
  return CudaProgram::load(std::move(p), std::move(source), run);
}

Status CudaBackend::available() const {
  KILN_ASSIGN_OR_RETURN(const CudaDriver* driver, CudaDriver::get());
  KILN_ASSIGN_OR_RETURN(int count, cuda_device_count(*driver));
  if (device_.index() >= count)
    return make_error("no CUDA device ", device_.to_string(), ": the driver sees ", count, " device",
                      count == 1 ? "" : "s");
  return Status::ok();
}

Expected<DescribedProgram> CudaBackend::describe(const LoopProgram& p) const {
  const CudaProgramSource source = emit_cuda_program(p, options_.emit);
  const std::string arch = options_.emit.target.arch();
  KILN_ASSIGN_OR_RETURN(CudaProgramPlan plan, plan_cuda_program(p, source, options_.run.library_workspace_bytes,
                                                                "while compiling loops @" + p.name + " for " + arch));
  std::optional<CubinChunks> chunks;
  Expected<std::string> nvrtc = nvrtc_version();
  if (nvrtc) {
    const CudaRunOptions& run = options_.run;
    Expected<CubinChunks> compiled =
        compile_cubin_chunks(source, {arch, run.cache_dir, run.jobs, run.min_kernels_per_chunk});
    if (!compiled) return compiled.error().add_context("while compiling loops @" + p.name + " for " + arch);
    chunks.emplace(std::move(*compiled));
  }
  TargetReport report = cuda_target_report(
      {.program = p, .source = source, .plan = plan, .arch = arch, .compiled = chunks ? &chunks->stats : nullptr});
  if (!nvrtc) report.notes.push_back(nvrtc.error().message());
  return DescribedProgram{plan.arena.temporaries, std::move(report)};
}

}  // namespace kiln
