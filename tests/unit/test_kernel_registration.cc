// Registering user kernels from their sources (kernels/register_kernel.h): TTIR from the
// corpus, PTX, and CUDA C++ compiled by NVRTC (skipped where NVRTC is missing). The table
// gets the analysis' parameters and written set once; a graph calling a registered kernel is
// captured, differentiated around and run; bad sources give errors that say where.
#include <gtest/gtest.h>

#include <string>

#include "autograd/value_and_grad.h"
#include "frontend/call_kernel.h"
#include "frontend/capture.h"
#include "kernels/analyze_kernel.h"
#include "kernels/register_kernel.h"
#include "runtime/cuda/nvrtc.h"
#include "support/error.h"

namespace kiln {
namespace {

std::string corpus(const std::string& rel) { return std::string(KILN_SOURCE_DIR) + "/tests/kernels/" + rel; }

kernels::KernelSource source_of(const std::string& rel) {
  auto s = kernels::read_kernel_source(corpus(rel));
  EXPECT_TRUE(s) << s.error().to_string();
  return *s;
}

// out[i] = 2 * ptr[i], in place over the first 1000 elements (the corpus's mul2_inplace).
Status mul2_cpu(std::span<UserKernelArg> args, std::span<const int64_t>) {
  float* p = args[0].tensor.data<float>();
  for (int64_t i = 0; i < std::min<int64_t>(1000, args[0].tensor.numel()); ++i) p[i] *= 2.0f;
  return Status::ok();
}

TEST(KernelRegistration, FromTtirTheTableHoldsTheAnalysis) {
  kernels::KernelRegistration r{.name = "reg_add_kernel", .source = source_of("ttir/add_kernel.ttir")};
  auto k = kernels::register_kernel(r);
  ASSERT_TRUE(k) << k.error().to_string();
  EXPECT_EQ((*k)->function, "add_kernel");
  EXPECT_EQ((*k)->source_kind, "ttir");
  ASSERT_EQ((*k)->params.size(), 3u);
  EXPECT_EQ((*k)->params[0].name, "in0");
  EXPECT_FALSE((*k)->params[0].written);
  EXPECT_TRUE((*k)->params[2].written);
  EXPECT_EQ((*k)->written_params(), std::vector<int64_t>{2});
  EXPECT_FALSE((*k)->analysis_fallback);
  // Registering the same source under the same name again returns the same entry.
  auto again = kernels::register_kernel(r);
  ASSERT_TRUE(again) << again.error().to_string();
  EXPECT_EQ(*again, *k);
}

TEST(KernelRegistration, TheAnalysisIsCachedPerSourceAndFunction) {
  kernels::KernelSource s = source_of("ttir/matmul_kernel.ttir");
  auto first = kernels::analyze_kernel(s);
  ASSERT_TRUE(first) << first.error().to_string();
  auto second = kernels::analyze_kernel(s);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->ms, first->ms) << "the second request is answered from the cache";
  EXPECT_EQ(second->mutation.written_names(), std::vector<std::string>{"c"});
}

TEST(KernelRegistration, AFallbackKernelIsRegisteredWithEveryPointerWrittenAndTheReason) {
  auto k = kernels::register_kernel({.name = "reg_impure_asm", .source = source_of("ttir/inline_asm_impure.ttir")});
  ASSERT_TRUE(k) << k.error().to_string();
  EXPECT_TRUE((*k)->analysis_fallback);
  EXPECT_EQ((*k)->written_params(), (std::vector<int64_t>{0, 1, 2}));
  ASSERT_FALSE((*k)->analysis_notes.empty());
  EXPECT_NE((*k)->analysis_notes[0].find("impure inline asm"), std::string::npos);
}

TEST(KernelRegistration, ARegisteredKernelIsCapturedDifferentiatedAroundAndRun) {
  auto k =
      kernels::register_kernel({.name = "reg_mul2", .source = source_of("ttir/mul2_inplace.ttir"), .cpu = mul2_cpu});
  ASSERT_TRUE(k) << k.error().to_string();
  // loss = sum(w * mul2(relu(x))): the kernel doubles its argument in place.
  auto fn = [](std::span<const Tensor> in) {
    Tensor h = relu(in[1]);
    call_kernel("reg_mul2", {h});
    return sum(mul(in[0], h));
  };
  const Tensor w = Tensor::randn({1000}, 1), x = Tensor::randn({1000}, 2);
  auto c = capture(CaptureFn1(fn), {w, x}, {.input_names = {"w", "x"}});
  ASSERT_TRUE(c) << c.error().to_string();
  auto r = value_and_grad(*c->graph, std::vector<Tensor>{w, x});
  ASSERT_TRUE(r) << r.error().to_string();
  const Tensor eager = fn(std::vector<Tensor>{w, x});
  EXPECT_TRUE(r->values[0].equal(eager));
  // d/dw is the kernel's output, 2 * relu(x); no gradient reaches x through the kernel.
  for (int64_t i = 0; i < 1000; i += 97) {
    EXPECT_EQ(r->grads[0].item_double(i), 2.0 * std::max(0.0, static_cast<double>(x.data<float>()[i])));
    EXPECT_EQ(r->grads[1].item_double(i), 0.0);
  }
}

TEST(KernelRegistration, FromPtxWithoutASignatureParametersAreNamedByPosition) {
  auto k = kernels::register_kernel({.name = "reg_scatter_ptx", .source = source_of("cuda/scatter_i32.ptx")});
  ASSERT_TRUE(k) << k.error().to_string();
  EXPECT_EQ((*k)->source_kind, "ptx");
  ASSERT_FALSE((*k)->params.empty());
  EXPECT_EQ((*k)->params[0].name, "arg0");
}

TEST(KernelRegistration, FromCudaSourceTheAuthorsNamesAndPointerParametersComeFromTheSignature) {
  if (!nvrtc_version()) GTEST_SKIP() << "NVRTC is not installed: " << nvrtc_version().error().message();
  auto k = kernels::register_kernel({.name = "reg_scatter_cu", .source = source_of("cuda/scatter_i32.cu")});
  ASSERT_TRUE(k) << k.error().to_string();
  EXPECT_EQ((*k)->source_kind, "cuda");
  std::vector<std::string> written;
  for (int64_t i : (*k)->written_params()) written.push_back((*k)->params[static_cast<size_t>(i)].name);
  EXPECT_EQ(written, std::vector<std::string>{"out"});
  EXPECT_NE((*k)->ir.find(".entry"), std::string::npos) << "the table keeps the PTX NVRTC made";
}

TEST(KernelRegistration, SourceErrorsSayWhere) {
  kernels::KernelSource bad{kernels::KernelSourceKind::Ttir, "module {\n  tt.func @k(%p: !tt.ptr<f32>) {\n",
                            "bad.ttir"};
  auto k = kernels::register_kernel({.name = "reg_bad", .source = bad});
  ASSERT_FALSE(k);
  EXPECT_EQ(k.error().loc().file, "bad.ttir");
  EXPECT_GT(k.error().loc().line, 0);
  auto missing = kernels::read_kernel_source(corpus("ttir/no_such_kernel.ttir"));
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message(),
            "cannot read " + corpus("ttir/no_such_kernel.ttir") + ": No such file or directory");
  kernels::KernelSource cuda_bad{kernels::KernelSourceKind::Cuda, "__global__ void k(float* p) { p[0] = ; }", "bad.cu"};
  if (nvrtc_version()) {
    auto c = kernels::register_kernel({.name = "reg_bad_cu", .source = cuda_bad});
    ASSERT_FALSE(c);
    EXPECT_NE(c.error().to_string().find("bad.cu"), std::string::npos) << c.error().to_string();
  }
}

}  // namespace
}  // namespace kiln
