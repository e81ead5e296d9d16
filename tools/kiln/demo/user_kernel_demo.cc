// The user-kernel part of `kiln demo` (demo/user_kernel_demo.h).
#include "demo/user_kernel_demo.h"

#include <cstdio>

#include "frontend/call_kernel.h"
#include "frontend/capture.h"
#include "interp/interpreter.h"
#include "ir/printer.h"
#include "kernels/register_kernel.h"
#include "passes/dce.h"
#include "passes/functionalize.h"
#include "support/error.h"

namespace kiln::demo {

namespace {

// Triton's add_kernel(in0, in1, out, n, BLOCK) as PyTorch 2.11 lowers it to TTIR (Triton 3.6;
// tests/kernels/ttir/add_kernel.ttir, made by tools/kernels/triton_corpus.py): out = in0 + in1
// over the first n = 1000 elements, n and BLOCK baked in as constants.
constexpr const char* kAddKernelTtir = R"ttir(#loc = loc("/work/main/tools/kernels/triton_corpus.py":35:0)
#loc14 = loc("in0"(#loc))
#loc15 = loc("in1"(#loc))
#loc16 = loc("out"(#loc))
module {
  tt.func public @add_kernel(%in0: !tt.ptr<f32> {tt.divisibility = 16 : i32} loc("in0"(#loc)), %in1: !tt.ptr<f32> {tt.divisibility = 16 : i32} loc("in1"(#loc)), %out: !tt.ptr<f32> {tt.divisibility = 16 : i32} loc("out"(#loc))) attributes {noinline = false} {
    %offs = tt.get_program_id x : i32 loc(#loc17)
    %offs_0 = arith.constant 128 : i32 loc(#loc18)
    %offs_1 = arith.constant 128 : i32 loc(#loc18)
    %offs_2 = arith.extsi %offs : i32 to i64 loc(#loc18)
    %offs_3 = arith.extsi %offs_1 : i32 to i64 loc(#loc18)
    %offs_4 = arith.muli %offs_2, %offs_3 : i64 loc(#loc18)
    %offs_5 = arith.constant 2147483647 : i64 loc(#loc18)
    %offs_6 = arith.constant -2147483648 : i64 loc(#loc18)
    %offs_7 = arith.cmpi sle, %offs_4, %offs_5 : i64 loc(#loc18)
    %offs_8 = arith.cmpi sge, %offs_4, %offs_6 : i64 loc(#loc18)
    %offs_9 = arith.andi %offs_7, %offs_8 : i1 loc(#loc18)
    %offs_10 = arith.muli %offs, %offs_1 : i32 loc(#loc18)
    %offs_11 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32> loc(#loc19)
    %offs_12 = tt.splat %offs_10 : i32 -> tensor<128xi32> loc(#loc20)
    %offs_13 = arith.extsi %offs_12 : tensor<128xi32> to tensor<128xi64> loc(#loc20)
    %offs_14 = arith.extsi %offs_11 : tensor<128xi32> to tensor<128xi64> loc(#loc20)
    %offs_15 = arith.addi %offs_13, %offs_14 : tensor<128xi64> loc(#loc20)
    %offs_16 = arith.constant 2147483647 : i64 loc(#loc20)
    %offs_17 = arith.constant -2147483648 : i64 loc(#loc20)
    %offs_18 = arith.constant dense<2147483647> : tensor<128xi64> loc(#loc20)
    %offs_19 = arith.cmpi sle, %offs_15, %offs_18 : tensor<128xi64> loc(#loc20)
    %offs_20 = arith.constant dense<-2147483648> : tensor<128xi64> loc(#loc20)
    %offs_21 = arith.cmpi sge, %offs_15, %offs_20 : tensor<128xi64> loc(#loc20)
    %offs_22 = arith.andi %offs_19, %offs_21 : tensor<128xi1> loc(#loc20)
    %offs_23 = arith.addi %offs_12, %offs_11 : tensor<128xi32> loc(#loc20)
    %m = arith.constant 1000 : i32 loc(#loc21)
    %m_24 = arith.constant dense<1000> : tensor<128xi32> loc(#loc21)
    %m_25 = arith.cmpi slt, %offs_23, %m_24 : tensor<128xi32> loc(#loc21)
    %0 = tt.splat %out : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>> loc(#loc6)
    %1 = tt.addptr %0, %offs_23 : tensor<128x!tt.ptr<f32>>, tensor<128xi32> loc(#loc6)
    %2 = tt.splat %in0 : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>> loc(#loc7)
    %3 = tt.addptr %2, %offs_23 : tensor<128x!tt.ptr<f32>>, tensor<128xi32> loc(#loc7)
    %4 = tt.load %3, %m_25 : tensor<128x!tt.ptr<f32>> loc(#loc8)
    %5 = tt.splat %in1 : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>> loc(#loc9)
    %6 = tt.addptr %5, %offs_23 : tensor<128x!tt.ptr<f32>>, tensor<128xi32> loc(#loc9)
    %7 = tt.load %6, %m_25 : tensor<128x!tt.ptr<f32>> loc(#loc10)
    %8 = arith.addf %4, %7 : tensor<128xf32> loc(#loc11)
    tt.store %1, %8, %m_25 : tensor<128x!tt.ptr<f32>> loc(#loc12)
    tt.return loc(#loc13)
  } loc(#loc)
} loc(#loc)
#loc1 = loc("/work/main/tools/kernels/triton_corpus.py":36:25)
#loc2 = loc("/work/main/tools/kernels/triton_corpus.py":36:30)
#loc3 = loc("/work/main/tools/kernels/triton_corpus.py":36:51)
#loc4 = loc("/work/main/tools/kernels/triton_corpus.py":36:38)
#loc5 = loc("/work/main/tools/kernels/triton_corpus.py":37:15)
#loc6 = loc("/work/main/tools/kernels/triton_corpus.py":38:19)
#loc7 = loc("/work/main/tools/kernels/triton_corpus.py":38:39)
#loc8 = loc("/work/main/tools/kernels/triton_corpus.py":38:33)
#loc9 = loc("/work/main/tools/kernels/triton_corpus.py":38:69)
#loc10 = loc("/work/main/tools/kernels/triton_corpus.py":38:63)
#loc11 = loc("/work/main/tools/kernels/triton_corpus.py":38:55)
#loc12 = loc("/work/main/tools/kernels/triton_corpus.py":38:25)
#loc13 = loc("/work/main/tools/kernels/triton_corpus.py":38:4)
#loc17 = loc("offs"(#loc1))
#loc18 = loc("offs"(#loc2))
#loc19 = loc("offs"(#loc3))
#loc20 = loc("offs"(#loc4))
#loc21 = loc("m"(#loc5)))ttir";

constexpr int64_t kElements = 1000;  // the n baked into the TTIR

// The kernel's effect on the CPU: what each of its programs does, over the whole grid.
Status add_kernel_cpu(std::span<UserKernelArg> args, std::span<const int64_t>) {
  const Tensor &in0 = args[0].tensor, &in1 = args[1].tensor, &out = args[2].tensor;
  for (int64_t i = 0; i < kElements; ++i) {
    out.data<float>()[i * out.strides()[0]] =
        in0.data<float>()[i * in0.strides()[0]] + in1.data<float>()[i * in1.strides()[0]];
  }
  return Status::ok();
}

void print_analysis(const UserKernel& k) {
  std::printf("registered user kernel '%s' from TTIR; its mutation analysis (%.2f ms):\n", k.name.c_str(),
              k.analysis_ms);
  for (const UserKernelParam& p : k.params)
    std::printf("  %-4s %-13s %s\n", p.name.c_str(), p.type.c_str(), p.written ? "written" : "read-only");
}

// out = x + y, then out += y in place (the kernel's in0 and out are one tensor), halved.
Tensor program(const Tensor& x, const Tensor& y) {
  Tensor out = zeros_like(x);
  call_kernel("add_kernel", {x, y, out});
  call_kernel("add_kernel", {out, y, out});
  return mul(out, 0.5);
}

}  // namespace

bool user_kernel_tour() {
  kernels::KernelRegistration r;
  r.source = {kernels::KernelSourceKind::Ttir, kAddKernelTtir, "add_kernel.ttir"};
  r.grid = [](std::span<const UserKernelArgInfo>) -> std::optional<std::vector<int64_t>> {
    return std::vector<int64_t>{(kElements + 127) / 128};
  };
  r.cpu = add_kernel_cpu;
  Expected<const UserKernel*> k = kernels::register_kernel(std::move(r));
  if (!k) {
    std::fprintf(stderr, "%s\n", k.error().to_string().c_str());
    return false;
  }
  std::printf("\n");
  print_analysis(**k);
  auto fn = [](std::span<const Tensor> in) { return program(in[0], in[1]); };
  Expected<Captured> c = capture(CaptureFn1(fn), {Tensor::randn({kElements}, 5), Tensor::randn({kElements}, 6)},
                                 {.name = "with_kernel", .input_names = {"x", "y"}});
  if (!c) {
    std::fprintf(stderr, "%s\n", c.error().to_string().c_str());
    return false;
  }
  std::printf("captured (kernel_call writes its `written` arguments in place):\n%s\n", print_graph(*c->graph).c_str());
  std::unique_ptr<Graph> f = c->graph->clone();
  Expected<ViewAndMutationInfo> info = functionalize(*f);
  if (!info) {
    std::fprintf(stderr, "%s\n", info.error().to_string().c_str());
    return false;
  }
  eliminate_dead_code(*f);
  std::printf(
      "functionalized (only `out` is cloned; the in-place call passes in0 and out as views of one value):\n%s\n",
      print_graph(*f).c_str());
  const Tensor x = Tensor::randn({kElements}, 7), y = Tensor::randn({kElements}, 8);
  Tensor eager;
  try {
    eager = program(x, y);
  } catch (const Error& e) {
    std::fprintf(stderr, "%s\n", e.diagnostic().to_string().c_str());
    return false;
  }
  Expected<std::vector<Tensor>> ran = interpret(*f, std::vector<Tensor>{x, y});
  const bool agree = ran && (*ran)[0].equal(eager);
  std::printf("eager and the functionalized graph in the interpreter %s\n", agree ? "agree exactly" : "DISAGREE");
  return agree;
}

}  // namespace kiln::demo
