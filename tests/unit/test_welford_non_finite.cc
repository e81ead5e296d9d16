// Welford reductions over rows with infinities and NaN, compiled and in the loop-IR evaluator:
// welford_mean is the mean, sum / count, an infinity or NaN propagating as in a sum (as the
// interpreter's and PyTorch's mean give), and welford_m2 is NaN (PyTorch's var is). Shifting by
// the row's first value (inf - inf) or joining an infinite mean with a finite one (Chan's
// formula: inf - inf again) gave NaN means. In every form: Welford's chunks, serial and in
// parallel, f32 and f64, and Welford per lane beside another reduce op.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "cpu_backend_util.h"
#include "lower/loop_eval.h"
#include "lower/loop_text.h"

namespace kiln {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

// A row's non-finite points: (point, value).
using Specials = std::vector<std::pair<int64_t, double>>;

// The loop program of one Welford kernel over `rows` rows of `points` values of `dtype`
// (`f32` or `f64`), storing each row's mean and m2 (and its max when `beside_max`, which makes
// Welford fold per lane instead of in chunks).
std::string welford_program(const std::string& dtype, int64_t rows, int64_t points, bool beside_max) {
  const std::string r = std::to_string(rows), n = std::to_string(points), outs = beside_max ? "3" : "2";
  std::string text =
      "loops @w(%x: " + dtype + "[" + r + "," + n + "]) -> (%out0) {\n" + "  buffer %out0 : " + dtype + "[" + r + "," +
      outs + "] strides [" + outs + ",1]\n" + "  kernel @k0 reduction {\n" + "    for i0 in range(" + r + ") {\n" +
      "      for i1 in range(" + n + ") reduce {\n" + "        %0 = load %x[" + n + "*i0 + i1]\n" + "      }\n" +
      "      %1 = reduce welford_mean %0 : " + dtype + "\n" + "      %2 = reduce welford_m2 %0 : " + dtype + "\n";
  if (beside_max) text += "      %3 = reduce max %0 : " + dtype + "\n      store %out0[3*i0 + 2], %3\n";
  return text + "      store %out0[" + outs + "*i0], %1\n" + "      store %out0[" + outs + "*i0 + 1], %2\n" +
         "    }\n  }\n}\n";
}

// Random rows with `specials[row]` placed in them.
Tensor rows_with(DType dtype, int64_t points, const std::vector<Specials>& specials) {
  const int64_t rows = static_cast<int64_t>(specials.size());
  Tensor x = Tensor::randn({rows, points}, 7, DType::F64);
  for (int64_t row = 0; row < rows; ++row)
    for (const auto& [point, value] : specials[static_cast<size_t>(row)])
      x.data<double>()[row * points + point] = value;
  return dtype == DType::F64 ? x : x.to(dtype);
}

// Runs the program compiled and in the evaluator; expects both to agree and every row's mean
// to be its sum over its count (an infinity or NaN exactly), m2 NaN in rows with a special.
void expect_means_are_sums(const std::string& dtype, int64_t points, const std::vector<Specials>& specials,
                           bool beside_max = false) {
  const DType t = dtype == "f32" ? DType::F32 : DType::F64;
  const int64_t rows = static_cast<int64_t>(specials.size());
  auto p = parse_loops(welford_program(dtype, rows, points, beside_max));
  ASSERT_TRUE(p) << p.error().to_string();
  const std::vector<Tensor> inputs{rows_with(t, points, specials)};
  const Tensor& x = inputs[0];
  auto compiled = CompiledProgram::compile(*p, test_compile_options());
  ASSERT_TRUE(compiled) << compiled.error().to_string();
  auto got = compiled->run(inputs);
  ASSERT_TRUE(got) << got.error().to_string();
  auto want = eval_loops(*p, inputs);
  ASSERT_TRUE(want) << want.error().to_string();
  expect_close((*want)[0], (*got)[0], "compiled against the evaluator");
  const Tensor values = x.to(DType::F64), stats = (*got)[0].to(DType::F64);
  const int64_t outs = beside_max ? 3 : 2;
  for (int64_t row = 0; row < rows; ++row) {
    if (specials[static_cast<size_t>(row)].empty()) continue;
    double sum = 0;
    for (int64_t j = 0; j < points; ++j) sum += values.data<double>()[row * points + j];
    const double mean = stats.data<double>()[row * outs], m2 = stats.data<double>()[row * outs + 1];
    if (std::isnan(sum))
      EXPECT_TRUE(std::isnan(mean)) << "row " << row << ": mean " << mean;
    else
      EXPECT_EQ(mean, sum) << "row " << row;  // an infinity
    EXPECT_TRUE(std::isnan(m2)) << "row " << row << ": m2 " << m2;
  }
}

// Rows of 600 points are two chunks of 256 and a last one of 88.
const std::vector<Specials> kChunkRows = {
    {{0, kInf}},                // the shift is infinite
    {{300, kInf}},              // in the second chunk, after a finite one
    {{590, -kInf}},             // in the last chunk
    {{0, -kInf}, {599, kInf}},  // both infinities: NaN
    {{10, kNan}},
    {},  // finite: the mean and m2 as before
};

TEST(WelfordNonFinite, ChunksF32) { expect_means_are_sums("f32", 600, kChunkRows); }

TEST(WelfordNonFinite, ChunksF64) { expect_means_are_sums("f64", 600, kChunkRows); }

// The case: the rows [inf, 1] and [2, 3].
TEST(WelfordNonFinite, ShortRowStartingWithInf) { expect_means_are_sums("f32", 2, {{{0, kInf}}, {}}); }

// Two rows of 300000 points run their chunks in parallel (too few rows to split).
TEST(WelfordNonFinite, ChunksInParallel) { expect_means_are_sums("f32", 300000, {{{0, kInf}}, {{150000, -kInf}}}); }

// Rows of 45 points: two groups of 16 lanes and a tail of 13.
TEST(WelfordNonFinite, LanesBesideMax) {
  expect_means_are_sums("f32", 45,
                        {{{0, kInf}}, {{20, kInf}}, {{40, -kInf}}, {{3, kInf}, {44, -kInf}}, {{17, kNan}}, {}}, true);
}

}  // namespace
}  // namespace kiln
