// CompileOptions (train/compile_options.h) and kiln::compile (train/compiled_function.h): the one
// value that selects the backend, the device, the memory budget and the CPU backend's options
// for compile, value_and_grad and compile_train_step.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cpu_backend_util.h"
#include "frontend/functional.h"
#include "frontend/nn.h"
#include "support/error.h"
#include "train/compiled_function.h"
#include "train/train_step.h"
#include "train/value_and_grad_fn.h"

namespace kiln {
namespace {

// Compiled for the CPU, with this test process's kernel cache.
CompileOptions on_cpu() { return {.device = Device::cpu(), .backends = {.cpu = {.compile = test_compile_options()}}}; }

double max_difference(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.sizes(), b.sizes());
  double worst = 0;
  for (int64_t i = 0; i < a.numel(); ++i) worst = std::fmax(worst, std::fabs(a.item_double(i) - b.item_double(i)));
  return worst;
}

struct Net : nn::Module {
  nn::Linear fc{6, 4, true, 3};
  Net() { register_module("fc", fc); }
  Tensor forward(const Tensor& x) { return gelu(fc(x)); }
};

CaptureFn1 net_forward(Net& net) {
  return [&net](std::span<const Tensor> in) { return net.forward(in[0]); };
}

TEST(CompileOptions, DefaultCompilesForTheCpu) {
  const CompileOptions o;
  EXPECT_TRUE(o.device.is_cpu());
  EXPECT_EQ(o.execution, Execution::Compiled);
  const RunnerOptions r = runner_options(o);
  EXPECT_EQ(r.execution, Execution::Compiled);
  EXPECT_TRUE(r.device.is_cpu());
}

TEST(CompileOptions, GradOptionsCarryTheBudgetPartitionerAndCpuOptions) {
  const CompileOptions o{.execution = Execution::Interpreter,
                         .memory_budget = 0.25,
                         .partition = PartitionKind::Default,
                         .run_joint_passes = false,
                         .backends = {.cpu = {.compile = {.cache_dir = "/somewhere"}}},
                         .seed = 17};
  const GradOptions g = grad_options(o, {.wrt = {"w"}});
  EXPECT_EQ(g.joint.wrt, std::vector<std::string>{"w"});
  EXPECT_EQ(g.partition.kind, PartitionKind::Default);
  EXPECT_EQ(g.partition.memory_budget, 0.25);
  EXPECT_FALSE(g.run_joint_passes);
  EXPECT_EQ(g.runner.execution, Execution::Interpreter);
  EXPECT_EQ(g.runner.backends.cpu.compile.cache_dir, "/somewhere");
  EXPECT_EQ(g.seed, 17u);
  EXPECT_EQ(g.report, nullptr);
}

TEST(Compile, CompiledForTheCpuMatchesEager) {
  Net net;
  const Tensor x = Tensor::randn({5, 6}, 1);
  CompiledFunction f = compile(net_forward(net), {x}, on_cpu());
  const std::vector<Tensor> y = f({x});
  ASSERT_EQ(y.size(), 1u);
  EXPECT_LT(max_difference(y[0], net.forward(x)), 1e-5);
  EXPECT_TRUE(f.phase_times().seconds(Phase::Lowering).has_value()) << "the CPU backend's phases are timed";
}

// The interpreter is one option away and computes exactly what eager execution does.
TEST(Compile, InterpreterIsOneOptionAway) {
  Net net;
  const Tensor x = Tensor::randn({3, 6}, 2);
  CompiledFunction f = compile(net_forward(net), {x}, {.execution = Execution::Interpreter});
  EXPECT_TRUE(f({x})[0].equal(net.forward(x)));
  EXPECT_FALSE(f.phase_times().seconds(Phase::Lowering).has_value()) << "nothing was lowered";
}

// The module's parameters are lifted: a call reads their current values.
TEST(Compile, SeesParametersUpdatedInPlace) {
  Net net;
  const Tensor x = Tensor::randn({2, 6}, 3);
  CompiledFunction f = compile(net_forward(net), {x}, on_cpu(), {.module = &net});
  const Tensor before = f({x})[0];
  mul_(net.fc.weight, 2.0);
  const Tensor after = f({x})[0];
  EXPECT_LT(max_difference(after, net.forward(x)), 1e-5);
  EXPECT_GT(max_difference(after, before), 1e-3);
}

// A dim captured as symbolic: the compiled CPU backend specializes to each new size.
TEST(Compile, DynamicBatchSpecializesPerSize) {
  Net net;
  CompiledFunction f =
      compile(net_forward(net), {Tensor::randn({2, 6}, 4)}, on_cpu(), {.dynamic = {{0, "B"}}, .module = &net});
  for (int64_t batch : {7, 1, 7}) {
    const Tensor x = Tensor::randn({batch, 6}, static_cast<uint64_t>(batch));
    EXPECT_LT(max_difference(f({x})[0], net.forward(x)), 1e-5) << "batch " << batch;
  }
}

TEST(Compile, WrongInputCountIsAnError) {
  Net net;
  CompiledFunction f = compile(net_forward(net), {Tensor::randn({2, 6}, 5)}, on_cpu(), {.module = &net});
  try {
    f({});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("takes 1 inputs, given 0"), std::string::npos) << e.what();
  }
}

