#include "codegen/cuda/cuda_emitter.h"

#include <algorithm>

#include "codegen/cpp/cpp_emitter.h"
#include "codegen/cuda/cuda_kernel.h"
#include "codegen/cuda/cuda_prelude.h"
#include "lower/loop_control.h"

namespace kiln {

std::string CudaEmitOptions::to_string() const {
  const CudaTarget& t = target;
  return "target=" + t.arch() + " sms=" + std::to_string(t.multiprocessors) +
         " threads_per_block=" + std::to_string(t.max_threads_per_block) +
         " threads_per_sm=" + std::to_string(t.max_threads_per_multiprocessor) +
         " registers_per_sm=" + std::to_string(t.registers_per_multiprocessor) +
         " shared_per_block=" + std::to_string(t.shared_bytes_per_block);
}

CudaProgramSource emit_cuda_program(const LoopProgram& p, const CudaEmitOptions& o) {
  CudaProgramSource out;
  // The symbols are the C++ backend's (kiln_<program>_<kernel>): one naming rule for both.
  const std::vector<std::string> symbols = cpp_kernel_symbols(p);
  const std::vector<const LoopKernel*> flat = flat_kernels(p);
  for (size_t i = 0; i < flat.size(); ++i) {
    if (symbols[i].empty()) {  // extern and control kernels: the runtime's
      out.kernel_text.emplace_back();
      out.launches.emplace_back();
      continue;
    }
    cuda::CudaKernel k = cuda::emit_cuda_kernel(p, *flat[i], symbols[i], o.target);
    out.kernel_text.push_back("\n" + k.text);
    out.launches.push_back(std::move(k.launches));
    // Kernels run one after another, each its partials' only reader: they share the workspace.
    out.scratch_bytes = std::max(out.scratch_bytes, k.scratch_bytes);
  }
  std::string kernels;
  for (const std::string& text : out.kernel_text) kernels += text;
  out.prelude = "// loops @" + p.name + ", options: " + o.to_string() + ".\n" + cuda::cuda_prelude_for(kernels);
  return out;
}

}  // namespace kiln
