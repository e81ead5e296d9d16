// The generated code's own float exp, tanh, erf, log1p and expm1 (kiln_expf, kiln_tanhf,
// kiln_erff, kiln_log1pf, kiln_expm1f in the prelude, which vectorize where libm's calls do
// not): within their stated ulp of the double-precision functions over the whole range, and
// exact at the special values (inf, -inf, NaN, overflow, underflow).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "cpu_backend_util.h"
#include "ir/parser.h"
#include "lower/lower.h"
#include "runtime/cpu/compiled_program.h"

namespace kiln {
namespace {

TEST(CppMath, ExpTanhSigmoidMatchDoublePrecision) {
  std::vector<double> xs = {-INFINITY, -200,  -104,  -103.9, -87.5, -20,  -1, -1e-4, -0.0,
                            0,         1e-30, 0.3,   0.62,   0.63,  0.7,  1,  9,     9.4,
                            9.5,       9.6,   -9.55, 10,     88,    88.7, 89, 200,   INFINITY};
  for (int i = -4000; i <= 4000; ++i) xs.push_back(i * 0.0223);
  const int64_t n = static_cast<int64_t>(xs.size()) + 1;
  const std::string t = "f32[" + std::to_string(n) + "]";
  auto g = parse_graph("graph @m(%x: " + t + ") -> (" + t + ", " + t + ", " + t + ") {\n %0 = exp(%x) : " + t +
                       "\n %1 = tanh(%x) : " + t + "\n %2 = sigmoid(%x) : " + t + "\n return %0, %1, %2\n}");
  ASSERT_TRUE(g) << g.error().to_string();
  auto p = lower_graph(**g);
  ASSERT_TRUE(p);
  auto c = CompiledProgram::compile(*p, test_compile_options(1));
  ASSERT_TRUE(c) << c.error().to_string();
  Tensor x = Tensor::zeros({n});
  for (size_t i = 0; i < xs.size(); ++i) x.data<float>()[i] = static_cast<float>(xs[i]);
  x.data<float>()[n - 1] = std::numeric_limits<float>::quiet_NaN();
  auto out = c->run({&x, 1});
  ASSERT_TRUE(out) << out.error().to_string();
  for (int64_t i = 0; i < n; ++i) {
    const double v = x.item_double(i);
    const double want[3] = {std::exp(v), std::tanh(v), 1.0 / (1.0 + std::exp(-v))};
    for (int f = 0; f < 3; ++f) {
      const double got = (*out)[static_cast<size_t>(f)].item_double(i);
      const double w = static_cast<float>(want[f]);  // the correctly rounded float
      if (std::isnan(w) || std::isinf(w) || w == 0) {
        EXPECT_TRUE(std::isnan(w) ? std::isnan(got) : got == w)
            << "f" << f << "(" << v << ") = " << got << ", want " << w;
        continue;
      }
      // 4 ulp of float, or an absolute 1e-30 where the result is denormal.
      EXPECT_NEAR(got, w, std::max(4 * std::fabs(w) * 1.1920929e-7, 1e-30)) << "f" << f << "(" << v << ")";
    }
  }
}

// Error of float `got` against the double-precision `want`, in units in the last place of the
// float nearest `want` (denormal ulps below the normal range).
double ulps(float got, double want) {
  const float w = static_cast<float>(want);
  if (std::isnan(want) || std::isinf(w)) return (std::isnan(want) ? std::isnan(got) : got == w) ? 0 : INFINITY;
  int e = 0;
  std::frexp(w == 0 ? 1e-45f : w, &e);
  return std::fabs(static_cast<double>(got) - want) / std::ldexp(1.0, std::max(e - 24, -149));
}

// erf, log1p and expm1 of float through the prelude's kiln_erff, kiln_log1pf, kiln_expm1f.
// Over every float (a standalone run of the prelude, x86-64 with FMA, GCC 12, the kernels'
// flags) their largest errors are 1.095, 0.757 and 1.485 ulp; here 2^20 bit patterns spread
// over the whole range, the cut-overs of their branches and the special values, against the
// same bounds, and exactly at inf, NaN, +-0, -1 and below.
TEST(CppMath, ErfLog1pExpm1WithinStatedUlp) {
  std::vector<float> xs = {
      0.0f,          -0.0f,          INFINITY,   -INFINITY,    -1.0f,       -1.5f, -2.0f,  1e-45f,     -1e-45f,
      5.9604645e-8f, 2.98023224e-8f, 0.921875f,  -0.921875f,   0.92187494f, 3.92f, -3.92f, 3.9200001f, -30.0f,
      -30.000002f,   88.72283f,      88.722839f, -0.29289323f, 0.41421357f, 1e38f, -1e38f};
  for (uint32_t i = 0; i < (1u << 20); ++i) {
    const uint32_t bits = i * 4096u + (i * 2654435761u >> 20);  // every exponent, scattered mantissas
    float x;
    std::memcpy(&x, &bits, 4);
    if (!std::isnan(x)) xs.push_back(x);
  }
  const int64_t n = static_cast<int64_t>(xs.size()) + 1;
  const std::string t = "f32[" + std::to_string(n) + "]";
  auto g = parse_graph("graph @m(%x: " + t + ") -> (" + t + ", " + t + ", " + t + ") {\n %0 = erf(%x) : " + t +
                       "\n %1 = log1p(%x) : " + t + "\n %2 = expm1(%x) : " + t + "\n return %0, %1, %2\n}");
  ASSERT_TRUE(g) << g.error().to_string();
  auto p = lower_graph(**g);
  ASSERT_TRUE(p);
  auto c = CompiledProgram::compile(*p, test_compile_options(1));
  ASSERT_TRUE(c) << c.error().to_string();
  Tensor x = Tensor::zeros({n});
  std::memcpy(x.data<float>(), xs.data(), xs.size() * sizeof(float));
  x.data<float>()[n - 1] = std::numeric_limits<float>::quiet_NaN();
  auto out = c->run({&x, 1});
  ASSERT_TRUE(out) << out.error().to_string();
  const char* names[3] = {"erf", "log1p", "expm1"};
  const double bounds[3] = {1.095, 0.757, 1.485};
  for (int f = 0; f < 3; ++f) {
    double worst = 0;
    float worst_x = 0;
    for (int64_t i = 0; i < n; ++i) {
      const float v = x.data<float>()[i];
      const double want = f == 0 ? std::erf(double{v}) : f == 1 ? std::log1p(double{v}) : std::expm1(double{v});
      const float got = (*out)[static_cast<size_t>(f)].data<float>()[i];
      if (v == 0 || std::isnan(v)) {  // exact, the sign of zero kept
        EXPECT_TRUE(std::isnan(v) ? std::isnan(got) : got == v && std::signbit(got) == std::signbit(v))
            << names[f] << "(" << v << ") = " << got;
        continue;
      }
      const double e = ulps(got, want);
      if (e > worst) {
        worst = e;
        worst_x = v;
      }
    }
    EXPECT_LE(worst, bounds[f]) << names[f] << " is " << worst << " ulp off at " << worst_x;
  }
}

}  // namespace
}  // namespace kiln
