// SGD and AdamW against their update formulas worked by hand for a few steps (the PyTorch
// oracle, tests/oracle/run_optimizer_oracle.py, checks them against torch.optim itself), and
// the errors both report.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "support/error.h"
#include "train/adamw.h"
#include "train/sgd.h"

namespace kiln::optim {
namespace {

Tensor f64(std::vector<double> v) {
  const int64_t n = static_cast<int64_t>(v.size());
  return Tensor::from_doubles(std::move(v), {n}, DType::F64);
}

NamedTensors grads_of(const Tensor& g) { return {{"p", g}}; }

void expect_values(const Tensor& t, std::vector<double> want) {
  ASSERT_EQ(t.numel(), static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(t.item_double(static_cast<int64_t>(i)), want[i], 1e-12) << i;
}

TEST(SGD, MomentumThreeSteps) {
  const Tensor p = f64({1.0, -2.0});
  SGD sgd({{"p", p}}, {.lr = 0.1, .momentum = 0.9});
  const Tensor g = f64({0.5, 0.25});
  sgd.step(grads_of(g));  // buf = g = [0.5, 0.25]; p -= 0.1 buf
  expect_values(p, {0.95, -2.025});
  sgd.step(grads_of(g));  // buf = 0.9 buf + g = [0.95, 0.475]
  expect_values(p, {0.855, -2.0725});
  sgd.step(grads_of(g));  // buf = [1.355, 0.6775]
  expect_values(p, {0.7195, -2.14025});
}

TEST(SGD, NesterovWithWeightDecay) {
  const Tensor p = f64({1.0});
  SGD sgd({{"p", p}}, {.lr = 0.1, .momentum = 0.9, .weight_decay = 0.1, .nesterov = true});
  sgd.step(grads_of(f64({0.5})));  // d = 0.5 + 0.1 * 1 = 0.6; buf = 0.6; d = 0.6 + 0.9 * 0.6 = 1.14
  expect_values(p, {0.886});
  sgd.step(grads_of(f64({0.5})));  // d = 0.5886; buf = 0.54 + 0.5886 = 1.1286; d = 0.5886 + 1.01574
  expect_values(p, {0.725566});
}

TEST(SGD, DampeningSparesTheFirstStep) {
  const Tensor p = f64({0.0});
  SGD sgd({{"p", p}}, {.lr = 1.0, .momentum = 0.5, .dampening = 0.5});
  sgd.step(grads_of(f64({1.0})));  // buf = g = 1 (no dampening on the first step)
  expect_values(p, {-1.0});
  sgd.step(grads_of(f64({3.0})));  // buf = 0.5 * 1 + (1 - 0.5) * 3 = 2
  expect_values(p, {-3.0});
}

TEST(SGD, ParametersWithoutAGradientAreSkippedAndF32IsRounded) {
  const Tensor a = Tensor::from_doubles({1.0}, {1});
  const Tensor b = Tensor::from_doubles({2.0}, {1});
  SGD sgd({{"a", a}, {"b", b}}, {.lr = 0.1});
  sgd.step({{"b", Tensor::from_doubles({1.0}, {1})}});
  EXPECT_EQ(a.item_double(), 1.0);
  EXPECT_EQ(b.item_double(), static_cast<double>(1.9f));
}

TEST(AdamW, TwoStepsByTheFormulas) {
  const Tensor p = f64({1.0});
  AdamW adam({{"p", p}}, {.lr = 0.1, .betas = {0.9, 0.999}, .eps = 1e-8, .weight_decay = 0.01});
  adam.step(grads_of(f64({0.5})));
  // p = 1 * (1 - 0.1 * 0.01); m = 0.1 * 0.5; v = 0.001 * 0.25;
  // p -= 0.1 / (1 - 0.9) * m / (sqrt(v) / sqrt(1 - 0.999) + 1e-8)
  double m = 0.05, v = 0.00025, want = 0.999 - 1.0 * m / (std::sqrt(v) / std::sqrt(0.001) + 1e-8);
  expect_values(p, {want});
  EXPECT_EQ(adam.step_count(0), 1);
  adam.step(grads_of(f64({-1.0})));
  m = 0.9 * m + 0.1 * -1.0;
  v = 0.999 * v + 0.001 * 1.0;
  want = want * 0.999 - 0.1 / (1 - 0.81) * m / (std::sqrt(v) / std::sqrt(1 - 0.999 * 0.999) + 1e-8);
  expect_values(p, {want});
}

// With amsgrad the denominator uses the largest second moment seen: after a large gradient
// and then a zero one, the second step divides by the first step's sqrt(v).
TEST(AdamW, AmsgradKeepsTheLargestSecondMoment) {
  const Tensor plain = f64({0.0}), ams = f64({0.0});
  AdamW a({{"p", plain}}, {.lr = 0.1, .weight_decay = 0.0});
  AdamW b({{"p", ams}}, {.lr = 0.1, .weight_decay = 0.0, .amsgrad = true});
  for (double g : {1.0, 0.0}) {
    a.step(grads_of(f64({g})));
    b.step(grads_of(f64({g})));
  }
  const double m = 0.09, v1 = 0.001, v2 = 0.999 * 0.001;
  const double first = -1.0 * 0.1 / (std::sqrt(v1) / std::sqrt(0.001) + 1e-8);
  const double bc2 = std::sqrt(1 - 0.999 * 0.999), step_size = 0.1 / (1 - 0.81);
  expect_values(plain, {first - step_size * m / (std::sqrt(v2) / bc2 + 1e-8)});
  expect_values(ams, {first - step_size * m / (std::sqrt(v1) / bc2 + 1e-8)});
}

template <typename Fn>
void expect_error(Fn fn, const std::string& text) {
  try {
    fn();
    FAIL() << "no error; wanted: " << text;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

TEST(OptimizerErrors, BadHyperparameters) {
  const Tensor p = f64({1.0});
  expect_error([&] { SGD({{"p", p}}, {.lr = -1.0}); }, "SGD: invalid learning rate -1");
  expect_error([&] { SGD({{"p", p}}, {.lr = 0.1, .momentum = -0.5}); }, "SGD: invalid momentum");
  expect_error([&] { SGD({{"p", p}}, {.lr = 0.1, .weight_decay = -1}); }, "SGD: invalid weight_decay");
  expect_error([&] { SGD({{"p", p}}, {.lr = 0.1, .nesterov = true}); }, "nesterov momentum requires a momentum");
  expect_error(
      [&] {
        SGD({{"p", p}}, {.lr = 0.1, .momentum = 0.9, .dampening = 0.1, .nesterov = true});
      },
      "and zero dampening");
  expect_error([&] { AdamW({{"p", p}}, {.lr = -1.0}); }, "AdamW: invalid learning rate");
  expect_error([&] { AdamW({{"p", p}}, {.eps = -1.0}); }, "AdamW: invalid epsilon");
  expect_error([&] { AdamW({{"p", p}}, {.betas = {1.0, 0.999}}); }, "invalid beta parameter at index 0");
  expect_error([&] { AdamW({{"p", p}}, {.betas = {0.9, -0.1}}); }, "invalid beta parameter at index 1");
  expect_error([&] { AdamW({{"p", p}}, {.weight_decay = -0.1}); }, "AdamW: invalid weight_decay");
}

TEST(OptimizerErrors, BadParametersAndGradients) {
  const Tensor p = f64({1.0, 2.0});
  expect_error([&] { SGD({{"i", Tensor::from_ints({1}, {1})}}, {}); }, "parameter 'i' must be a concrete floating");
  expect_error([&] { SGD({{"p", p}, {"p", p}}, {}); }, "parameter 'p' is given twice");
  SGD sgd({{"p", p}}, {.lr = 0.1});
  expect_error([&] { sgd.step({{"q", p}}); }, "gradient 'q' names no parameter");
  expect_error([&] { sgd.step({{"p", f64({1.0})}}); }, "gradient 'p' is f64[1], but the parameter is f64[2]");
  expect_error([&] { sgd.step({{"p", Tensor::from_doubles({1.0, 1.0}, {2})}}); }, "gradient 'p' is f32[2]");
  expect_error([&] { sgd.step({{"p", p}, {"p", p}}); }, "gradient 'p' is given twice");
  expect_error([&] { sgd.step({{"p", Tensor()}}); }, "gradient 'p' is not concrete");
  expect_values(p, {1.0, 2.0});  // nothing was updated by a rejected step
}

}  // namespace
}  // namespace kiln::optim
