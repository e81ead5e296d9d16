// The CUDA prelude cut to what a program's kernels call (codegen/cuda/cuda_prelude.h): the
// helpers named, those they call, nothing else, in the whole prelude's order; the whole prelude
// compiles with NVRTC (skipped without it), as every cut of it then does (tests/nvrtc compiles
// every lit and oracle program's).
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "codegen/cuda/cuda_prelude.h"
#include "loop_text_util.h"
#include "runtime/cuda/nvrtc.h"

namespace kiln {
namespace {

constexpr auto contains = &test::has_text;

// Whether `prelude` holds `helper`'s piece: its definition (or a call of it, which only its
// piece and later ones make) is there.
bool defines(const std::string& prelude, const std::string& helper) { return contains(prelude, " " + helper + "("); }

TEST(CudaPrelude, TextThatCallsNoHelperGetsTheTypesOnly) {
  const std::string prelude = cuda::cuda_prelude_for("extern \"C\" __global__ void k(float* x) { x[0] = 1; }");
  EXPECT_TRUE(contains(prelude, "typedef long long int64_t;"));
  EXPECT_TRUE(contains(prelude, "struct alignas(16) kiln_v16"));
  EXPECT_FALSE(contains(prelude, "__device__ inline")) << prelude;
}

TEST(CudaPrelude, AKernelGetsTheHelpersItCallsAndNotOthers) {
  const std::string prelude = cuda::cuda_prelude_for("  const float v0 = kiln_bf16_to_f32(h0[j].e[l]);\n");
  EXPECT_TRUE(defines(prelude, "kiln_bf16_to_f32"));
  EXPECT_FALSE(defines(prelude, "kiln_philox")) << prelude;
  EXPECT_FALSE(defines(prelude, "kiln_max_nan")) << prelude;
  EXPECT_FALSE(defines(prelude, "kiln_floordiv")) << prelude;
  EXPECT_LT(prelude.size(), cuda::cuda_prelude().size());
}

TEST(CudaPrelude, AHelperBringsTheHelpersItCalls) {
  // kiln_bf16_round_d (the floating helpers) rounds through the bf16 conversions.
  const std::string rounding = cuda::cuda_prelude_for("kiln_bf16_round_d(x)");
  EXPECT_TRUE(defines(rounding, "kiln_bf16_round"));
  EXPECT_LT(rounding.find(" kiln_bf16_round("), rounding.find(" kiln_bf16_round_d("));
  // kiln_shl (the integer op helpers) calls kiln_wrap_neg (the index and wrap helpers).
  EXPECT_TRUE(defines(cuda::cuda_prelude_for("kiln_shl(a, b)"), "kiln_wrap_neg"));
  // A normal draw: Box-Muller over Philox.
  EXPECT_TRUE(defines(cuda::cuda_prelude_for("kiln_random_normal(k, o, c)"), "kiln_philox"));
}

TEST(CudaPrelude, ANameInsideAnotherIdentifierCallsNothing) {
  EXPECT_FALSE(defines(cuda::cuda_prelude_for("int my_kiln_philox = 0;"), "kiln_philox"));
}

// The names each line of `text` declares: the first kiln_ name after `inline ` or `struct ` on
// a line that is not a comment.
std::set<std::string> declared_names(const std::string& text) {
  static const std::regex declaration(R"(^(?!\s*//).*?\b(?:inline|struct)\b[^/]*?\b(kiln_\w+))");
  std::set<std::string> names;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_search(line, m, declaration)) names.insert(m[1]);
  }
  return names;
}

// A helper's piece is found by the names it declares, whatever comments before it mention.
TEST(CudaPrelude, CallingAnyHelperBringsItsDeclaration) {
  const std::set<std::string> names = declared_names(cuda::cuda_prelude());
  EXPECT_GT(names.size(), 40u);
  for (const std::string& name : names)
    EXPECT_TRUE(declared_names(cuda::cuda_prelude_for("x = " + name + "(y);")).count(name)) << name;
}

TEST(CudaPrelude, EveryHelperCalledGivesTheWholePrelude) {
  EXPECT_EQ(cuda::cuda_prelude_for(cuda::cuda_prelude()), cuda::cuda_prelude());
}

TEST(CudaPrelude, TheWholePreludeCompilesWithNvrtc) {
  if (!nvrtc_version()) GTEST_SKIP() << "NVRTC is not installed: " << nvrtc_version().error().message();
  Expected<Cubin> cubin = compile_cuda_to_cubin(cuda::cuda_prelude() + "extern \"C\" __global__ void k() {}\n");
  ASSERT_TRUE(cubin) << cubin.error().message();
  EXPECT_EQ(cubin->kernels.size(), 1u);
}

}  // namespace
}  // namespace kiln
