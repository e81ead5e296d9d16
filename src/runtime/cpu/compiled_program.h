// A loop program compiled to native code for the CPU: its pointwise and reduction kernels
// emitted as C++ (codegen/cpp), compiled in parallel chunks through the disk cache
// (kernel_cache.h), loaded with dlopen; extern kernels run their op's reference kernel
// exactly as the evaluator runs them (lower/extern_kernel.h). run() has eval_loops'
// contract; results agree with it within per-dtype tolerances (docs/CODEGEN.md says where
// and why they differ).
#pragma once

#include <memory>
#include <mutex>

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "codegen/cpp/cpp_emitter.h"
#include "core/tensor.h"
#include "lower/loop_ir.h"
#include "lower/memory_plan.h"
#include "runtime/cpu/dnnl_matmul.h"
#include "runtime/cpu/shared_library.h"
#include "runtime/cpu/toolchain.h"
#include "support/diagnostic.h"

namespace kiln {

struct CpuCompileOptions {
  CppEmitOptions emit = {};
  std::string compiler = {};                   // "" : $CXX if set, else c++
  std::optional<CpuToolchain> toolchain = {};  // when set, used as is: no lookup, no --version
  std::string cache_dir = {};                  // "" : $KILN_CACHE_DIR, else $HOME/.cache/kiln
  int jobs = 0;                                // most chunks (compiled at once); 0: hardware threads
  int min_kernels_per_chunk = 4;               // no chunk smaller, unless the program is
  // Float32 matmuls through oneDNN's brgemm kernels where it has one for the layout
  // (dnnl_matmul.h); false: every BLAS matmul through OpenBLAS.
  bool onednn_matmuls = true;
};

struct ChunkStats {
  std::vector<std::string> kernels;  // kernel names
  std::string key;                   // the cache key (<key>.cpp, <key>.so)
  bool cache_hit = false;            // loaded without running the compiler
  // Why an entry found under the key was not used but rebuilt (it failed verification,
  // kernel_cache.h); "" when there was none or it was a hit. A note on stderr says it too.
  std::string rebuilt_because;
  double compile_seconds = 0;  // 0 on a hit
};

struct CompileStats {
  std::vector<ChunkStats> chunks;
  std::string cache_dir;
  CpuToolchain toolchain;        // empty when no kernel needed one
  double emit_seconds = 0;       // generating the C++ of every chunk
  double toolchain_seconds = 0;  // finding the compiler and its version
  double lookup_seconds = 0;     // finding and verifying the chunks' cache entries
  double compile_seconds = 0;    // wall time of the (parallel) compiles
  double load_seconds = 0;       // dlopen and dlsym

  int hits() const;
  int compiled() const;
};

class CompiledProgram {
 public:
  // Checks index bounds (lower/loop_bounds.h), then emits, compiles or finds in the cache,
  // and loads every chunk. Errors: out-of-range accesses, a missing or failing compiler, a
  // cache directory that cannot be made, a library or symbol that cannot be loaded.
  static Expected<CompiledProgram> compile(LoopProgram p, const CpuCompileOptions& o = {});

  // Inputs must match the program's input buffers in dtype and sizes (any strides); returns
  // one contiguous tensor per output. Safe to call from several threads at once. An index out
  // of range in a kernel (an `indirect` check) is an error naming the index, its dim and the
  // graph node, as the evaluator's (lower/loop_eval.h: eval_kernel_checks).
  Expected<std::vector<Tensor>> run(std::span<const Tensor> inputs) const;
  // run(), adding each kernel's wall time (seconds) to kernel_seconds[k] (resized to fit), k
  // the flat index (lower/loop_control.h); a control kernel's entry stays 0, its regions'
  // kernels have their own.
  Expected<std::vector<Tensor>> run_profiled(std::span<const Tensor> inputs, std::vector<double>& kernel_seconds) const;

  const LoopProgram& program() const { return p_; }
  const CompileStats& stats() const { return stats_; }
  // Where temporaries live (one arena reused by liveness) and the planned peak of a run.
  const MemoryPlan& memory_plan() const { return plan_; }

  CompiledProgram(CompiledProgram&&) = default;
  CompiledProgram& operator=(CompiledProgram&&) = default;
  CompiledProgram(const CompiledProgram&) = delete;
  CompiledProgram& operator=(const CompiledProgram&) = delete;

 private:
  using KernelFn = void (*)(char* const*);
  CompiledProgram() = default;
  bool run_blas_kernel(const LoopKernel& k, std::span<const Tensor> storage) const;
  // An extern kernel: through a matmul library where one applies, else its op's reference kernel.
  Status run_extern(const LoopKernel& k, std::span<const Tensor> storage) const;
  Expected<std::vector<Tensor>> run_impl(std::span<const Tensor> inputs, std::vector<double>* profile) const;
  // One run's buffers: flat tensors and the pointers kernels take, both by buffer.
  struct RunState {
    std::vector<Tensor>& storage;
    std::vector<char*>& pointers;
    std::vector<double>* profile;
    const int& index_error;  // the error slot a kernel that checks indices sets
  };
  // Runs `kernels`, the first of which has flat index `first`, in order.
  Status run_kernels(const std::vector<LoopKernel>& kernels, int first, RunState& s) const;
  // A cond or while kernel at flat index `at` (compiled_control.cc): a while exchanges its
  // carried and next buffers by swapping their pointers (the memory plan gives each pair one
  // lifetime, memory_plan.h).
  Status run_control(const LoopKernel& k, int at, RunState& s) const;

  LoopProgram p_;
  std::vector<SharedLibrary> libraries_;
  std::vector<KernelFn> kernels_;    // per flat kernel of p_; null for extern and control kernels
  std::vector<int> ends_;            // per flat kernel: flat_kernel_ends (lower/loop_control.h)
  std::vector<bool> input_written_;  // per buffer: some kernel writes this input buffer
  std::vector<bool> kernel_checks_;  // per flat kernel: it checks indirect indices (sets the error slot)
  CompileStats stats_;
  MemoryPlan plan_;
  // Primitives of the matmuls oneDNN runs, made on first use; null when onednn_matmuls is off.
  std::unique_ptr<DnnlMatmuls> dnnl_;
  // Arenas of finished runs, reused by the next (a run takes one, or allocates a new one).
  struct ArenaPool {
    std::mutex mutex;
    std::vector<std::shared_ptr<Storage>> free;
  };
  std::unique_ptr<ArenaPool> arenas_ = std::make_unique<ArenaPool>();
  // Output storages the caller has released, per output buffer, for the next runs: a fresh
  // allocation of a large buffer costs a page fault per 4 KiB on its first write (mmap'd
  // memory), which made the transformer block's forward 1.6x slower. Outputs hold a weak
  // reference, so they may outlive the program.
  struct OutputPool {
    std::mutex mutex;
    std::vector<std::vector<std::unique_ptr<Storage>>> free;  // per buffer
  };
  std::shared_ptr<OutputPool> outputs_ = std::make_shared<OutputPool>();
  // Storage for output `buffer`: a released one of the pool, or a new allocation of `bytes`.
  Expected<std::shared_ptr<Storage>> output_storage(size_t buffer, int64_t bytes) const;
};

}  // namespace kiln
