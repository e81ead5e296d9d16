#include "runtime/cpu/cpu_backend.h"

#include "support/check.h"

namespace kiln {

namespace {

BackendPolicy cpu_policy(const CpuBackendOptions& o) {
  BackendPolicy p;
  if (o.extern_linear)
    p.kept_whole.push_back({OpKind::Linear, "one extern kernel: the matmul library adds the bias as it writes"});
  // The CUDA backend decomposes conv2d (im2col, one cuBLASLt matmul); the CPU keeps the extern
  // kernel it had (an im2col through its matmul library is unmeasured here).
  p.kept_whole.push_back({OpKind::Conv2d, "one extern kernel: the op's reference convolution"});
  if (o.welford)
    for (OpKind op : {OpKind::Var, OpKind::Std})
      p.kept_whole.push_back({op, "one Welford pass over the data, a mean beside it from the same accumulator"});
  return p;
}

class CpuExecutable final : public Executable {
 public:
  explicit CpuExecutable(CompiledProgram program) : program_(std::move(program)) {
    const CompileStats& s = program_.stats();
    times_ = {.emit = s.emit_seconds,
              .compile = s.toolchain_seconds + s.lookup_seconds + s.compile_seconds,
              .load = s.load_seconds};
  }

  Expected<std::vector<Tensor>> run(std::span<const Tensor> inputs) const override { return program_.run(inputs); }
  const LoopProgram& program() const override { return program_.program(); }
  const MemoryPlan& memory_plan() const override { return program_.memory_plan(); }
  const BackendTimes& times() const override { return times_; }

  const CompiledProgram& cpu_program() const { return program_; }

 private:
  CompiledProgram program_;
  BackendTimes times_;
};

}  // namespace

CpuBackend::CpuBackend(CpuBackendOptions options) : options_(std::move(options)), policy_(cpu_policy(options_)) {}

std::string CpuBackend::emit(const LoopProgram& p) const { return emit_cpp(p, options_.compile.emit); }

Expected<std::unique_ptr<Executable>> CpuBackend::compile(LoopProgram p) const {
  KILN_ASSIGN_OR_RETURN(CompiledProgram c, CompiledProgram::compile(std::move(p), options_.compile));
  return std::unique_ptr<Executable>(std::make_unique<CpuExecutable>(std::move(c)));
}

const CompiledProgram& cpu_program(const CompiledGraph& c) {
  const auto* cpu = dynamic_cast<const CpuExecutable*>(&c.executable());
  KILN_CHECK(cpu) << "graph @" << c.graph().name() << " was not compiled by the CPU backend";
  return cpu->cpu_program();
}

}  // namespace kiln
