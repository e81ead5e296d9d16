// Reduction and cumsum reference kernels on hand-computed cases (PyTorch 2 CPU semantics).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ops/op_call.h"

namespace kiln {
namespace {

const double kNan = std::numeric_limits<double>::quiet_NaN();

KernelOperand T(const Tensor& t) { return KernelOperand{t, Scalar()}; }

Tensor F(std::vector<double> v, std::vector<int64_t> sizes, DType t = DType::F32) {
  return Tensor::from_doubles(v, sizes, t);
}
Tensor I(std::vector<int64_t> v, std::vector<int64_t> sizes, DType t = DType::I64) {
  return Tensor::from_ints(v, sizes, t);
}

Tensor run1(OpKind op, const Tensor& x, const AttrMap& attrs = {}) {
  std::vector<KernelOperand> ops{T(x)};
  Expected<std::vector<Tensor>> r = run_op(op, attrs, ops);
  EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().message());
  return r ? r.value()[0] : Tensor();
}

std::string run_error(OpKind op, const Tensor& x, const AttrMap& attrs = {}) {
  std::vector<KernelOperand> ops{T(x)};
  Expected<std::vector<Tensor>> r = run_op(op, attrs, ops);
  return r ? "no error" : r.error().message();
}

void expect_equal(const Tensor& got, const Tensor& want) {
  EXPECT_TRUE(got.equal(want)) << "got " << got.to_string() << "\nwant " << want.to_string();
}

const Tensor kA = Tensor::from_doubles({1, 5, 3, 4, 2, 6}, {2, 3});

TEST(KernelsReduce, SumDimsKeepdimAndDtypes) {
  expect_equal(run1(OpKind::Sum, kA), F({21}, {}));
  expect_equal(run1(OpKind::Sum, kA, {{"dim", AttrValue::Ints{}}}), F({21}, {}));
  expect_equal(run1(OpKind::Sum, kA, {{"dim", AttrValue::Ints{1}}, {"keepdim", true}}), F({9, 12}, {2, 1}));
  expect_equal(run1(OpKind::Sum, kA, {{"dim", AttrValue::Ints{-2}}}), F({5, 7, 9}, {3}));
  expect_equal(run1(OpKind::Sum, I({1, 1, 0}, {3}, DType::Bool)), I({2}, {}));
  expect_equal(run1(OpKind::Sum, I({100, 100}, {2}, DType::I8), {{"dtype", DType::I8}}), I({-56}, {}, DType::I8));
  EXPECT_NE(run_error(OpKind::Sum, kA, {{"dim", AttrValue::Ints{0, -2}}}).find("appears multiple times"),
            std::string::npos);
  EXPECT_NE(run_error(OpKind::Sum, kA, {{"dim", AttrValue::Ints{2}}}).find("out of range"), std::string::npos);
}

TEST(KernelsReduce, EmptyDims) {
  Tensor e = Tensor::zeros({0, 3});
  expect_equal(run1(OpKind::Sum, e, {{"dim", AttrValue::Ints{0}}}), F({0, 0, 0}, {3}));
  expect_equal(run1(OpKind::Prod, e, {{"dim", 0}}), F({1, 1, 1}, {3}));
  expect_equal(run1(OpKind::Mean, e), F({kNan}, {}));
  expect_equal(run1(OpKind::Amax, e, {{"dim", AttrValue::Ints{1}}}), F({}, {0}));
  EXPECT_NE(run_error(OpKind::Amax, e, {{"dim", AttrValue::Ints{0}}}).find("zero-size"), std::string::npos);
  EXPECT_NE(run_error(OpKind::Argmax, e).find("zero-size"), std::string::npos);
  expect_equal(run1(OpKind::All, e), I({1}, {}, DType::Bool));
}

TEST(KernelsReduce, MeanVarStd) {
  EXPECT_NE(run_error(OpKind::Mean, I({1, 2}, {2})).find("could not infer output dtype"), std::string::npos);
  expect_equal(run1(OpKind::Mean, I({1, 2}, {2}), {{"dtype", DType::F64}}), F({1.5}, {}, DType::F64));
  expect_equal(run1(OpKind::Var, F({1, 2}, {2})), F({0.5}, {}));
  expect_equal(run1(OpKind::Var, F({1, 2}, {2}), {{"correction", 0}}), F({0.25}, {}));
  expect_equal(run1(OpKind::Var, F({1}, {1})), F({kNan}, {}));
  expect_equal(run1(OpKind::Std, F({1, 2, 3, 5}, {2, 2}, DType::F64), {{"dim", AttrValue::Ints{1}}, {"keepdim", true}}),
               F({std::sqrt(0.5), std::sqrt(2.0)}, {2, 1}, DType::F64));
  EXPECT_NE(run_error(OpKind::Var, I({1, 2}, {2})).find("not implemented"), std::string::npos);
}

TEST(KernelsReduce, ExtremesAndArgs) {
  expect_equal(run1(OpKind::Amax, kA, {{"dim", AttrValue::Ints{0}}}), F({4, 5, 6}, {3}));
  expect_equal(run1(OpKind::Amin, F({1, kNan, 0}, {3})), F({kNan}, {}));
  expect_equal(run1(OpKind::Argmax, I({1, 3, 3}, {3})), I({1}, {}));
  expect_equal(run1(OpKind::Argmax, F({1, kNan, 5, kNan}, {4})), I({1}, {}));
  expect_equal(run1(OpKind::Argmin, I({1, 3, 0, 5}, {2, 2}), {{"keepdim", true}}), I({2}, {1, 1}));
  expect_equal(run1(OpKind::Argmax, I({1, 3, 0, 5}, {2, 2}), {{"dim", 0}, {"keepdim", true}}), I({0, 1}, {1, 2}));
  EXPECT_NE(run_error(OpKind::Argmax, I({1}, {1}, DType::Bool)).find("bool"), std::string::npos);
}

TEST(KernelsReduce, LogsumexpAnyAllCumsum) {
  const double inf = std::numeric_limits<double>::infinity();
  expect_equal(run1(OpKind::Logsumexp, F({inf, 1, -inf, -inf}, {2, 2}), {{"dim", AttrValue::Ints{1}}}),
               F({inf, -inf}, {2}));
  expect_equal(run1(OpKind::Any, F({0, kNan}, {2})), I({1}, {}, DType::Bool));
  expect_equal(run1(OpKind::Any, kA, {{"dim", AttrValue::Ints{}}}), I({1, 1, 1, 1, 1, 1}, {2, 3}, DType::Bool));
  expect_equal(run1(OpKind::All, I({1, 0, 1, 1}, {2, 2}), {{"dim", AttrValue::Ints{1}}}), I({0, 1}, {2}, DType::Bool));
  expect_equal(run1(OpKind::Cumsum, I({1, 1, 0}, {3}, DType::Bool), {{"dim", 0}}), I({1, 2, 2}, {3}));
  // A transposed (non-contiguous) input scanned along its last dim.
  Tensor at = kA.as_strided({3, 2}, {1, 3}, 0);
  expect_equal(run1(OpKind::Cumsum, at, {{"dim", 1}}), F({1, 5, 5, 7, 3, 9}, {3, 2}));
}

}  // namespace
}  // namespace kiln
