// The CPU backend (backend/backend.h): keeps linear and var/std whole, decomposes every other
// composite op, fuses rows that stay in cache; emits C++ with OpenMP (codegen/cpp), compiles
// it with the system compiler through the disk cache and runs it with dlopen
// (compiled_program.h), matmuls through oneDNN or OpenBLAS.
#pragma once

#include <memory>

#include "backend/backend.h"
#include "backend/compile_graph.h"
#include "runtime/cpu/compiled_program.h"

namespace kiln {

// The CPU backend's own knobs; part of every kernel's cache key through `compile`.
struct CpuBackendOptions {
  // Keep linear (x @ w.T + b) whole, as one extern kernel: the matmul library adds the bias as
  // it writes the product (oneDNN's bias argument), where the decomposition's add would read
  // the product back in another pass. false: decomposed with the rest.
  bool extern_linear = true;
  // Keep var and std whole, so that lowering computes them in one Welford pass over the data,
  // with a mean of the same values beside them (the normalizations' statistics: their
  // decompositions give mean and var) from the same accumulator (lower/lower_welford.cc).
  // false: they decompose into a mean and a sum of squared deviations, two passes.
  bool welford = true;
  // The C++ emitter's options, the compiler, the kernel cache directory, the matmul library.
  CpuCompileOptions compile = {};
};

class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(CpuBackendOptions options = {});

  Device device() const override { return Device::cpu(); }
  std::string name() const override { return "CPU"; }
  const BackendPolicy& policy() const override { return policy_; }
  std::string emit(const LoopProgram& p) const override;
  SourceFormat source_format() const override { return {"C++", "cpp"}; }
  Expected<std::unique_ptr<Executable>> compile(LoopProgram p) const override;

 private:
  CpuBackendOptions options_;
  BackendPolicy policy_;
};

// The CPU program behind a graph compiled by the CPU backend, for what only the CPU has
// (per-kernel profiles, chunk and cache statistics). `c` must come from a CpuBackend.
const CompiledProgram& cpu_program(const CompiledGraph& c);

}  // namespace kiln