// Compiling for CUDA where there is no driver (here, CI) is an error naming the program, never a
// silent CPU run.
TEST(Compile, CudaDeviceWithoutADriverIsAnError) {
  Net net;
  try {
    compile(net_forward(net), {Tensor::randn({2, 6}, 6)}, {.device = Device::cuda(0)});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("for the GPU"), std::string::npos) << msg;
  }
  // The interpreter runs whatever the device says.
  CompiledFunction f = compile(net_forward(net), {Tensor::randn({2, 6}, 6)},
                               {.device = Device::cuda(0), .execution = Execution::Interpreter});
  EXPECT_EQ(f({Tensor::randn({2, 6}, 7)}).size(), 1u);
}

// The CPU backend's options flow from CompileOptions to the compiler: kernels land in the
// cache directory given there.
TEST(Compile, CpuOptionsReachTheKernelCache) {
  TempDir cache("kiln-compile-options-cache");
  Net net;
  CompileOptions o{.backends = {.cpu = {.compile = {.cache_dir = cache.path(), .jobs = 1}}}};
  compile(net_forward(net), {Tensor::randn({2, 6}, 8)}, o);
  bool any = false;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(cache.path()))
    any = any || entry.path().extension() == ".so";
  EXPECT_TRUE(any) << "no compiled kernel library under " << cache.path();
}

TEST(Compile, WritesTheCompileReport) {
  TempDir dir("kiln-compile-report");
  Net net;
  CompileOptions o = on_cpu();
  o.report_dir = dir.path() + "/fn";
  compile(net_forward(net), {Tensor::randn({2, 6}, 9)}, o);
  std::ifstream in(o.report_dir + "/index.html");
  ASSERT_TRUE(in) << "no index.html in " << o.report_dir;
  std::stringstream html;
  html << in.rdbuf();
  EXPECT_NE(html.str().find("compiled function @main"), std::string::npos);
  EXPECT_NE(html.str().find("forward after the CPU backend"), std::string::npos);
}

// value_and_grad with CompileOptions{.device = Device::cpu()}: compiled forward and backward,
// equal to the interpreter's within float32 rounding.
TEST(ValueAndGradCompileOptions, CompiledMatchesTheInterpreter) {
  CaptureFn1 f = [](std::span<const Tensor> in) { return sum(mul(tanh(in[0]), in[1])); };
  const std::vector<Tensor> xs = {Tensor::randn({4, 3}, 10), Tensor::randn({4, 3}, 11)};
  ValueAndGradFn compiled = value_and_grad(f, xs, on_cpu());
  ValueAndGradFn interpreted = value_and_grad(f, xs, CompileOptions{.execution = Execution::Interpreter});
  const ValueAndGrad got = compiled(xs), want = interpreted(xs);
  EXPECT_LT(max_difference(got.values[0], want.values[0]), 1e-5);
  ASSERT_EQ(got.grads.size(), 2u);
  for (size_t k = 0; k < 2; ++k) EXPECT_LT(max_difference(got.grads[k], want.grads[k]), 1e-5) << "gradient " << k;
}

// The memory budget reaches the partitioner: a budget of 0 saves no more than the default.
TEST(TrainStepCompileOptions, MemoryBudgetReachesThePartitioner) {
  struct Deep : nn::Module {
    nn::Linear a{8, 16, true, 1}, b{16, 16, true, 2}, c{16, 1, true, 3};
    Deep() {
      register_module("a", a);
      register_module("b", b);
      register_module("c", c);
    }
  };
  auto loss = [](Deep& m, std::span<const Tensor> batch) {
    return mse_loss(m.c(gelu(m.b(gelu(m.a(batch[0]))))), batch[1]);
  };
  const std::vector<Tensor> batch = {Tensor::randn({32, 8}, 1), Tensor::randn({32, 1}, 2)};
  Deep m;
  TrainStep full = compile_train_step(m, loss, batch, CompileOptions{.execution = Execution::Interpreter});
  TrainStep tight =
      compile_train_step(m, loss, batch, CompileOptions{.execution = Execution::Interpreter, .memory_budget = 0.0});
  EXPECT_LT(tight.grad_function().partition().saved_bytes, full.grad_function().partition().saved_bytes);
  EXPECT_NEAR(tight(batch).loss.item_double(0), full(batch).loss.item_double(0), 1e-12);
}

}  // namespace
}  // namespace kiln
