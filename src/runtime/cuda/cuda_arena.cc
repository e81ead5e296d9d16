#include "runtime/cuda/cuda_arena.h"

namespace kiln {

namespace {

int64_t aligned(int64_t n) {
  return (n + CudaArenaPlan::kAlignment - 1) / CudaArenaPlan::kAlignment * CudaArenaPlan::kAlignment;
}

}  // namespace

CudaArenaPlan plan_cuda_arena(const LoopProgram& p, int64_t scratch_bytes, int64_t library_workspace_bytes) {
  CudaArenaPlan plan;
  plan.temporaries = plan_memory(p, CudaArenaPlan::kAlignment);
  plan.offset.assign(p.buffers.size(), -1);
  int64_t at = 0;
  for (BufferKind kind : {BufferKind::Input, BufferKind::Output}) {
    for (size_t b = 0; b < p.buffers.size(); ++b) {
      const Buffer& buf = p.buffers[b];
      if (buf.kind != kind) continue;
      plan.offset[b] = at;
      at += aligned(buf.storage_size() * dtype_size(buf.dtype));
    }
  }
  plan.temp_offset = at;
  for (size_t b = 0; b < p.buffers.size(); ++b)
    if (plan.temporaries.offset[b] >= 0) plan.offset[b] = at + plan.temporaries.offset[b];
  at += aligned(plan.temporaries.arena_bytes);
  plan.scratch_offset = at;
  at += aligned(scratch_bytes);
  plan.library_workspace_offset = at;
  plan.library_workspace_bytes = library_workspace_bytes;
  at += aligned(library_workspace_bytes);
  plan.error_offset = at;
  plan.bytes = at + static_cast<int64_t>(sizeof(int));
  return plan;
}

}  // namespace kiln
