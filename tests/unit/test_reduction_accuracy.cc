// Compiled reductions against float64 at any length (codegen/cpp/cpp_reduce.h: floating sums
// in blocks of 256 points, each lane's partial joining a double total). Sums of one value
// over 2^31 points (expands of a 0-d or 1-element tensor: nothing large is allocated, and
// the kernels run at the speed of their adds): whole, a mean, rows of [2, 2^30], columns of
// [2^25, 64], a sum of products, a logsumexp, bf16 and f16 values, and a reduction with lanes
// (a sum beside a max). Random data from 10^3 to 10^7 points through the sums inside sum,
// mean, var, std, a sum of products, a norm and logsumexp; and adversarial data: values that
// cancel, a mean far from zero, long softmax and layer_norm rows. Errors are measured against
// long double sums of the same float inputs; a float accumulator per lane gave 31% of the sum
// of 2^31 copies of 0.1 (it stops growing past 2^24 additions) and was off by 1e-3 over 10^7
// values. Last, the oracle's own sums (interpreter and evaluator), compensated.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "backend/compile_graph.h"
#include "cpu_backend_util.h"
#include "interp/interpreter.h"
#include "ir/parser.h"
#include "lower/loop_eval.h"
#include "lower/loop_text.h"
#include "lower/lower.h"
#include "ops/compensated_sum.h"
#include "runtime/cpu/cpu_backend.h"

namespace kiln {
namespace {

CompiledGraph compiled(const std::string& text) {
  auto g = parse_graph(text);
  EXPECT_TRUE(g) << g.error().to_string() << "\n" << text;
  auto c = compile_graph(**g, CpuBackend({.compile = test_compile_options()}));
  EXPECT_TRUE(c) << c.error().to_string();
  return std::move(*c);
}

std::vector<Tensor> run(const CompiledGraph& c, const std::vector<Tensor>& inputs) {
  auto got = c.run(inputs);
  EXPECT_TRUE(got) << got.error().to_string();
  return got ? std::move(*got) : std::vector<Tensor>{};
}

double relative_error(double got, long double want) {
  return static_cast<double>(std::fabs(static_cast<long double>(got) - want) / std::fabs(want));
}

constexpr int64_t k2e31 = int64_t{1} << 31;

TEST(ReductionAccuracy, OneValueOver2e31Points) {
  const CompiledGraph c = compiled(
      R"(graph @long(%c: f32[], %r: f32[1], %w: f32[1,64], %b: bf16[], %h: f16[]) -> (f32[], f32[], f32[2], f32[64], f32[], f32[], bf16[], f16[]) {
  %e = expand(%c) {size=[2147483648]} : f32[2147483648]
  %0 = sum(%e) : f32[]
  %1 = mean(%e) : f32[]
  %re = expand(%r) {size=[2,1073741824]} : f32[2,1073741824]
  %2 = sum(%re) {dim=[1]} : f32[2]
  %we = expand(%w) {size=[33554432,64]} : f32[33554432,64]
  %3 = sum(%we) {dim=[0]} : f32[64]
  %sq = mul(%e, %e) : f32[2147483648]
  %4 = sum(%sq) : f32[]
  %5 = logsumexp(%e) {dim=[0]} : f32[]
  %be = expand(%b) {size=[2147483648]} : bf16[2147483648]
  %6 = sum(%be) : bf16[]
  %he = expand(%h) {size=[268435456]} : f16[268435456]
  %7 = sum(%he) : f16[]
  return %0, %1, %2, %3, %4, %5, %6, %7
})");
  for (const float v : {0.1f, -1.0827637f, 1.0f / 3.0f}) {
    SCOPED_TRACE("value " + std::to_string(v));
    Tensor w = Tensor::randn({1, 64}, 7, DType::F32);
    const std::vector<Tensor> out = run(c, {Tensor::scalar(v, DType::F32), Tensor::full({1}, v, DType::F32), w,
                                            Tensor::scalar(1.0, DType::BF16), Tensor::scalar(1.5 / 16384, DType::F16)});
    ASSERT_EQ(out.size(), 8u);
    const long double n = static_cast<long double>(k2e31), sum = n * v;
    EXPECT_LE(relative_error(out[0].item_double(), sum), 1e-6);
    EXPECT_LE(relative_error(out[1].item_double(), v), 1e-6);
    EXPECT_LE(relative_error(out[2].item_double(0), sum / 2), 1e-6);
    EXPECT_LE(relative_error(out[2].item_double(1), sum / 2), 1e-6);
    for (int64_t j = 0; j < 64; ++j)
      EXPECT_LE(relative_error(out[3].item_double(j), (n / 64) * w.item_double(j)), 1e-6) << "column " << j;
    EXPECT_LE(relative_error(out[4].item_double(), sum * v), 1e-6);
    // log(n e^v) = v + log n, near 21.5: within two ulps of a float there (3.8e-6); the sum's
    // relative error adds to it as an absolute one.
    EXPECT_LE(std::fabs(out[5].item_double() - (v + std::log(static_cast<double>(k2e31)))), 4e-6);
    EXPECT_EQ(out[6].item_double(), static_cast<double>(k2e31));  // 2^31 ones, exactly
    EXPECT_EQ(out[7].item_double(), 24576.0);                     // 2^28 times 1.5 * 2^-14, exactly
  }
}

// A reduction kernel with lanes (a sum beside a max: cpp_lane_reduce.h) over 2^25 points, and
// over two reduce loops whose inner one (100 points) is shorter than a block.
TEST(ReductionAccuracy, LaneSumsOverLongLoops) {
  auto p = parse_loops(R"(loops @lanes(%x: f32[2], %y: f32[100]) -> (%out0, %out1, %out2, %out3) {
  buffer %out0 : f32[2] strides [1]
  buffer %out1 : f32[2] strides [1]
  buffer %out2 : f32[2] strides [1]
  buffer %out3 : f32[2] strides [1]
  kernel @k0 reduction {
    for i0 in range(2) {
      for i1 in range(33554432) reduce {
        %0 = load %x[i0]
      }
      %1 = reduce sum %0 : f32
      %2 = reduce max %0 : f32
      store %out0[i0], %1
      store %out1[i0], %2
    }
  }
  kernel @k1 reduction {
    for i0 in range(2) {
      for i1 in range(65536) reduce {
        for i2 in range(100) reduce {
          %0 = load %y[i2]
        }
      }
      %1 = reduce sum %0 : f32
      %2 = reduce min %0 : f32
      store %out2[i0], %1
      store %out3[i0], %2
    }
  }
}
)");
  ASSERT_TRUE(p) << p.error().to_string();
  auto c = CompiledProgram::compile(*p, test_compile_options());
  ASSERT_TRUE(c) << c.error().to_string();
  const Tensor x = Tensor::from_doubles({0.1, -1.0827637}, {2}, DType::F32);
  const Tensor y = Tensor::rand({100}, 3, DType::F32);
  auto out = c->run(std::vector<Tensor>{x, y});
  ASSERT_TRUE(out) << out.error().to_string();
  long double y_sum = 0, y_min = INFINITY;
  for (int64_t j = 0; j < 100; ++j) {
    y_sum += y.item_double(j);
    y_min = std::min<long double>(y_min, y.item_double(j));
  }
  for (int64_t i = 0; i < 2; ++i) {
    EXPECT_LE(relative_error((*out)[0].item_double(i), 33554432.0L * x.item_double(i)), 1e-6) << "row " << i;
    EXPECT_EQ((*out)[1].item_double(i), x.item_double(i));
    EXPECT_LE(relative_error((*out)[2].item_double(i), 65536.0L * y_sum), 1e-6) << "row " << i;
    EXPECT_EQ((*out)[3].item_double(i), static_cast<double>(y_min));
  }
}

