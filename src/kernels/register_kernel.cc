#include "kernels/register_kernel.h"

#include "kernels/analyze_kernel.h"

namespace kiln::kernels {

Expected<const UserKernel*> register_kernel(KernelRegistration r) {
  KILN_ASSIGN_OR_RETURN(KernelAnalysis a, analyze_kernel(r.source, r.function));
  UserKernel k;
  k.name = r.name.empty() ? a.display_name : r.name;
  k.function = a.mutation.function;
  k.source_kind = std::string(kernel_source_kind_name(r.source.kind));
  k.ir = std::move(a.ir);
  for (const ParamMutation& p : a.mutation.params)
    k.params.push_back({p.name, p.type, p.is_pointer, p.written, p.reason});
  k.analysis_fallback = a.mutation.fallback;
  k.analysis_notes = a.mutation.reasons;
  k.analysis_ms = a.ms;
  k.grid = std::move(r.grid);
  k.cpu = std::move(r.cpu);
  return UserKernelTable::global().add(std::move(k));
}

}  // namespace kiln::kernels
