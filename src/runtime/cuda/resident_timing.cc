#include "runtime/cuda/resident_timing.h"

#include "lower/loop_control.h"
#include "ops/op_info.h"
#include "runtime/cuda/cublaslt_matmul.h"

namespace kiln {

Status check_resident_timing(const LoopProgram& p, const ResidentTimingOptions& o) {
  const std::string where = "timing loops @" + p.name + " with resident inputs";
  if (o.timed_runs < 1 || o.warmup_runs < 0)
    return make_error(where, ": needs at least 1 timed run and no negative warm-up runs (asked for ", o.timed_runs,
                      " timed and ", o.warmup_runs, " warm-up)");
  std::set<int> inputs(p.inputs.begin(), p.inputs.end());
  for (const LoopKernel* k : flat_kernels(p)) {
    if (is_control_kernel(*k))
      return make_error(where, ": kernel @", k->name,
                        " is a control kernel (cond or while), which waits for the host to read its predicate");
    if (k->kind == KernelKind::Extern && !plan_lt_matmul(p, *k))
      return make_error(where, ": kernel @", k->name, " (", op_info(k->op).name(),
                        ") runs on the host, copying its operands there and back");
    for (int b : kernel_buffers_written(*k))
      if (inputs.count(b))
        return make_error(where, ": kernel @", k->name, " writes input %", p.buffers[static_cast<size_t>(b)].name,
                          ", so each run would start from the last one's result");
  }
  return Status::ok();
}

}  // namespace kiln