// Float64 (long double) reductions of x (and y) as the graph of reductions_text computes them.
struct Reference {
  long double sum = 0, abs_sum = 0, dot = 0, abs_dot = 0, squares = 0, var = 0, logsumexp = 0;
};

Reference reference_of(const Tensor& x, const Tensor& y) {
  const float* xv = x.data<float>();
  const float* yv = y.data<float>();
  const int64_t n = x.numel();
  Reference r;
  long double max = -INFINITY;
  for (int64_t i = 0; i < n; ++i) {
    const long double v = xv[i], p = v * yv[i];
    r.sum += v;
    r.abs_sum += std::fabs(v);
    r.dot += p;
    r.abs_dot += std::fabs(p);
    r.squares += v * v;
    max = std::max(max, v);
  }
  const long double mean = r.sum / static_cast<long double>(n);
  long double m2 = 0, exp_sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    m2 += (xv[i] - mean) * (xv[i] - mean);
    exp_sum += std::exp(xv[i] - max);
  }
  r.var = m2 / static_cast<long double>(n - 1);
  r.logsumexp = std::log(exp_sum) + max;
  return r;
}

// The graph of one length's reductions: sum, mean, var, std, sum of products, norm, logsumexp.
std::string reductions_text(int64_t n) {
  const std::string t = "f32[" + std::to_string(n) + "]";
  return "graph @r(%x: " + t + ", %y: " + t +
         ") -> (f32[], f32[], f32[], f32[], f32[], f32[], f32[]) {\n"
         "  %0 = sum(%x) : f32[]\n  %1 = mean(%x) : f32[]\n  %2 = var(%x) : f32[]\n  %3 = std(%x) : f32[]\n"
         "  %p = mul(%x, %y) : " +
         t +
         "\n  %4 = sum(%p) : f32[]\n"
         "  %q = mul(%x, %x) : " +
         t +
         "\n  %s = sum(%q) : f32[]\n  %5 = sqrt(%s) : f32[]\n"
         "  %6 = logsumexp(%x) {dim=[0]} : f32[]\n  return %0, %1, %2, %3, %4, %5, %6\n}";
}

