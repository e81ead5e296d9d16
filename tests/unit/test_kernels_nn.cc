// Normalization, loss and nn kernels on small cases with values from PyTorch 2 on CPU, and
// the statistics and determinism of the random ones (dropout, attention dropout), which
// cannot match torch's generator.
#include "kernel_test_util.h"

namespace kiln {
namespace {

using namespace test;

TEST(KernelsNorm, SoftmaxAndLogSoftmax) {
  Tensor x = F({1, 2, 3});
  const double z = std::exp(1) + std::exp(2) + std::exp(3);
  expect_close(run1(OpKind::Softmax, {T(x)}, {{"dim", 0}}), F({std::exp(1) / z, std::exp(2) / z, std::exp(3) / z}));
  expect_close(run1(OpKind::LogSoftmax, {T(x)}, {{"dim", -1}, {"dtype", DType::F64}}),
               F({1 - std::log(z), 2 - std::log(z), 3 - std::log(z)}, {3}, DType::F64));
  Tensor r = run1(OpKind::Softmax, {T(F({-INFINITY, -INFINITY}))}, {{"dim", 0}});
  EXPECT_TRUE(std::isnan(r.item_double(0)));
  EXPECT_NE(run_error(OpKind::Softmax, {T(I({1}))}, {{"dim", 0}}).find("not implemented for i64"), std::string::npos);
}

TEST(KernelsNorm, LayerRmsBatchGroupNorm) {
  Tensor x = F({1, 2, 3, 4}, {1, 4});
  const double rstd = 1 / std::sqrt(1.25 + 1e-5);
  expect_close(run1(OpKind::LayerNorm, {T(x), None(), T(F({1, 1, 1, 10}))}, {{"normalized_shape", AttrValue::Ints{4}}}),
               F({-1.5 * rstd + 1, -0.5 * rstd + 1, 0.5 * rstd + 1, 1.5 * rstd + 10}, {1, 4}));
  EXPECT_NE(run_error(OpKind::LayerNorm, {T(x)}, {{"normalized_shape", AttrValue::Ints{3}}})
                .find("expected input with shape"),
            std::string::npos);
  const double rms = 1 / std::sqrt(7.5 + 1e-6);
  expect_close(run1(OpKind::RmsNorm, {T(x)}, {{"normalized_shape", AttrValue::Ints{4}}, {"eps", 1e-6}}),
               F({rms, 2 * rms, 3 * rms, 4 * rms}, {1, 4}));
  // batch_norm over [N=2, C=1, 2]: training uses batch stats; eval uses running stats.
  Tensor b = F({1, 2, 3, 4}, {2, 1, 2});
  expect_close(run1(OpKind::BatchNorm, {T(b), None(), None(), None(), None()}, {{"training", true}}),
               F({-1.5 * rstd, -0.5 * rstd, 0.5 * rstd, 1.5 * rstd}, {2, 1, 2}), 1e-4);
  expect_close(run1(OpKind::BatchNorm, {T(b), T(F({2})), T(F({1})), T(F({1})), T(F({4}))}, {{"eps", 0.0}}),
               F({1, 2, 3, 4}, {2, 1, 2}));
  EXPECT_NE(run_error(OpKind::BatchNorm, {T(b), None(), None(), None(), None()}).find("evaluation mode"),
            std::string::npos);
  Tensor g = F({1, 2, 3, 4, 5, 5, 5, 5}, {1, 4, 2});
  Tensor gn = run1(OpKind::GroupNorm, {T(g)}, {{"num_groups", 2}});
  expect_close(gn, F({-1.5 * rstd, -0.5 * rstd, 0.5 * rstd, 1.5 * rstd, 0, 0, 0, 0}, {1, 4, 2}), 1e-4);
  EXPECT_NE(run_error(OpKind::GroupNorm, {T(g)}, {{"num_groups", 3}}).find("divisible by num_groups"),
            std::string::npos);
}

TEST(KernelsLoss, CrossEntropyNllMse) {
  Tensor x = F({1, 2, 3, 1, 0, -1}, {2, 3});
  Tensor t = I({2, 0}), w = F({1, 2, 0.5});
  expect_close(run1(OpKind::CrossEntropy, {T(x), T(t)}, {{"label_smoothing", 0.2}}),
               F({0.6076059341}, {1}).as_strided({}, {}, 0));
  expect_close(run1(OpKind::CrossEntropy, {T(x), T(t), T(w)}, {{"label_smoothing", 0.2}}),
               F({0.7640066146}, {1}).as_strided({}, {}, 0));
  expect_close(run1(OpKind::CrossEntropy, {T(x), T(I({2, -100}))}), F({0.4076059460}, {1}).as_strided({}, {}, 0));
  expect_close(run1(OpKind::CrossEntropy, {T(x), T(t)}, {{"reduction", "none"}, {"label_smoothing", 0.1}}),
               F({0.50760591, 0.50760591}));
  expect_close(run1(OpKind::CrossEntropy, {T(x), T(F({0.2, 0.3, 0.5, 1, 0, 0}, {2, 3}))}, {{"label_smoothing", 0.1}}),
               F({0.8226059675}, {1}).as_strided({}, {}, 0));
  expect_close(run1(OpKind::NllLoss, {T(x), T(t), T(w)}), F({-1.6666666269}, {1}).as_strided({}, {}, 0));
  EXPECT_NE(run_error(OpKind::NllLoss, {T(x), T(I({3, 0}))}).find("target 3 is out of bounds"), std::string::npos);
  expect_close(run1(OpKind::MseLoss, {T(F({1, 2})), T(F({0, 0}))}), F({2.5}, {1}).as_strided({}, {}, 0));
  expect_close(run1(OpKind::MseLoss, {T(F({1, 2})), T(F({0}))}, {{"reduction", "sum"}}),
               F({5}, {1}).as_strided({}, {}, 0));
}

TEST(KernelsNn, ConvAndPools) {
  Tensor img = arange_f({1, 1, 4, 4});
  expect_close(run1(OpKind::Conv2d, {T(img), T(F({1, 1, 1, 1}, {1, 1, 2, 2})), T(F({0.5}))},
                    {{"stride", AttrValue::Ints{2}}, {"padding", AttrValue::Ints{1}}}),
               F({0.5, 3.5, 3.5, 12.5, 30.5, 18.5, 12.5, 27.5, 15.5}, {1, 1, 3, 3}));
  expect_close(run1(OpKind::AvgPool2d, {T(img)},
                    {{"kernel_size", AttrValue::Ints{3}},
                     {"stride", AttrValue::Ints{2}},
                     {"padding", AttrValue::Ints{1}},
                     {"ceil_mode", true},
                     {"count_include_pad", false}}),
               F({2.5, 4, 5, 8.5, 10, 11, 12.5, 14, 15}, {1, 1, 3, 3}));
  expect_close(run1(OpKind::MaxPool2d, {T(img)},
                    {{"kernel_size", AttrValue::Ints{2}},
                     {"stride", AttrValue::Ints{2}},
                     {"padding", AttrValue::Ints{1}},
                     {"ceil_mode", true}}),
               F({0, 2, 3, 8, 10, 11, 12, 14, 15}, {1, 1, 3, 3}));
  expect_close(run1(OpKind::AdaptiveAvgPool2d, {T(arange_f({1, 3, 5}))}, {{"output_size", AttrValue::Ints{2, 3}}}),
               F({3, 4.5, 6, 8, 9.5, 11}, {1, 2, 3}));
  EXPECT_NE(run_error(OpKind::Conv2d, {T(arange_f({1, 5, 8, 8})), T(arange_f({4, 3, 3, 3}))})
                .find("to have 3 channels, but got 5"),
            std::string::npos);
}

TEST(KernelsNn, DropoutStatisticsAndDeterminism) {
  Tensor x = Tensor::full({10000}, Scalar(1.0), DType::F32);
  Tensor a = run1(OpKind::Dropout, {T(x)}, {{"p", 0.3}, {"train", true}, {"seed", 7}});
  Tensor b = run1(OpKind::Dropout, {T(x)}, {{"p", 0.3}, {"train", true}, {"seed", 7}});
  EXPECT_TRUE(a.equal(b));
  int64_t kept = 0;
  for (int64_t i = 0; i < a.numel(); ++i) {
    const double v = a.item_double(i);
    if (v != 0) {
      ++kept;
      EXPECT_NEAR(v, 1 / 0.7, 1e-6);
    }
  }
  EXPECT_NEAR(static_cast<double>(kept) / 10000, 0.7, 0.02);
  EXPECT_FALSE(a.equal(run1(OpKind::Dropout, {T(x)}, {{"p", 0.3}, {"train", true}, {"seed", 8}})));
  EXPECT_TRUE(run1(OpKind::Dropout, {T(x)}, {{"p", 0.0}, {"train", true}}).equal(x));
  EXPECT_TRUE(run1(OpKind::Dropout, {T(x)}, {{"p", 1.0}, {"train", true}}).equal(Tensor::zeros({10000})));
  EXPECT_TRUE(run1(OpKind::Dropout, {T(x)}, {{"p", 0.5}, {"train", false}}).equal(x));
}

TEST(KernelsNn, ScaledDotProductAttention) {
  Tensor q = F({1, 0, 0, 1}, {1, 2, 2}), v = F({1, 2, 3, 4}, {1, 2, 2});
  expect_close(run1(OpKind::ScaledDotProductAttention, {T(q), T(q), T(v)}, {{"is_causal", true}}),
               F({1, 2, 2.33952308, 3.33952308}, {1, 2, 2}));
  Tensor mask = Tensor::from_ints({0, 1, 0, 0}, {2, 2}, DType::Bool);
  expect_close(run1(OpKind::ScaledDotProductAttention, {T(q), T(q), T(v), T(mask)}), F({3, 4, 0, 0}, {1, 2, 2}));
  // Attention dropout: deterministic per seed; p = 0 is the plain result.
  Tensor d1 = run1(OpKind::ScaledDotProductAttention, {T(q), T(q), T(v)}, {{"dropout_p", 0.5}, {"seed", 3}});
  Tensor d2 = run1(OpKind::ScaledDotProductAttention, {T(q), T(q), T(v)}, {{"dropout_p", 0.5}, {"seed", 3}});
  EXPECT_TRUE(d1.equal(d2));
}

}  // namespace
}  // namespace kiln
