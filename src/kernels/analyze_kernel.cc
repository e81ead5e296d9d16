#include "kernels/analyze_kernel.h"

#include <chrono>
#include <map>
#include <mutex>

#include "kernels/cuda_signature.h"
#include "kernels/ptx_mutation.h"
#include "kernels/ptx_reader.h"
#include "kernels/ttir_mutation.h"
#include "runtime/cuda/nvrtc.h"
#include "support/hash.h"

namespace kiln::kernels {

namespace {

Expected<KernelAnalysis> analyze_ttir_source(const KernelSource& s, std::string_view function) {
  KILN_ASSIGN_OR_RETURN(MutationAnalysis m, analyze_ttir_text(s.text, s.file_name, {std::string(function)}));
  std::string name = m.function;
  return KernelAnalysis{std::move(m), s.text, std::move(name), 0};
}

Expected<KernelAnalysis> analyze_ptx_source(const KernelSource& s, std::string_view function) {
  KILN_ASSIGN_OR_RETURN(PtxModule module, read_ptx(s.text, s.file_name));
  KILN_ASSIGN_OR_RETURN(MutationAnalysis m, analyze_ptx(module, {std::string(function), std::nullopt}));
  std::string name = m.function;
  return KernelAnalysis{std::move(m), s.text, std::move(name), 0};
}

// CUDA C++: the signature of `function` (or the first kernel) names the parameters; NVRTC
// compiles the source to the PTX the analysis reads.
Expected<KernelAnalysis> analyze_cuda_source(const KernelSource& s, std::string_view function) {
  KILN_ASSIGN_OR_RETURN(std::vector<CudaKernelSignature> signatures, read_cuda_signatures(s.text, s.file_name));
  const CudaKernelSignature* sig = nullptr;
  for (const CudaKernelSignature& c : signatures)
    if (function.empty() || c.name == function || c.matches_ptx_name(function)) {
      sig = &c;
      break;
    }
  if (!sig)
    return make_error(s.file_name, ": ",
                      function.empty() ? std::string("no __global__ kernel in the source")
                                       : "no __global__ kernel named '" + std::string(function) + "'");
  NvrtcOptions options;
  options.name = s.file_name;
  KILN_ASSIGN_OR_RETURN(std::string ptx, compile_cuda_to_ptx(s.text, options));
  KILN_ASSIGN_OR_RETURN(PtxModule module, read_ptx(ptx, s.file_name + ".ptx"));
  KILN_ASSIGN_OR_RETURN(MutationAnalysis m, analyze_ptx(module, {"", *sig}));
  return KernelAnalysis{std::move(m), std::move(ptx), sig->name, 0};
}

Expected<KernelAnalysis> analyze_uncached(const KernelSource& s, std::string_view function) {
  switch (s.kind) {
    case KernelSourceKind::Ttir: return analyze_ttir_source(s, function);
    case KernelSourceKind::Ptx: return analyze_ptx_source(s, function);
    case KernelSourceKind::Cuda: return analyze_cuda_source(s, function);
  }
  return make_error("unknown kernel source kind");
}

struct Cache {
  std::mutex mu;
  std::map<std::string, KernelAnalysis> results;  // by content hash of kind, text and function
};

Cache& cache() {
  static Cache c;
  return c;
}

}  // namespace

Expected<KernelAnalysis> analyze_kernel(const KernelSource& source, std::string_view function) {
  const std::string key = ContentHash().add(kernel_source_kind_name(source.kind)).add(source.text).add(function).hex();
  {
    std::lock_guard<std::mutex> lock(cache().mu);
    if (auto it = cache().results.find(key); it != cache().results.end()) return it->second;
  }
  const auto start = std::chrono::steady_clock::now();
  KILN_ASSIGN_OR_RETURN(KernelAnalysis a, analyze_uncached(source, function));
  a.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::lock_guard<std::mutex> lock(cache().mu);
  return cache().results.emplace(key, std::move(a)).first->second;
}

}  // namespace kiln::kernels
