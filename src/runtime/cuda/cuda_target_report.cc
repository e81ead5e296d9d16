#include "runtime/cuda/cuda_target_report.h"

#include <algorithm>
#include <map>

#include "lower/loop_control.h"
#include "ops/op_info.h"

namespace kiln {

namespace {

// The arena's regions in address order, each with the padding to its successor's 256-byte boundary.
std::vector<TargetMemoryRegion> arena_regions(const LoopProgram& p, const CudaArenaPlan& a) {
  int64_t outputs_at = a.temp_offset;
  for (size_t b = 0; b < p.buffers.size(); ++b)
    if (p.buffers[b].kind == BufferKind::Output) outputs_at = std::min(outputs_at, a.offset[b]);
  return {{"inputs", outputs_at},
          {"outputs", a.temp_offset - outputs_at},
          {"temporaries", a.scratch_offset - a.temp_offset},
          {"kernel scratch", a.library_workspace_offset - a.scratch_offset},
          {"cuBLASLt workspace", a.error_offset - a.library_workspace_offset},
          {"error slot", a.bytes - a.error_offset}};
}

int64_t count_lines(const std::string& text) { return std::count(text.begin(), text.end(), '\n'); }

}  // namespace

TargetReport cuda_target_report(const CudaReportSources& s) {
  TargetReport r;
  r.device = s.attributes ? s.loaded_on + " (" + s.arch + ")" : "CUDA " + s.arch + " (not loaded)";
  std::map<std::string, const KernelResources*> ptxas;
  if (s.compiled) {
    const CubinCompileStats& c = *s.compiled;
    r.compile = TargetCompileStats{"NVRTC " + c.nvrtc_version + " for " + s.arch, c.cache_dir,
                                   static_cast<int>(c.chunks.size()), c.hits(), c.lookup_seconds + c.compile_seconds};
    for (const CubinChunkStats& chunk : c.chunks)
      for (const KernelResources& k : chunk.resources) ptxas[k.name] = &k;
  }
  const std::vector<const LoopKernel*> flat = flat_kernels(s.program);
  int without_ptxas = 0;
  for (size_t i = 0; i < s.source.launches.size(); ++i) {
    for (size_t l = 0; l < s.source.launches[i].size(); ++l) {
      const CudaLaunch& launch = s.source.launches[i][l];
      TargetKernel k{.symbol = launch.symbol,
                     .loop_kernel = flat[i]->name,
                     .grid = launch.grid,
                     .block = launch.block,
                     .dynamic_shared_bytes = launch.shared_bytes,
                     .source_lines = count_lines(s.source.kernel_text[i])};
      if (auto it = ptxas.find(launch.symbol); it != ptxas.end()) {
        const KernelResources& res = *it->second;
        k.registers = res.registers;
        k.local_bytes = res.stack_frame_bytes;
        k.spill_store_bytes = res.spill_store_bytes;
        k.spill_load_bytes = res.spill_load_bytes;
        k.resources_from = "ptxas";
      } else {
        ++without_ptxas;
      }
      if (s.attributes) {
        const KernelAttributes& a = (*s.attributes)[i][l];
        k.registers = a.registers;
        k.local_bytes = a.local_bytes;
        k.static_shared_bytes = a.static_shared_bytes;
        k.resources_from = "driver";
      }
      r.kernels.push_back(std::move(k));
    }
  }
  r.memory = arena_regions(s.program, s.plan.arena);
  r.memory_bytes = s.plan.arena.bytes;
  for (OpKind op : s.plan.host_copied_ops) r.host_copied_ops.emplace_back(op_info(op).name());

  if (s.attributes)
    r.notes.push_back(
        "Registers and local memory per thread, and static shared memory per block, are the driver's "
        "(cuFuncGetAttribute) for the loaded kernels; spills are ptxas's, where NVRTC's log gave its "
        "report.");
  else if (s.compiled)
    r.notes.push_back(
        "The driver's figures (cuFuncGetAttribute: registers, local and static shared memory) and "
        "running need a GPU; registers, spills and stack frames here are ptxas's, from compiling for " +
        s.arch + ".");
  else
    r.notes.push_back("Not compiled for " + s.arch + ": no register or spill figures.");
  if (s.compiled && without_ptxas > 0)
    r.notes.push_back("ptxas reported nothing on " + std::to_string(without_ptxas) + " of " +
                      std::to_string(r.kernels.size()) +
                      " kernels (NVRTC's log has no -v report: some NVRTC versions give none).");
  return r;
}

}  // namespace kiln
