// Whatever reads tensors on the host given one on a device: the reference kernels (eager ops),
// the interpreter, the loop-IR evaluator and the CPU backend each name the device operand or
// input. And the CUDA memory kiln::kiln registers, on a machine without a driver.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backend/compile_graph.h"
#include "cpu_backend_util.h"
#include "device_tensor_util.h"
#include "fake_device_memory.h"
#include "frontend/functional.h"
#include "graph_text.h"
#include "interp/interpreter.h"
#include "lower/loop_eval.h"
#include "runtime/cpu/cpu_backend.h"
#include "runtime/cuda/cuda_driver.h"
#include "train/compiled_function.h"
#include "train/value_and_grad_fn.h"

namespace kiln {
namespace {

using device_test::contains;
using device_test::error_of;
using device_test::FakeDevice;

TEST(DeviceTensorRunners, EagerOpsNameTheDeviceOperand) {
  FakeDevice device;
  const Tensor a = Tensor::full({3}, 1.0);
  const Tensor b = Tensor::full({3}, 2.0).cuda();
  EXPECT_TRUE(contains(error_of([&] { (void)add(a, b); }),
                       "add: operand 1 is on cuda:0, and its reference kernel reads host memory only: pass it "
                       ".to(Device::cpu())"));
}

// This machine's own CUDA memory is registered by the runtime; without a driver it says why.
// (Which error CudaDriver::get() gives depends on the tests before: once the toolkit's stub is
// loaded, its soname answers for libcuda.so.1.)
TEST(DeviceTensorRunners, RealCudaMemoryIsRegistered) {
  Expected<const CudaDriver*> driver = CudaDriver::get();
  if (driver) GTEST_SKIP() << "this machine has a CUDA driver: tests/gpu covers it";
  EXPECT_EQ(error_of([] { (void)Tensor::zeros({2}).cuda(); }),
            "Tensor::to: no CUDA device: " + driver.error().message() + " (for f32[2])");
}

// ---- runners that read inputs on the host name the device input ----

constexpr const char* kRelu = R"(graph @r(%x: f32[4]) -> (f32[4]) {
  %0 = relu(%x) : f32[4]
  return %0
})";

TEST(DeviceTensorRunners, InterpreterNamesTheDeviceInput) {
  FakeDevice device;
  std::unique_ptr<Graph> g = parse_or_fail(kRelu);
  const std::vector<Tensor> inputs = {Tensor::randn({4}, 6).cuda()};
  Expected<std::vector<Tensor>> out = interpret(*g, inputs);
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().message(),
            "input %x is on cuda:0, and the reference interpreter reads host memory only: pass it .to(Device::cpu())");
}

TEST(DeviceTensorRunners, LoopEvaluatorAndCpuBackendNameTheDeviceInput) {
  FakeDevice device;
  std::unique_ptr<Graph> g = parse_or_fail(kRelu);
  const CpuBackend backend({.compile = test_compile_options()});
  Expected<CompiledGraph> compiled = compile_graph(*g, backend);
  ASSERT_TRUE(compiled) << compiled.error().to_string();
  const std::vector<Tensor> inputs = {Tensor::randn({4}, 7).cuda()};
  Expected<std::vector<Tensor>> out = compiled->run(inputs);
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().message(),
            "input %x is on cuda:0, and the CPU backend reads host memory only: pass it .to(Device::cpu())");
  Expected<std::vector<Tensor>> evaluated = eval_loops(compiled->executable().program(), inputs);
  ASSERT_FALSE(evaluated);
  EXPECT_EQ(evaluated.error().message(),
            "input %x is on cuda:0, and the loop-IR evaluator reads host memory only: pass it .to(Device::cpu())");
}

// The compiled entry points take host tensors on every backend (the CUDA backend's programs too,
// tests/gpu/cuda_training_gpu_test.cc): a device input fails naming the captured input.
TEST(DeviceTensorRunners, ValueAndGradAndCompileNameTheDeviceInput) {
  FakeDevice device;
  const CompileOptions cpu{.backends = {.cpu = {.compile = test_compile_options()}}};
  auto loss = [](std::span<const Tensor> in) { return sum(relu(in[0])); };
  const std::vector<Tensor> on_device = {Tensor::randn({4}, 8).cuda()};
  const std::string refused =
      "input %x is on cuda:0, and the CPU backend reads host memory only: pass it .to(Device::cpu())";
  const ValueAndGradFn grads =
      value_and_grad(loss, {Tensor::randn({4}, 9)}, ValueAndGradOptions{.input_names = {"x"}, .compile = cpu});
  EXPECT_EQ(error_of([&] { grads(on_device); }), refused);
  const CompiledFunction f = compile(loss, {Tensor::randn({4}, 9)}, cpu, {.input_names = {"x"}});
  EXPECT_EQ(error_of([&] { f(on_device); }), refused);
}

}  // namespace
}  // namespace kiln