// Every reduction of reductions_text on x and y within 1e-5 of float64, relative to its
// result; for values that cancel (`cancelling`), the sums (sum, mean, sum of products) within
// 1e-6 of the sum of their terms' magnitudes instead: no float summation is accurate relative
// to a result far below its terms, and this bound is what stays independent of the length.
void expect_reductions_accurate(const CompiledGraph& c, const Tensor& x, const Tensor& y, bool cancelling) {
  const std::vector<Tensor> out = run(c, {x, y});
  ASSERT_EQ(out.size(), 7u);
  const Reference r = reference_of(x, y);
  const long double n = static_cast<long double>(x.numel());
  auto expect_sum = [&](double got, long double want, long double magnitudes, const char* what) {
    if (cancelling)
      EXPECT_LE(static_cast<double>(std::fabs(got - want) / magnitudes), 1e-6) << what;
    else
      EXPECT_LE(relative_error(got, want), 1e-5) << what;
  };
  expect_sum(out[0].item_double(), r.sum, r.abs_sum, "sum");
  expect_sum(out[1].item_double() * static_cast<double>(n), r.sum, r.abs_sum, "mean");
  expect_sum(out[4].item_double(), r.dot, r.abs_dot, "sum of products");
  EXPECT_LE(relative_error(out[2].item_double(), r.var), 1e-5) << "var";
  EXPECT_LE(relative_error(out[3].item_double(), std::sqrt(r.var)), 1e-5) << "std";
  EXPECT_LE(relative_error(out[5].item_double(), std::sqrt(r.squares)), 1e-5) << "norm";
  EXPECT_LE(std::fabs(out[6].item_double() - r.logsumexp), 1e-5 * std::max(1.0L, std::fabs(r.logsumexp)))
      << "logsumexp";
}

TEST(ReductionAccuracy, RandomAndAdversarialDataAtAnyLength) {
  for (const int64_t n : {int64_t{1000}, int64_t{100003}, int64_t{10000019}}) {
    SCOPED_TRACE("length " + std::to_string(n));
    const CompiledGraph c = compiled(reductions_text(n));
    const Tensor x = Tensor::randn({n}, 1, DType::F32), y = Tensor::randn({n}, 2, DType::F32);
    auto derived = [&](float scale_even, float scale_odd, float shift) {
      Tensor d = Tensor::empty({n}, DType::F32);
      const float* from = x.data<float>();
      float* to = d.data<float>();
      for (int64_t i = 0; i < n; ++i) to[i] = (i % 2 ? scale_odd : scale_even) * from[i] + shift;
      return d;
    };
    SCOPED_TRACE("normal values plus 1");
    expect_reductions_accurate(c, derived(1, 1, 1), y, false);
    SCOPED_TRACE("normal values times 1e4, every other one negated: large values that cancel");
    expect_reductions_accurate(c, derived(1e4f, -1e4f, 0), y, true);
    SCOPED_TRACE("normal values plus 1e4: a mean far from the spread");
    expect_reductions_accurate(c, derived(1, 1, 1e4f), y, false);
  }
}

