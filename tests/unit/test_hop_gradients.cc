// Gradients through the higher-order ops (autograd/rules_higher_order.cc, rules_scan.cc):
// programs written with kiln::cond, scan and map are captured, their joint graphs run on the
// interpreter (value_and_grad), and each input's gradient is checked against float64
// central differences of L(x) = sum_r <f(x)_r, u_r> for random output gradients u, on
// several inputs. Then the errors: while_loop, and a body that cannot be differentiated.
#include <gtest/gtest.h>

#include <cmath>

#include "autograd/joint_graph.h"
#include "autograd/value_and_grad.h"
#include "interp/interpreter.h"
#include "ir/printer.h"
#include "kiln/kiln.h"

namespace kiln {
namespace {

using Tensors = std::vector<Tensor>;

std::vector<double> values(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[static_cast<size_t>(i)] = t.item_double(i);
  return v;
}

double dot(const Tensor& a, const Tensor& b) {
  std::vector<double> x = values(a), y = values(b);
  double s = 0;
  for (size_t i = 0; i < x.size(); ++i) s += x[i] * y[i];
  return s;
}

Tensor randn(std::vector<int64_t> sizes, uint64_t seed) { return Tensor::randn(std::move(sizes), seed, DType::F64); }

Captured capture_ok(const CaptureFn& fn, const Tensors& examples) {
  auto captured = capture(fn, examples);
  EXPECT_TRUE(captured) << captured.error().to_string();
  return captured ? std::move(*captured) : Captured{};
}

// Checks every floating input's gradient of `g` at `inputs` element by element.
void expect_gradients_match_differences(const Graph& g, const Tensors& inputs, uint64_t seed) {
  // One output gradient per floating output; other outputs (integer counters) get none.
  std::vector<size_t> floating;
  Tensors u;
  for (size_t r = 0; r < g.outputs().size(); ++r)
    if (is_floating(g.outputs()[r]->type().dtype)) {
      floating.push_back(r);
      u.push_back(randn(g.outputs()[r]->type().shape.sizes(), seed + 31 * r));
    }
  Expected<ValueAndGrad> vg = value_and_grad(g, inputs, u);
  ASSERT_TRUE(vg) << vg.error().to_string() << "\n" << print_graph(g);

  auto loss = [&](const Tensors& in) {
    auto y = interpret(g, in);
    EXPECT_TRUE(y) << y.error().to_string();
    double l = 0;
    for (size_t k = 0; y && k < u.size(); ++k) l += dot((*y)[floating[k]], u[k]);
    return l;
  };
  Expected<JointGraph> joint = joint_graph(g);
  ASSERT_TRUE(joint);
  ASSERT_EQ(vg->grads.size(), joint->wrt_inputs.size());
  const double h = 1e-6;
  for (size_t k = 0; k < joint->wrt_inputs.size(); ++k) {
    const size_t i = static_cast<size_t>(joint->wrt_inputs[k]);
    const std::vector<double> x = values(inputs[i]), grad = values(vg->grads[k]);
    ASSERT_EQ(grad.size(), x.size()) << "input " << i;
    for (size_t e = 0; e < x.size(); ++e) {
      Tensors plus = inputs, minus = inputs;
      std::vector<double> xp = x, xm = x;
      xp[e] += h;
      xm[e] -= h;
      plus[i] = Tensor::from_doubles(xp, inputs[i].sizes(), DType::F64);
      minus[i] = Tensor::from_doubles(xm, inputs[i].sizes(), DType::F64);
      const double numeric = (loss(plus) - loss(minus)) / (2 * h);
      EXPECT_NEAR(grad[e], numeric, 1e-6 * std::abs(numeric) + 1e-7) << "input " << i << " element " << e;
    }
  }
}

// Captures `fn` on the first input set, then checks gradients on every set.
void check(const CaptureFn& fn, const std::vector<Tensors>& input_sets) {
  Captured captured = capture_ok(fn, input_sets[0]);
  ASSERT_TRUE(captured.graph);
  for (size_t s = 0; s < input_sets.size(); ++s) {
    SCOPED_TRACE("input set " + std::to_string(s));
    expect_gradients_match_differences(*captured.graph, input_sets[s], 7 + s);
  }
}

Tensor boolean(bool b) { return Tensor::scalar(b, DType::Bool); }

// ---- cond ----

// w is read by one branch only (the other gives it zeros); x is closed over by both.
Tensors two_branches(std::span<const Tensor> in) {
  const Tensor x = in[1], w = in[2];
  return cond(
      in[0],
      [&](std::span<const Tensor> a) {
        return Tensors{sin(a[0]) * w, a[0] * x};
      },
      [&](std::span<const Tensor> a) {
        return Tensors{exp(a[0]) + 1.0, tanh(a[0]) * x * x};
      },
      {x});
}

TEST(HopGradients, CondBothBranchesMatchFiniteDifferences) {
  check(two_branches, {{boolean(true), randn({4}, 1), randn({4}, 2)},
                       {boolean(false), randn({4}, 3), randn({4}, 4)},
                       {boolean(true), randn({4}, 5), randn({4}, 6)}});
}

TEST(HopGradients, CondBackwardIsACondOnTheSamePredicate) {
  Captured captured = capture_ok(two_branches, {boolean(true), randn({4}, 1), randn({4}, 2)});
  ASSERT_TRUE(captured.graph);
  Expected<JointGraph> joint = joint_graph(*captured.graph);
  ASSERT_TRUE(joint) << joint.error().to_string();
  int conds = 0;
  for (const Node* n : joint->graph->nodes())
    if (n->op() == OpKind::Cond) {
      ++conds;
      EXPECT_EQ(n->operand(0).value, joint->graph->input(0));
    }
  EXPECT_EQ(conds, 2) << print_graph(*joint->graph);
}

// ---- scan ----

// An RNN-like scan over 5 steps: a float carry, an integer step counter, a weight closed over
// (lifted to a carry combine_fn passes on), and two per-step outputs.
Tensors rnn(std::span<const Tensor> in) {
  const Tensor w = in[2];
  return scan(
      [&](std::span<const Tensor> a) {
        Tensor h = tanh(a[0] * w + a[2] * to(a[1], DType::F64));
        return Tensors{h, a[1] + 1, h * a[2], sin(a[0])};
      },
      {in[0], in[3]}, {in[1]});
}

TEST(HopGradients, ScanWithCarryAndOutputsMatchesFiniteDifferences) {
  const Tensor one = Tensor::scalar(int64_t{1}, DType::I64);
  check(rnn,
        {{randn({3}, 1), randn({5, 3}, 2), randn({3}, 3), one}, {randn({3}, 4), randn({5, 3}, 5), randn({3}, 6), one}});
}

// Scanned along dim 1, with a scalar carry beside a vector one (the reverse scan's operands
// differ in rank) and two scanned operands.
Tensors scan_dim1(std::span<const Tensor> in) {
  return scan(
      [](std::span<const Tensor> a) {
        Tensor s = a[0] + sum(a[2] * a[3]);
        Tensor m = a[1] * cos(a[2]) + a[0];
        return Tensors{s, m, m * a[3]};
      },
      {in[0], in[1]}, {in[2], in[3]}, 1);
}

TEST(HopGradients, ScanAlongDim1WithMixedRanksMatchesFiniteDifferences) {
  check(scan_dim1, {{randn({}, 1), randn({2}, 2), randn({2, 5}, 3), randn({2, 5}, 4)},
                    {randn({}, 5), randn({2}, 6), randn({2, 5}, 7), randn({2, 5}, 8)}});
}

// ---- map ----

// A closed-over weight and an explicit extra operand, each read by every index.
Tensors mapped_layer(std::span<const Tensor> in) {
  const Tensor w = in[1];
  return map(
      [&](std::span<const Tensor> a) {
        return Tensors{sin(a[0] * w) + a[1], sum(a[0] * a[1])};
      },
      {in[0]}, {in[2]});
}

TEST(HopGradients, MapWithClosedOverWeightMatchesFiniteDifferences) {
  check(mapped_layer,
        {{randn({4, 3}, 1), randn({3}, 2), randn({3}, 3)}, {randn({4, 3}, 4), randn({3}, 5), randn({3}, 6)}});
}

// ---- nesting: the rules call joint_graph on bodies that hold higher-order ops ----

Tensors map_of_cond(std::span<const Tensor> in) {
  return map(
      [](std::span<const Tensor> a) {
        return cond(
            gt(sum(a[0]), 0.0), [](std::span<const Tensor> b) { return Tensors{b[0] * b[0] * b[1]}; },
            [](std::span<const Tensor> b) { return Tensors{sin(b[0]) - b[1]}; }, {a[0], a[1]});
      },
      {in[0]}, {in[1]});
}

TEST(HopGradients, CondInsideMapMatchesFiniteDifferences) {
  check(map_of_cond, {{randn({5, 3}, 1), randn({3}, 2)}, {randn({5, 3}, 3), randn({3}, 4)}});
}

// ---- errors ----

Tensors doubling_loop(std::span<const Tensor> in) {
  return while_loop([](std::span<const Tensor> c) { return Tensors{lt(c[0], 5)}; },
                    [](std::span<const Tensor> c) {
                      return Tensors{c[0] + 1, c[1] * 2.0};
                    },
                    {in[0], in[1]});
}

TEST(HopGradients, WhileLoopIsAnErrorThatSuggestsScan) {
  Captured captured = capture_ok(doubling_loop, {Tensor::scalar(int64_t{0}, DType::I64), randn({4}, 1)});
  ASSERT_TRUE(captured.graph);
  Expected<JointGraph> joint = joint_graph(*captured.graph);
  ASSERT_FALSE(joint);
  EXPECT_EQ(joint.error().message().rfind(
                "joint_graph: cannot differentiate while_loop: reverse mode through a loop whose trip count depends "
                "on the data is not supported (torch.while_loop has no autograd either); use scan when the trip "
                "count is known (at %0, %1 = while_loop(%",
                0),
            0u)
      << joint.error().message();
  EXPECT_TRUE(joint.error().loc().known());
}

TEST(HopGradients, WhileLoopOffTheDifferentiatedPathIsFine) {
  // x flows into the loop, but only the loop's integer counter reaches the output.
  auto fn = [](std::span<const Tensor> in) {
    Tensors r = doubling_loop(in);
    return Tensors{in[1] * to(r[0], DType::F64)};
  };
  Captured captured = capture_ok(fn, {Tensor::scalar(int64_t{0}, DType::I64), randn({4}, 1)});
  ASSERT_TRUE(captured.graph);
  Expected<JointGraph> joint = joint_graph(*captured.graph);
  EXPECT_TRUE(joint) << joint.error().to_string();
}

TEST(HopGradients, BodyThatCannotBeDifferentiatedNamesTheBodyAndTheNode) {
  auto fn = [](std::span<const Tensor> in) {
    return cond(
        in[0],
        [](std::span<const Tensor> a) {
          return Tensors{doubling_loop(Tensors{a[0], a[1]})[1]};
        },
        [](std::span<const Tensor> a) { return Tensors{a[1]}; }, {in[1], in[2]});
  };
  Captured captured = capture_ok(fn, {boolean(true), Tensor::scalar(int64_t{0}, DType::I64), randn({4}, 1)});
  ASSERT_TRUE(captured.graph);
  Expected<JointGraph> joint = joint_graph(*captured.graph);
  ASSERT_FALSE(joint);
  EXPECT_EQ(joint.error().message().rfind("joint_graph: cannot differentiate while_loop: ", 0), 0u)
      << joint.error().message();
  EXPECT_NE(joint.error().context().find("in true_fn of cond (at %0 = cond(%"), std::string::npos)
      << joint.error().context();
}

}  // namespace
}  // namespace kiln
