// User kernels in programs: calling a registered kernel eagerly and in capture, the
// kernel_call node, its functionalization (cloning exactly what the kernel writes, keeping the
// aliasing of arguments that share storage, which the reference loses), autograd around it,
// the CPU backend, and the errors a user can make. The kernels here are registered directly
// in the table with hand-written parameters and CPU implementations; registration from TTIR,
// PTX and CUDA source is tested in test_kernel_registration.cc.
#include <gtest/gtest.h>

#include <string>

#include "autograd/value_and_grad.h"
#include "backend/compile_graph.h"
#include "cpu_backend_util.h"
#include "frontend/call_kernel.h"
#include "frontend/capture.h"
#include "frontend/control_flow.h"
#include "frontend/functional.h"
#include "interp/interpreter.h"
#include "ir/printer.h"
#include "ops/user_kernel.h"
#include "passes/dce.h"
#include "passes/functionalize.h"
#include "runtime/cpu/cpu_backend.h"
#include "support/error.h"

namespace kiln {
namespace {

UserKernelParam pointer(std::string name, bool written) { return {std::move(name), "!tt.ptr<f32>", true, written, ""}; }
UserKernelParam scalar(std::string name) { return {std::move(name), "f32", false, false, ""}; }

float& at(const Tensor& t, int64_t i) { return t.data<float>()[i * t.strides()[0]]; }

// y += a * x over 1-d tensors; writes only y.
const UserKernel& axpy_kernel() {
  static const UserKernel* k = [] {
    UserKernel u;
    u.name = "test_axpy";
    u.function = "axpy";
    u.source_kind = "ttir";
    u.params = {pointer("x", false), pointer("y", true), scalar("a")};
    u.grid = [](std::span<const UserKernelArgInfo> args) -> std::optional<std::vector<int64_t>> {
      if (!args[1].shape->is_static()) return std::nullopt;
      return std::vector<int64_t>{(args[1].shape->sizes()[0] + 127) / 128};
    };
    u.cpu = [](std::span<UserKernelArg> args, std::span<const int64_t>) {
      const double a = args[2].scalar.to_double();
      for (int64_t i = 0; i < args[1].tensor.sizes()[0]; ++i)
        at(args[1].tensor, i) += static_cast<float>(a) * at(args[0].tensor, i);
      return Status::ok();
    };
    return *UserKernelTable::global().add(std::move(u));
  }();
  return *k;
}

// b[i] = 1, then c[i] = a[i]: when a and b are one tensor, c sees the ones (as on a GPU, where
// a program's load after its own store reads the stored value).
const UserKernel& store_then_read_kernel() {
  static const UserKernel* k = [] {
    UserKernel u;
    u.name = "test_store_then_read";
    u.function = "store_then_read";
    u.source_kind = "ttir";
    u.params = {pointer("a", false), pointer("b", true), pointer("c", true)};
    u.cpu = [](std::span<UserKernelArg> args, std::span<const int64_t>) {
      for (int64_t i = 0; i < args[1].tensor.sizes()[0]; ++i) at(args[1].tensor, i) = 1.0f;
      for (int64_t i = 0; i < args[2].tensor.sizes()[0]; ++i) at(args[2].tensor, i) = at(args[0].tensor, i);
      return Status::ok();
    };
    return *UserKernelTable::global().add(std::move(u));
  }();
  return *k;
}

Tensor arange_f32(int64_t n, double start = 0) {
  Tensor t = Tensor::empty({n}, DType::F32);
  for (int64_t i = 0; i < n; ++i) t.data<float>()[i] = static_cast<float>(start + static_cast<double>(i));
  return t;
}

std::unique_ptr<Graph> functionalized(const Graph& g, bool keep_input_mutations = true) {
  std::unique_ptr<Graph> copy = g.clone();
  auto info = functionalize(*copy, {.aliased_inputs = {}, .keep_input_mutations = keep_input_mutations});
  EXPECT_TRUE(info) << info.error().to_string();
  return copy;
}

TEST(UserKernels, EagerCallWritesInPlace) {
  axpy_kernel();
  Tensor x = arange_f32(4), y = arange_f32(4, 10);
  call_kernel("test_axpy", {x, y, 2.0});
  for (int64_t i = 0; i < 4; ++i) EXPECT_EQ(at(y, i), 10.0f + 3.0f * static_cast<float>(i));
  for (int64_t i = 0; i < 4; ++i) EXPECT_EQ(at(x, i), static_cast<float>(i));
}

TEST(UserKernels, CaptureRecordsASideEffectingNodeWithWrittenArgsAndGrid) {
  axpy_kernel();
  auto fn = [](std::span<const Tensor> in) {
    call_kernel("test_axpy", {in[0], in[1], 0.5});
    return mul(in[1], 2.0);
  };
  auto c = capture(CaptureFn1(fn), {arange_f32(300), arange_f32(300, 1)}, {.input_names = {"x", "y"}});
  ASSERT_TRUE(c) << c.error().to_string();
  const std::string text = print_graph(*c->graph);
  EXPECT_NE(text.find("kernel_call(%x, %y, 0.5) {grid=[3], kernel=\"test_axpy\", written=[1]} : ()"), std::string::npos)
      << text;
  // The captured graph runs in the interpreter with the kernel's effect in place.
  Tensor x = arange_f32(300), y = arange_f32(300, 1);
  auto out = c->run(std::vector<Tensor>{x, y});
  ASSERT_TRUE(out) << out.error().to_string();
  EXPECT_EQ(at((*out)[0], 7), 2.0f * (8.0f + 0.5f * 7.0f));
  EXPECT_EQ(at(y, 7), 8.0f + 0.5f * 7.0f);
}

TEST(UserKernels, DeadCodeEliminationKeepsAKernelWhoseWritesAreNotReadInTheGraph) {
  axpy_kernel();
  auto fn = [](std::span<const Tensor> in) {
    call_kernel("test_axpy", {in[0], in[1], 1.0});
    return add(in[0], 1.0);
  };
  auto c = capture(CaptureFn1(fn), {arange_f32(8), arange_f32(8)});
  ASSERT_TRUE(c) << c.error().to_string();
  eliminate_dead_code(*c->graph);
  EXPECT_NE(print_graph(*c->graph).find("kernel_call("), std::string::npos);
  // Functionalized, the write into the input comes back as a write-back, so the call stays.
  std::unique_ptr<Graph> f = functionalized(*c->graph);
  eliminate_dead_code(*f);
  const std::string text = print_graph(*f);
  EXPECT_NE(text.find("kernel_call_functional("), std::string::npos) << text;
  EXPECT_NE(text.find("copy_(%x1, %0)"), std::string::npos) << text;
}

TEST(UserKernels, FunctionalizationClonesOnlyWhatTheKernelWrites) {
  axpy_kernel();
  auto fn = [](std::span<const Tensor> in) {
    call_kernel("test_axpy", {in[0], in[1], 3.0});
    return add(in[1], in[0]);
  };
  auto c = capture(CaptureFn1(fn), {arange_f32(5), arange_f32(5)}, {.input_names = {"x", "y"}});
  ASSERT_TRUE(c) << c.error().to_string();
  std::unique_ptr<Graph> f = functionalized(*c->graph, /*keep_input_mutations=*/false);
  const std::string text = print_graph(*f);
  EXPECT_NE(
      text.find("%0 = kernel_call_functional(%x, %y, 3.0) {grid=[1], kernel=\"test_axpy\", written=[1]} : f32[5]"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("%1 = add(%0, %x)"), std::string::npos) << text;
  // The functional graph leaves its inputs alone and returns y's new value as a write-back.
  Tensor x = arange_f32(5), y = arange_f32(5, 100);
  auto out = interpret(*f, std::vector<Tensor>{x, y});
  ASSERT_TRUE(out) << out.error().to_string();
  ASSERT_EQ(out->size(), 2u);
  EXPECT_EQ(at((*out)[1], 2), 100.0f + 2.0f + 3.0f * 2.0f);
  EXPECT_EQ(at((*out)[0], 2), 108.0f + 2.0f);
  EXPECT_EQ(at(y, 2), 102.0f);
}

// The reference clones each written argument separately, so a kernel called with one tensor
// for a read argument and a written one reads the stale original: wrong results, silently.
// kiln passes both as views of one clone of their storage, as eager execution shares it.
TEST(UserKernels, ArgumentsThatShareStorageStayAliasedAfterFunctionalization) {
  store_then_read_kernel();
  auto fn = [](std::span<const Tensor> in) {
    Tensor c = zeros({6});
    call_kernel("test_store_then_read", {in[0], in[0], c});
    return c;
  };
  Tensor eager_x = arange_f32(6, 5);
  Tensor eager_c = fn(std::vector<Tensor>{eager_x});
  for (int64_t i = 0; i < 6; ++i) ASSERT_EQ(at(eager_c, i), 1.0f) << "eager: c reads the ones stored into a";

  auto c = capture(CaptureFn1(fn), {arange_f32(6, 5)}, {.input_names = {"x"}});
  ASSERT_TRUE(c) << c.error().to_string();
  std::unique_ptr<Graph> f = functionalized(*c->graph);
  const std::string text = print_graph(*f);
  EXPECT_NE(text.find("kernel_call_functional(%x, %x, %0) {kernel=\"test_store_then_read\", "
                      "views=[0, 0, 0, 1, 6, 1, 1, 0, 0, 1, 6, 1], written=[1, 2]}"),
            std::string::npos)
      << text;
  Tensor x = arange_f32(6, 5);
  auto out = interpret(*f, std::vector<Tensor>{x});
  ASSERT_TRUE(out) << out.error().to_string();
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(at((*out)[0], i), 1.0f) << i;
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(at(x, i), 1.0f) << "the write-back updates x";
}

TEST(UserKernels, OverlappingViewsOfOneBaseShareTheCloneAndTheBaseIsWrittenBack) {
  store_then_read_kernel();
  auto fn = [](std::span<const Tensor> in) {
    Tensor read = slice(in[0], 0, 2, 6), written = slice(in[0], 0, 0, 4);
    Tensor c = zeros({4});
    call_kernel("test_store_then_read", {read, written, c});  // c = [1, 1, x4, x5]
    return c;
  };
  Tensor eager_x = arange_f32(8, 1);
  Tensor eager_c = fn(std::vector<Tensor>{eager_x});
  EXPECT_EQ(at(eager_c, 1), 1.0f);
  EXPECT_EQ(at(eager_c, 2), 5.0f);
  auto c = capture(CaptureFn1(fn), {arange_f32(8, 1)}, {.input_names = {"x"}});
  ASSERT_TRUE(c) << c.error().to_string();
  std::unique_ptr<Graph> f = functionalized(*c->graph);
  Tensor x = arange_f32(8, 1);
  auto out = interpret(*f, std::vector<Tensor>{x});
  ASSERT_TRUE(out) << out.error().to_string();
  EXPECT_TRUE((*out)[0].equal(eager_c)) << print_graph(*f) << (*out)[0].to_string();
  EXPECT_TRUE(x.equal(eager_x)) << x.to_string();
}

TEST(UserKernels, KernelResultsAreConstantsToAutograd) {
  axpy_kernel();
  // loss = sum(w * kernel(x)): d/dw = the kernel's output, d/dx = 0 (no derivative registered).
  auto fn = [](std::span<const Tensor> in) {
    Tensor y = zeros({4});
    call_kernel("test_axpy", {in[1], y, 2.0});
    return sum(mul(in[0], y));
  };
  auto c = capture(CaptureFn1(fn), {arange_f32(4, 1), arange_f32(4)}, {.input_names = {"w", "x"}});
  ASSERT_TRUE(c) << c.error().to_string();
  auto r = value_and_grad(*c->graph, std::vector<Tensor>{arange_f32(4, 1), arange_f32(4)});
  ASSERT_TRUE(r) << r.error().to_string();
  ASSERT_EQ(r->grads.size(), 2u);
  for (int64_t i = 0; i < 4; ++i) {
    EXPECT_EQ(at(r->grads[0], i), 2.0f * static_cast<float>(i)) << "d/dw";
    EXPECT_EQ(at(r->grads[1], i), 0.0f) << "d/dx";
  }
  EXPECT_EQ(r->values[0].item_double(), 2.0 * (0 * 1 + 1 * 2 + 2 * 3 + 3 * 4));
}

TEST(UserKernels, CompiledForTheCpuTheCallRunsItsReferenceAndMatchesTheInterpreter) {
  axpy_kernel();
  auto fn = [](std::span<const Tensor> in) {
    Tensor y = mul(in[1], 3.0);
    call_kernel("test_axpy", {in[0], y, -1.5});
    return relu(add(y, in[0]));
  };
  auto c = capture(CaptureFn1(fn), {arange_f32(16), arange_f32(16, -8)}, {.input_names = {"x", "y"}});
  ASSERT_TRUE(c) << c.error().to_string();
  std::unique_ptr<Graph> f = functionalized(*c->graph);
  auto compiled = compile_graph(*f, CpuBackend({.compile = test_compile_options()}));
  ASSERT_TRUE(compiled) << compiled.error().to_string();
  std::vector<Tensor> in{arange_f32(16), arange_f32(16, -8)};
  auto got = compiled->run(in);
  auto want = interpret(*f, in);
  ASSERT_TRUE(got) << got.error().to_string();
  ASSERT_TRUE(want) << want.error().to_string();
  EXPECT_TRUE((*got)[0].equal((*want)[0]));
}

// A call inside a cond branch: the CPU backend functionalizes the graph when any subgraph
// calls a user kernel too (the call writes y in place), then lowers the branch into a control
// kernel; the compiled result matches the interpreter's on either branch.
TEST(UserKernels, ACallInsideABranchIsFunctionalizedAndCompiled) {
  axpy_kernel();
  auto fn = [](std::span<const Tensor> in) {
    return cond(
        gt(sum(in[0]), 0.0),
        [](std::span<const Tensor> a) {
          Tensor y = mul(a[1], 3.0);
          call_kernel("test_axpy", {a[0], y, -1.5});
          return std::vector<Tensor>{relu(add(y, a[0]))};
        },
        [](std::span<const Tensor> a) { return std::vector<Tensor>{neg(a[0])}; }, {in[0], in[1]})[0];
  };
  auto c = capture(CaptureFn1(fn), {arange_f32(16), arange_f32(16, -8)}, {.input_names = {"x", "y"}});
  ASSERT_TRUE(c) << c.error().to_string();
  auto compiled = compile_graph(*c->graph, CpuBackend({.compile = test_compile_options()}));
  ASSERT_TRUE(compiled) << compiled.error().to_string();
  const std::string lowered = print_graph(compiled->graph());
  EXPECT_NE(lowered.find("kernel_call_functional("), std::string::npos) << lowered;
  for (double sign : {1.0, -1.0}) {
    std::vector<Tensor> in{mul(arange_f32(16, 1), sign), arange_f32(16, -8)};
    auto got = compiled->run(in);
    auto want = interpret(*c->graph, in);
    ASSERT_TRUE(got) << got.error().to_string();
    ASSERT_TRUE(want) << want.error().to_string();
    EXPECT_TRUE((*got)[0].equal((*want)[0])) << "sign " << sign;
  }
}

TEST(UserKernels, ErrorsNameTheKernelAndTheArgument) {
  axpy_kernel();
  auto message = [](auto&& f) {
    try {
      f();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message([] { call_kernel("no_such_kernel", {}); }).find("no user kernel named 'no_such_kernel'"),
            std::string::npos);
  EXPECT_NE(message([] {
              call_kernel("test_axpy", {arange_f32(2)});
            }).find("kernel 'test_axpy' has 3 parameters, but 1 arguments were given"),
            std::string::npos);
  EXPECT_NE(message([] {
              call_kernel("test_axpy", {arange_f32(2), 1.0, 1.0});
            }).find("argument 1 of kernel 'test_axpy' (y: !tt.ptr<f32>) must be a tensor"),
            std::string::npos);
  UserKernel gpu_only;
  gpu_only.name = "test_gpu_only";
  gpu_only.params = {pointer("out", true)};
  ASSERT_TRUE(UserKernelTable::global().add(std::move(gpu_only)));
  EXPECT_NE(message([] { call_kernel("test_gpu_only", {arange_f32(2)}); }).find("has no CPU implementation"),
            std::string::npos);
  // Registering another kernel under a taken name is refused.
  UserKernel other;
  other.name = "test_axpy";
  other.ir = "different";
  auto added = UserKernelTable::global().add(std::move(other));
  ASSERT_FALSE(added);
  EXPECT_NE(added.error().message().find("already registered as 'test_axpy'"), std::string::npos);
}

}  // namespace
}  // namespace kiln