// Long rows through softmax (2^22 nearly equal values: the normalizer's sum of exp runs to
// 2^22 terms near 1) and layer_norm (2^20 values whose mean, 100, is far from their spread: its
// Welford chunks): every element within 1e-5 of float64. Rows of up to 32768 points run as
// fused row kernels, whose sums are blocked the same way; these run as one kernel per step.
TEST(ReductionAccuracy, LongSoftmaxAndLayerNormRows) {
  constexpr int64_t kSoftmaxRow = int64_t{1} << 22, kNormRow = int64_t{1} << 20;
  const std::string s = "f32[2," + std::to_string(kSoftmaxRow) + "]", t = "f32[2," + std::to_string(kNormRow) + "]";
  const CompiledGraph c = compiled("graph @rows(%s: " + s + ", %x: " + t + ") -> (" + s + ", " + t + ") {\n" +
                                   "  %0 = softmax(%s) {dim=1} : " + s + "\n  %1 = layer_norm(%x) {normalized_shape=[" +
                                   std::to_string(kNormRow) + "]} : " + t + "\n  return %0, %1\n}");
  Tensor soft = Tensor::randn({2, kSoftmaxRow}, 8, DType::F32), x = Tensor::randn({2, kNormRow}, 9, DType::F32);
  float* soft_values = soft.data<float>();
  float* x_values = x.data<float>();
  for (int64_t i = 0; i < 2 * kSoftmaxRow; ++i) soft_values[i] *= 1e-3f;
  for (int64_t i = 0; i < 2 * kNormRow; ++i) x_values[i] += 100.0f;
  const std::vector<Tensor> out = run(c, {soft, x});
  ASSERT_EQ(out.size(), 2u);
  for (int64_t row = 0; row < 2; ++row) {
    const float* v = soft_values + row * kSoftmaxRow;
    const float* got = out[0].data<float>() + row * kSoftmaxRow;
    long double max = -INFINITY, exp_sum = 0;
    for (int64_t i = 0; i < kSoftmaxRow; ++i) max = std::max<long double>(max, v[i]);
    for (int64_t i = 0; i < kSoftmaxRow; ++i) exp_sum += std::exp(v[i] - max);
    double error = 0;
    for (int64_t i = 0; i < kSoftmaxRow; ++i)
      error = std::max(error, relative_error(got[i], std::exp(v[i] - max) / exp_sum));
    EXPECT_LE(error, 1e-5) << "softmax row " << row;
  }
  for (int64_t row = 0; row < 2; ++row) {
    const float* v = x_values + row * kNormRow;
    const float* got = out[1].data<float>() + row * kNormRow;
    long double sum = 0, m2 = 0;
    for (int64_t i = 0; i < kNormRow; ++i) sum += v[i];
    const long double mean = sum / kNormRow;
    for (int64_t i = 0; i < kNormRow; ++i) m2 += (v[i] - mean) * (v[i] - mean);
    const long double rstd = 1 / std::sqrt(m2 / kNormRow + 1e-5L);
    double error = 0;
    for (int64_t i = 0; i < kNormRow; ++i)
      error = std::max(error, std::fabs(got[i] - static_cast<double>((v[i] - mean) * rstd)));
    EXPECT_LE(error, 1e-5) << "layer_norm row " << row;
  }
}

// The oracle's own sums (the reference kernels' and the loop-IR evaluator's) are compensated
// (ops/compensated_sum.h): 10^6 copies of the float64 value 0.1 sum to within 1e-15 of 10^5,
// where a plain double sum is off by 1.3e-11 (and by 1.9e-9 at 10^8, beyond float64's
// comparison tolerance); infinities and NaN give what a plain sum gives.
TEST(ReductionAccuracy, TheOracleSumsCompensated) {
  CompensatedSum s;
  for (int i = 0; i < 1000000; ++i) s.add(0.1);
  EXPECT_LE(relative_error(s.value(), 1000000.0L * static_cast<long double>(0.1)), 1e-15);
  for (const auto& [terms, want] : std::vector<std::pair<std::vector<double>, double>>{
           {{INFINITY, 1.0}, INFINITY}, {{1.0, -INFINITY}, -INFINITY}, {{1e308, 1e308, -1e308}, INFINITY}}) {
    CompensatedSum t;
    for (double x : terms) t.add(x);
    EXPECT_EQ(t.value(), want);
  }
  CompensatedSum nan;
  for (const double x : {1.0, double{INFINITY}, -double{INFINITY}, 2.0}) nan.add(x);
  EXPECT_TRUE(std::isnan(nan.value()));

  auto g = parse_graph(R"(graph @g(%c: f64[]) -> (f64[], f64[]) {
  %e = expand(%c) {size=[1000000]} : f64[1000000]
  %0 = sum(%e) : f64[]
  %1 = mean(%e) : f64[]
  return %0, %1
})");
  ASSERT_TRUE(g) << g.error().to_string();
  const std::vector<Tensor> c{Tensor::scalar(0.1, DType::F64)};
  auto interpreted = interpret(**g, c);
  ASSERT_TRUE(interpreted) << interpreted.error().to_string();
  EXPECT_LE(relative_error((*interpreted)[0].item_double(), 1000000.0L * static_cast<long double>(0.1)), 1e-15);
  EXPECT_LE(relative_error((*interpreted)[1].item_double(), static_cast<long double>(0.1)), 1e-15);
  auto p = lower_graph(**g);
  ASSERT_TRUE(p) << p.error().to_string();
  auto evaluated = eval_loops(*p, c);
  ASSERT_TRUE(evaluated) << evaluated.error().to_string();
  EXPECT_LE(relative_error((*evaluated)[0].item_double(), 1000000.0L * static_cast<long double>(0.1)), 1e-15);
  EXPECT_LE(relative_error((*evaluated)[1].item_double(), static_cast<long double>(0.1)), 1e-15);
}

}  // namespace
}  // namespace kiln
