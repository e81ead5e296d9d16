// The generated code's own float exp and tanh (kiln_expf, kiln_tanhf in the prelude, which
// vectorize where libm's calls do not): within a few ulp of the double-precision functions
// over the whole range, and exact at the special values (inf, -inf, NaN, overflow, underflow).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "cpu_backend_util.h"
#include "ir/parser.h"
#include "lower/lower.h"
#include "runtime/cpu/compiled_program.h"

namespace kiln {
namespace {

TEST(CppMath, ExpTanhSigmoidMatchDoublePrecision) {
  std::vector<double> xs = {-INFINITY, -200, -104, -103.9, -87.5, -20, -1, -1e-4, -0.0, 0, 1e-30, 0.3, 0.62, 0.63,
                            0.7, 1, 9, 9.4, 9.5, 9.6, -9.55, 10, 88, 88.7, 89, 200, INFINITY};
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
        EXPECT_TRUE(std::isnan(w) ? std::isnan(got) : got == w) << "f" << f << "(" << v << ") = " << got << ", want " << w;
        continue;
      }
      // 4 ulp of float, or an absolute 1e-30 where the result is denormal.
      EXPECT_NEAR(got, w, std::max(4 * std::fabs(w) * 1.1920929e-7, 1e-30)) << "f" << f << "(" << v << ")";
    }
  }
}

}  // namespace
}  // namespace kiln
