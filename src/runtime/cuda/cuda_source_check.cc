#include "runtime/cuda/cuda_source_check.h"

#include <string>

#include "lower/loop_control.h"
#include "runtime/cuda/cuda_arena.h"

namespace kiln {

namespace {

// "" when argument `a` is sound, else what is wrong with it.
std::string arg_problem(const LoopProgram& p, const CudaProgramSource& source, const CudaArg& a) {
  switch (a.kind) {
    case CudaArg::Kind::Buffer:
      if (a.buffer >= 0 && static_cast<size_t>(a.buffer) < p.buffers.size()) return "";
      return "names buffer " + std::to_string(a.buffer) + ", but the program has " + std::to_string(p.buffers.size());
    case CudaArg::Kind::Scratch:
      if (a.offset >= 0 && a.offset < source.scratch_bytes && a.offset % CudaArenaPlan::kAlignment == 0) return "";
      return "is at offset " + std::to_string(a.offset) + " of a scratch workspace of " +
             std::to_string(source.scratch_bytes) + " bytes (offsets are multiples of " +
             std::to_string(CudaArenaPlan::kAlignment) + " inside it)";
    case CudaArg::Kind::ErrorSlot: return "";
  }
  return "has an unknown kind";
}

}  // namespace

Status check_cuda_program_source(const LoopProgram& p, const CudaProgramSource& source) {
  const std::vector<const LoopKernel*> flat = flat_kernels(p);
  const std::string of = "the CUDA source of loops @" + p.name;
  if (source.launches.size() != flat.size() || source.kernel_text.size() != flat.size())
    return make_error(of, " has launches for ", source.launches.size(), " kernels and text for ",
                      source.kernel_text.size(), ", but the program has ", flat.size(), " (flat) kernels");
  for (size_t k = 0; k < flat.size(); ++k) {
    const LoopKernel& kernel = *flat[k];
    const bool on_gpu = kernel.kind != KernelKind::Extern && !is_control_kernel(kernel);
    const std::string at = of + ", kernel @" + kernel.name;
    if (on_gpu && (source.launches[k].empty() || source.kernel_text[k].empty()))
      return make_error(at, ": it runs on the GPU but has no ", source.launches[k].empty() ? "launch" : "text");
    if (!on_gpu && (!source.launches[k].empty() || !source.kernel_text[k].empty()))
      return make_error(at, ": an extern or control kernel runs on the host, but it has ",
                        source.launches[k].empty() ? "text" : "launches");
    for (const CudaLaunch& launch : source.launches[k]) {
      for (size_t i = 0; i < launch.args.size(); ++i) {
        const std::string problem = arg_problem(p, source, launch.args[i]);
        if (!problem.empty()) return make_error(at, ", launch of ", launch.symbol, ": argument ", i, " ", problem);
      }
    }
  }
  return Status::ok();
}

}  // namespace kiln
