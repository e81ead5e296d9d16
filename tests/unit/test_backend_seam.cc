// The backend seam (backend/backend.h, backend/compile_graph.h, runtime/backend_registry.h):
// the registry finds a backend by device, the CPU's policy follows its options, and the driver
// is target-neutral: a backend that runs loop programs in the loop-IR evaluator compiles and
// runs through it exactly as the CPU does, its policy deciding what is decomposed.
#include <gtest/gtest.h>

#include <algorithm>

#include "backend/compile_graph.h"
#include "cpu_backend_util.h"
#include "graph_text.h"
#include "interp/interpreter.h"
#include "lower/loop_eval.h"
#include "lower/loop_text.h"
#include "runtime/backend_registry.h"
#include "support/error.h"

namespace kiln {
namespace {

// A backend of this test only: its "source" is the loop IR's text, its executor the evaluator.
class EvaluatorBackend final : public Backend {
 public:
  explicit EvaluatorBackend(BackendPolicy policy) : policy_(std::move(policy)) {}
  Device device() const override { return Device::cpu(); }
  std::string name() const override { return "evaluator"; }
  const BackendPolicy& policy() const override { return policy_; }
  std::string emit(const LoopProgram& p) const override { return print_loops(p); }
  SourceFormat source_format() const override { return {"loop IR", "txt"}; }
  Expected<std::unique_ptr<Executable>> compile(LoopProgram p) const override {
    return std::unique_ptr<Executable>(std::make_unique<Evaluated>(std::move(p)));
  }

 private:
  class Evaluated final : public Executable {
   public:
    explicit Evaluated(LoopProgram p) : program_(std::move(p)), plan_(plan_memory(program_)) {}
    Expected<std::vector<Tensor>> run(std::span<const Tensor> inputs) const override {
      return eval_loops(program_, inputs);
    }
    const LoopProgram& program() const override { return program_; }
    const MemoryPlan& memory_plan() const override { return plan_; }
    const BackendTimes& times() const override { return times_; }

   private:
    LoopProgram program_;
    MemoryPlan plan_;
    BackendTimes times_{.emit = 0, .compile = 0, .load = 0};
  };
  BackendPolicy policy_;
};

constexpr const char* kSoftmax = R"(graph @sm(%x: f32[4,8]) -> (f32[4,8]) {
  %0 = softmax(%x) {dim=1} : f32[4,8]
  return %0
})";

bool has_extern(const LoopProgram& p, OpKind op) {
  return std::ranges::any_of(p.kernels,
                             [op](const LoopKernel& k) { return k.kind == KernelKind::Extern && k.op == op; });
}

TEST(BackendRegistry, CpuAndCudaHaveBackends) {
  Expected<std::unique_ptr<Backend>> cpu = backend_for(Device::cpu());
  ASSERT_TRUE(cpu) << cpu.error().to_string();
  EXPECT_EQ((*cpu)->device(), Device::cpu());
  EXPECT_EQ((*cpu)->name(), "CPU");
  Expected<std::unique_ptr<Backend>> cuda = backend_for(Device::cuda(2));
  ASSERT_TRUE(cuda) << cuda.error().to_string();
  EXPECT_EQ((*cuda)->device(), Device::cuda(2));
  EXPECT_EQ((*cuda)->name(), "CUDA");
}

// The CUDA backend compiles through runtime/cuda's CudaProgram: without a driver (here, and in
// CI) that is an error naming the program, never a crash or a silent CPU run. Which error the
// driver layer gives depends on what an earlier test of this process loaded (the toolkit's
// stub answers cuInit with its own), so only the program's part is checked.
TEST(CudaBackend, CompilingWithoutADriverIsAnErrorNamingTheProgram) {
  const CudaBackend cuda;
  LoopProgram p;
  p.name = "f";
  Expected<std::unique_ptr<Executable>> e = cuda.compile(p);
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().to_string().find("while loading loops @f for the GPU"), std::string::npos)
      << e.error().to_string();
}

TEST(CpuBackend, PolicyFollowsItsOptions) {
  const CpuBackend whole;
  for (OpKind op : {OpKind::Linear, OpKind::Conv2d, OpKind::Var, OpKind::Std})
    EXPECT_TRUE(whole.policy().keeps_whole(op));
  EXPECT_FALSE(whole.policy().keeps_whole(OpKind::Softmax));
  const std::vector<OpKind> decomposed = decomposed_ops(whole.policy());
  EXPECT_EQ(std::ranges::count(decomposed, OpKind::Linear), 0);
  EXPECT_EQ(std::ranges::count(decomposed, OpKind::Softmax), 1);

  // conv2d stays its extern kernel whatever the options (the CUDA backend decomposes it).
  const CpuBackend split({.extern_linear = false, .welford = false});
  ASSERT_EQ(split.policy().kept_whole.size(), 1u);
  EXPECT_EQ(split.policy().kept_whole[0].op, OpKind::Conv2d);
  EXPECT_EQ(std::ranges::count(decomposed_ops(split.policy()), OpKind::Linear), 1);
}

// The driver asks the backend's policy: softmax kept whole stays one extern kernel, otherwise
// it becomes loops; both run to the interpreter's answer through the backend's executor.
TEST(CompileGraph, PolicyDecidesWhatIsDecomposed) {
  std::unique_ptr<Graph> g = parse_or_fail(kSoftmax);
  const std::vector<Tensor> inputs = {Tensor::randn({4, 8}, 3)};
  const std::vector<Tensor> want = value_or_throw(interpret(*g, inputs));
  for (bool keep : {true, false}) {
    BackendPolicy policy;
    if (keep) policy.kept_whole.push_back({OpKind::Softmax, "a test keeps it"});
    const EvaluatorBackend backend(policy);
    Expected<CompiledGraph> c = compile_graph(*g, backend);
    ASSERT_TRUE(c) << c.error().to_string();
    EXPECT_EQ(has_extern(c->executable().program(), OpKind::Softmax), keep);
    const std::vector<Tensor> got = value_or_throw(c->run(inputs));
    ASSERT_EQ(got.size(), 1u);
    expect_close(want[0], got[0], keep ? "kept whole" : "decomposed");
  }
}

// Its decomposition off, the driver decomposes nothing whatever the policy says.
TEST(CompileGraph, DecomposeOffKeepsEveryOpWhole) {
  std::unique_ptr<Graph> g = parse_or_fail(kSoftmax);
  Expected<LoopProgram> p = lower_graph_for(*g, EvaluatorBackend({}), {.decompose = false});
  ASSERT_TRUE(p) << p.error().to_string();
  EXPECT_TRUE(has_extern(*p, OpKind::Softmax));
}

// The CPU backend through the driver: the phase times add up and the report's source is its C++.
TEST(CompileGraph, CpuBackendTimesItsPhases) {
  std::unique_ptr<Graph> g = parse_or_fail(kSoftmax);
  const CpuBackend backend({.compile = test_compile_options()});
  Expected<CompiledGraph> c = compile_graph(*g, backend);
  ASSERT_TRUE(c) << c.error().to_string();
  const GraphPhaseTimes& t = c->times();
  EXPECT_GT(t.backend.emit, 0);
  EXPECT_GT(t.total(), t.passes + t.lowering + t.scheduling);
  EXPECT_NE(backend.emit(c->executable().program()).find("#include"), std::string::npos);
  EXPECT_EQ(&cpu_program(*c).program(), &c->executable().program());
}

}  // namespace
}  // namespace kiln
