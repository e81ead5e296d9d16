#include "runtime/cuda/cuda_program_plan.h"

#include <algorithm>

#include "lower/byte_counts.h"
#include "lower/integer_divisors.h"
#include "lower/loop_bounds.h"
#include "lower/loop_control.h"
#include "runtime/cuda/cuda_source_check.h"

namespace kiln {

Expected<CudaProgramPlan> plan_cuda_program(const LoopProgram& p, const CudaProgramSource& source,
                                            int64_t library_workspace_bytes, const std::string& where) {
  for (Status s :
       {check_loop_bounds(p), check_integer_divisors(p), check_buffer_bytes(p), check_cuda_program_source(p, source)})
    if (!s) return s.error().add_context(where);
  CudaProgramPlan plan;
  bool any_matmul = false;
  for (const LoopKernel* k : flat_kernels(p)) {
    plan.matmuls.push_back(plan_lt_matmul(p, *k));
    any_matmul = any_matmul || plan.matmuls.back();
    std::vector<OpKind>& host = plan.host_copied_ops;
    const bool on_host = k->kind == KernelKind::Extern && !plan.matmuls.back();
    if (on_host && std::find(host.begin(), host.end(), k->op) == host.end()) host.push_back(k->op);
  }
  plan.arena = plan_cuda_arena(p, source.scratch_bytes, any_matmul ? library_workspace_bytes : 0);
  return plan;
}

}  // namespace kiln
