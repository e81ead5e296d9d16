// verify's comparison (onnx/verify.h), on the reference's test scenarios (SPEC.md 2f).
#include <gtest/gtest.h>

#include <cmath>

#include "onnx/verify.h"

namespace kiln::onnx {
namespace {

Tensor vec(std::vector<double> v, DType d = DType::F32) {
  const int64_t n = static_cast<int64_t>(v.size());
  return Tensor::from_doubles(v, {n}, d);
}

TEST(OnnxVerifyCompare, ExactOutputPasses) {
  OutputReport r = compare_output(vec({1, 2, 3}), vec({1, 2, 3}), {});
  EXPECT_TRUE(r.passed);
  EXPECT_EQ(r.max_abs_error, 0);
  EXPECT_EQ(r.mismatch_fraction, 0);
}

TEST(OnnxVerifyCompare, RelativeErrorBeyondRtolFailsUnlessAccepted) {
  // Off by 1e-2 relative with rtol 1e-3: a failure; with acceptable_error_percentage 1, a pass.
  OutputReport r = compare_output(vec({1.01, 2.02}), vec({1, 2}), {});
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.mismatch_fraction, 1);
  EXPECT_NEAR(r.max_rel_error, 0.01, 1e-6);
  VerifyOptions lenient;
  lenient.acceptable_error_percentage = 1.0;
  EXPECT_TRUE(compare_output(vec({1.01, 2.02}), vec({1, 2}), lenient).passed);
}

TEST(OnnxVerifyCompare, AcceptableErrorPercentageCountsMismatchingElements) {
  std::vector<double> want(10, 1.0), got(10, 1.0);
  got[7] = 5.0;  // one of ten
  VerifyOptions o;
  o.acceptable_error_percentage = 0.1;
  OutputReport r = compare_output(vec(got), vec(want), o);
  EXPECT_TRUE(r.passed);
  EXPECT_EQ(r.worst_index, std::vector<int64_t>{7});
  o.acceptable_error_percentage = 0.05;
  EXPECT_FALSE(compare_output(vec(got), vec(want), o).passed);
}

TEST(OnnxVerifyCompare, ZeroAcceptableErrorMeansNoneNotUnset) {
  // The reference treats 0 as "unset" (falsy); kiln takes it at its word: no element may differ.
  std::vector<double> want(4, 1.0), got(4, 1.0);
  got[0] = 2.0;
  VerifyOptions o;
  o.acceptable_error_percentage = 0.0;
  EXPECT_FALSE(compare_output(vec(got), vec(want), o).passed);
  EXPECT_TRUE(compare_output(vec(want), vec(want), o).passed);
}

TEST(OnnxVerifyCompare, ShapeMustMatchUnlessCheckShapeIsOff) {
  const Tensor onnx = Tensor::from_doubles({1, 2, 3}, {1, 3}, DType::F32);
  const Tensor kiln = vec({1, 2, 3});
  EXPECT_FALSE(compare_output(onnx, kiln, {}).passed);
  VerifyOptions o;
  o.check_shape = false;
  EXPECT_TRUE(compare_output(onnx, kiln, o).passed);
}

TEST(OnnxVerifyCompare, DtypeMustMatchUnlessCheckDtypeIsOff) {
  EXPECT_FALSE(compare_output(vec({1, 2}, DType::F64), vec({1, 2}), {}).passed);
  VerifyOptions o;
  o.check_dtype = false;
  EXPECT_TRUE(compare_output(vec({1, 2}, DType::F64), vec({1, 2}), o).passed);
}

TEST(OnnxVerifyCompare, NanEqualsNanAndIntegersCompareExactly) {
  EXPECT_TRUE(compare_output(vec({NAN, 1}), vec({NAN, 1}), {}).passed);
  EXPECT_FALSE(compare_output(vec({NAN, 1}), vec({0, 1}), {}).passed);
  const Tensor big = Tensor::from_ints({(int64_t{1} << 60) + 1}, {1}, DType::I64);
  const Tensor other = Tensor::from_ints({int64_t{1} << 60}, {1}, DType::I64);
  EXPECT_FALSE(compare_output(big, other, {}).passed);
}

TEST(OnnxVerifyCompare, OutOfRangeAcceptableErrorIsAnError) {
  Graph g;
  VerifyOptions o;
  o.acceptable_error_percentage = 1.5;
  Expected<VerifyReport> r = verify(g, {}, o);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("acceptable_error_percentage must be in [0, 1]"), std::string::npos);
}

}  // namespace
}  // namespace kiln::onnx
