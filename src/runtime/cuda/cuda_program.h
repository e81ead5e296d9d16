// A loop program run on a CUDA GPU: the emitter's source (codegen/cuda/cuda_program_source.h)
// compiled to cubins through the cubin cache (cubin_chunks.h), loaded, and run in one device
// arena planned at load (cuda_arena.h) with every launch's parameters packed at load
// (cuda_launch_args.h). run() has the Executable contract (host tensors in and out; an input on a
// device is an error naming it), as the compiled CPU runtime (runtime/cpu/compiled_program.h)
// has, with these differences:
//  - a run copies the inputs into the arena, launches every kernel in flat order on the
//    program's one stream and copies the outputs back; the host waits for the GPU only to read
//    a control kernel's predicate (cond, while: lower/loop_control.h), around a host extern
//    kernel and at the end;
//  - the matmul family's extern kernels run through cuBLASLt (cublaslt_matmul.h says which);
//    every other extern kernel runs on the host (host_copied_ops() lists their ops): its
//    operands are copied to host memory, the op's reference kernel runs as the evaluator runs
//    it (lower/loop_run.h), and what it wrote is copied back;
//  - runs of one program are serialized (one stream, one arena): calls from several threads
//    are safe but take turns. Programs are independent.
// An index out of range in a kernel (an `indirect` check sets the error slot) is found by
// running the loop-IR evaluator (lower/loop_eval.h) on the same inputs, so the error names
// the index, its dim and the graph node exactly as the CPU runtime's and the evaluator's do.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "codegen/cuda/cuda_program_source.h"
#include "runtime/cuda/cubin_chunks.h"
#include "runtime/cuda/cuda_arena.h"
#include "runtime/cuda/resident_timing.h"

namespace kiln {

struct CudaRunOptions {
  int device = 0;              // the device ordinal
  std::string cache_dir = {};  // the cubin cache: "" for CubinCache::open_default()
  int jobs = 0;                // most chunks compiled at once; 0: hardware threads
  // No chunk smaller, unless the program is (CubinChunkOptions says why a kernel a chunk).
  int min_kernels_per_chunk = CubinChunkOptions{}.min_kernels_per_chunk;
  std::string fast_compile = {};  // NVRTC's --Ofast-compile level: CubinChunkOptions's, off
  // f32 matmuls through TF32 tensor cores. Off: TF32 keeps 10 bits of each operand's mantissa
  // (a relative error near 1e-3 on a product of length 1000), far outside the f32 tolerances
  // kiln holds every backend to against the interpreter; f32 FMA on the GPU stays within them.
  bool tf32 = false;
  // cuBLASLt's workspace in the arena when the program has a matmul it runs (NVIDIA's advice
  // for Hopper: 32 MiB); the heuristic picks only algorithms that fit.
  int64_t library_workspace_bytes = 32 << 20;
};

class CudaProgram final : public Executable {
 public:
  // Checks the program (index bounds, divisors, byte counts, as the CPU runtime does) and its
  // source against it, compiles the source for the device's architecture, loads the cubins,
  // finds every launch's kernel (opting in to its dynamic shared memory above 48 KiB),
  // allocates the arena, packs the launches' parameters and picks each cuBLASLt matmul's
  // algorithm. Errors: those checks, no CUDA driver or device, NVRTC or cuBLASLt missing or
  // failing, a kernel missing from its cubin, the arena not fitting the device.
  static Expected<std::unique_ptr<Executable>> load(LoopProgram p, CudaProgramSource source,
                                                    const CudaRunOptions& options = {});

  Expected<std::vector<Tensor>> run(std::span<const Tensor> inputs) const override;
  // Times the program's runs with `inputs` resident on the device (resident_timing.h says what
  // is timed). Errors: what check_resident_timing refuses, the inputs not fitting the program,
  // an index out of range in any run (as run() reports it), and the driver's.
  Expected<ResidentTiming> time_resident(std::span<const Tensor> inputs, const ResidentTimingOptions& o = {}) const;
  const LoopProgram& program() const override { return p_; }
  // The temporaries' plan (256-byte aligned); arena_plan() has the whole device arena.
  const MemoryPlan& memory_plan() const override { return arena_.temporaries; }
  const BackendTimes& times() const override { return times_; }

  const CudaArenaPlan& arena_plan() const { return arena_; }
  const CubinCompileStats& compile_stats() const { return compile_stats_; }
  // The ops of the extern kernels that run on the host, in flat kernel order, each once (the
  // compile report shows them: each costs a copy of its operands to the host and back).
  const std::vector<OpKind>& host_copied_ops() const { return host_copied_ops_; }
  // The compile report's CUDA part, the driver's resource figures included (cuda_target_report.h).
  TargetReport target_report() const override { return target_report_; }

  ~CudaProgram() override;

 private:
  struct Device;  // the context, stream, modules, arena, launches and host staging (cuda_program.cc)
  CudaProgram();

  // Runs `kernels`, the first of which has flat index `first`, in order.
  Status run_kernels(const std::vector<LoopKernel>& kernels, int first, std::span<const Tensor> inputs) const;
  Status run_control(const LoopKernel& k, int at, std::span<const Tensor> inputs) const;
  Status run_host_extern(const LoopKernel& k, std::span<const Tensor> inputs) const;
  Status run_library_matmul(size_t at) const;
  // Waits for the stream, then reads the error slot: an error when a kernel set it.
  Status check_error_slot(std::span<const Tensor> inputs) const;
  Status copy_inputs_in(std::span<const Tensor> inputs) const;
  Expected<std::vector<Tensor>> copy_outputs_out(std::span<const Tensor> inputs) const;

  LoopProgram p_;
  CudaArenaPlan arena_;
  CubinCompileStats compile_stats_;
  BackendTimes times_;
  std::vector<OpKind> host_copied_ops_;
  TargetReport target_report_;
  std::vector<int> ends_;            // per flat kernel: flat_kernel_ends (lower/loop_control.h)
  std::vector<bool> input_written_;  // per buffer: some kernel writes this input buffer
  std::unique_ptr<Device> device_;
};

}  // namespace kiln
