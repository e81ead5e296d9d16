// Random ops with an explicit runtime generator state (ops/rng_state.h): the same state
// replays a draw, a new offset or seed draws afresh, nodes sharing a state differ by their
// seed attribute, and without a state every op draws exactly as before. Also the
// lift_rng_state pass and dropout's gradient under a state.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "autograd/joint_graph.h"
#include "core/random.h"
#include "frontend/functional.h"
#include "interp/interpreter.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "passes/lift_rng_state.h"

namespace kiln {
namespace {

Tensor state(int64_t seed, int64_t offset) { return Tensor::from_ints({seed, offset}, {2}); }

// Runs the one-graph program `text` on `inputs`; its outputs, or a failed expectation.
std::vector<Tensor> run(const std::string& text, const std::vector<Tensor>& inputs) {
  Expected<std::unique_ptr<Graph>> g = parse_graph(text);
  EXPECT_TRUE(g.has_value()) << (g ? "" : g.error().message());
  if (!g) return {};
  Expected<std::vector<Tensor>> out = interpret(**g, inputs);
  EXPECT_TRUE(out.has_value()) << (out ? "" : out.error().message());
  return out ? *out : std::vector<Tensor>{};
}

// One random node `node` (reading %x: f32[4,8] and %s: i64[2]) of result type `type`.
std::string one_node(const std::string& node, const std::string& type) {
  return "graph @g(%x: f32[4,8], %s: rng_state i64[2]) -> (" + type + ") {\n  %0 = " + node + " : " + type +
         "\n  return %0\n}\n";
}

struct RandomCase {
  const char* node;
  const char* type;
};
const RandomCase kCases[] = {
    {"dropout(%x, %s) {p=0.5, train=true, seed=3}", "f32[4,8]"},
    {"scaled_dot_product_attention(%x, %x, %x, none, %s) {dropout_p=0.5, seed=3}", "f32[4,8]"},
    {"rand(%s) {size=[32], seed=3}", "f32[32]"},
    {"randn(%s) {size=[32], seed=3}", "f32[32]"},
    {"randint(%s) {low=0, high=1000, size=[32], seed=3}", "i64[32]"},
    {"randperm(%s) {n=32, seed=3}", "i64[32]"},
};

Tensor draw(const RandomCase& c, const Tensor& s) {
  const Tensor x = Tensor::randn({4, 8}, 11);
  std::vector<Tensor> out = run(one_node(c.node, c.type), {x, s});
  return out.empty() ? Tensor() : out[0];
}

TEST(RngState, SameStateReplaysEveryRandomOp) {
  for (const RandomCase& c : kCases) {
    const Tensor a = draw(c, state(5, 7)), b = draw(c, state(5, 7));
    ASSERT_TRUE(a.defined()) << c.node;
    EXPECT_TRUE(a.equal(b)) << c.node;
  }
}

TEST(RngState, NewOffsetOrSeedDrawsAfresh) {
  for (const RandomCase& c : kCases) {
    const Tensor a = draw(c, state(5, 7));
    ASSERT_TRUE(a.defined()) << c.node;
    EXPECT_FALSE(a.equal(draw(c, state(5, 8)))) << c.node << ": offset stepped";
    EXPECT_FALSE(a.equal(draw(c, state(6, 7)))) << c.node << ": state seed changed";
  }
}

TEST(RngState, NodesSharingAStateDifferBySeedAttribute) {
  const std::vector<Tensor> out = run(R"(graph @g(%s: rng_state i64[2]) -> (f32[64], f32[64], f32[64]) {
  %0 = rand(%s) {size=[64], seed=1} : f32[64]
  %1 = rand(%s) {size=[64], seed=2} : f32[64]
  %2 = rand(%s) {size=[64], seed=1} : f32[64]
  return %0, %1, %2
})",
                                      {state(5, 0)});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_FALSE(out[0].equal(out[1]));
  EXPECT_TRUE(out[0].equal(out[2]));
}

TEST(RngState, WithoutStateDrawsAsBefore) {
  // The operand left out and written as `none` both draw Philox(seed attribute, i), which is
  // what Tensor::rand and friends draw from a plain seed.
  const std::vector<Tensor> out = run(R"(graph @g(%x: f32[4,8]) -> (f32[32], f32[32], i64[32], f32[32], f32[4,8]) {
  %0 = rand() {size=[32], seed=3} : f32[32]
  %1 = randn() {size=[32], seed=3} : f32[32]
  %2 = randint() {low=0, high=1000, size=[32], seed=3} : i64[32]
  %3 = rand(none) {size=[32], seed=3} : f32[32]
  %4 = dropout(%x) {p=0.5, train=true, seed=3} : f32[4,8]
  return %0, %1, %2, %3, %4
})",
                                      {Tensor::randn({4, 8}, 11)});
  ASSERT_EQ(out.size(), 5u);
  EXPECT_TRUE(out[0].equal(Tensor::rand({32}, 3)));
  EXPECT_TRUE(out[1].equal(Tensor::randn({32}, 3)));
  EXPECT_TRUE(out[2].equal(Tensor::randint(0, 1000, {32}, 3)));
  EXPECT_TRUE(out[3].equal(out[0]));
  // A state, even (3, 0), is a different stream from the plain seed.
  EXPECT_FALSE(out[0].equal(draw(kCases[2], state(3, 0))));
  // Dropout keeps element i when uniform_double({seed, 0}, i) < 1 - p.
  const Tensor x = Tensor::randn({4, 8}, 11);
  for (int64_t i = 0; i < 32; ++i) {
    const bool keep = uniform_double(RandomStream{3, 0}, static_cast<uint64_t>(i)) < 0.5;
    EXPECT_EQ(out[4].item_double(i), keep ? x.item_double(i) * 2 : 0.0) << i;
  }
}

// Random123's known-answer vectors for Philox-4x32-10: a plain seed keeps the counter's high
// half zero, and a state's offset is that high half.
TEST(RngState, PhiloxKnownAnswers) {
  const PhiloxBlock zero = philox4x32(RandomStream{0, 0}, 0);
  EXPECT_EQ(zero.w[0], 0x6627e8d5u);
  EXPECT_EQ(zero.w[1], 0xe169c58du);
  EXPECT_EQ(zero.w[2], 0xbc57ac4cu);
  EXPECT_EQ(zero.w[3], 0x9b00dbd8u);
  const PhiloxBlock pi = philox4x32(RandomStream{0x299f31d0a4093822ull, 0x0370734413198a2eull}, 0x85a308d3243f6a88ull);
  EXPECT_EQ(pi.w[0], 0xd16cfe09u);
  EXPECT_EQ(pi.w[1], 0x94fdccebu);
  EXPECT_EQ(pi.w[2], 0x5001e420u);
  EXPECT_EQ(pi.w[3], 0x24126ea1u);
}

TEST(RngState, WrongTypeIsAnErrorNamingTheOp) {
  for (const TensorType& t :
       {TensorType{DType::F32, Shape{2}}, TensorType{DType::I64, Shape{3}}, TensorType{DType::I64, Shape{1, 2}}}) {
    const std::vector<KernelOperand> operands{{Tensor::randn({4}, 1), Scalar()},
                                              {Tensor::zeros(t.shape.sizes(), t.dtype), Scalar()}};
    Expected<std::vector<Tensor>> r = run_op(OpKind::Dropout, {{"p", 0.5}, {"train", true}}, operands);
    ASSERT_FALSE(r.has_value()) << t.to_string();
    EXPECT_EQ(r.error().message(), "dropout: rng_state must be i64[2] (seed, offset), got " + t.to_string());
  }
}

TEST(RngState, FunctionalDropoutTakesAState) {
  const Tensor x = Tensor::randn({64}, 2);
  const Tensor a = dropout(x, 0.5, true, state(9, 1), 4);
  EXPECT_TRUE(a.equal(dropout(x, 0.5, true, state(9, 1), 4)));
  EXPECT_FALSE(a.equal(dropout(x, 0.5, true, state(9, 2), 4)));
  EXPECT_FALSE(a.equal(dropout(x, 0.5, true, int64_t{4})));
  const std::vector<Tensor> g = run(R"(graph @g(%x: f32[64], %s: rng_state i64[2]) -> (f32[64]) {
  %0 = dropout(%x, %s) {p=0.5, train=true, seed=4} : f32[64]
  return %0
})",
                                    {x, state(9, 1)});
  ASSERT_EQ(g.size(), 1u);
  EXPECT_TRUE(a.equal(g[0]));
}

// The backward of dropout redraws the forward's mask from the same state: the gradient is
// tangent * mask / (1 - p), whatever the state.
TEST(RngState, DropoutGradientReusesTheForwardMask) {
  Expected<std::unique_ptr<Graph>> fwd = parse_graph(R"(graph @f(%x: f32[64], %s: rng_state i64[2]) -> (f32[64]) {
  %0 = dropout(%x, %s) {p=0.25, train=true, seed=3} : f32[64]
  return %0
})");
  ASSERT_TRUE(fwd.has_value()) << fwd.error().message();
  Expected<JointGraph> joint = joint_graph(**fwd);
  ASSERT_TRUE(joint.has_value()) << joint.error().message();
  ASSERT_EQ(joint->wrt_inputs, std::vector<int>{0});
  const Tensor x = Tensor::randn({64}, 1), t = Tensor::randn({64}, 2);
  for (int64_t offset : {0, 1, 2}) {
    Expected<std::vector<Tensor>> out = interpret(*joint->graph, std::vector<Tensor>{x, state(5, offset), t});
    ASSERT_TRUE(out.has_value()) << out.error().message();
    const Tensor &y = (*out)[0], &dx = (*out)[1];
    int64_t kept = 0;
    for (int64_t i = 0; i < 64; ++i) {
      const bool keep = y.item_double(i) != 0;
      kept += keep ? 1 : 0;
      EXPECT_FLOAT_EQ(dx.item_double(i), keep ? t.item_double(i) / 0.75 : 0.0) << "offset " << offset << ", " << i;
    }
    EXPECT_GT(kept, 0);
    EXPECT_LT(kept, 64);
  }
}

// Attention's backward redraws the weights' dropout mask from the same state: with v the
// identity the forward output is the dropped weights P, and the gradient of v is P^T t.
TEST(RngState, AttentionGradientReusesTheForwardMask) {
  Expected<std::unique_ptr<Graph>> fwd =
      parse_graph(R"(graph @f(%q: f64[4,8], %k: f64[4,8], %v: f64[4,4], %s: rng_state i64[2]) -> (f64[4,4]) {
  %0 = scaled_dot_product_attention(%q, %k, %v, none, %s) {dropout_p=0.5, seed=3} : f64[4,4]
  return %0
})");
  ASSERT_TRUE(fwd.has_value()) << fwd.error().message();
  Expected<JointGraph> joint = joint_graph(**fwd, {.wrt = {"v"}});
  ASSERT_TRUE(joint.has_value()) << joint.error().message();
  const Tensor q = Tensor::randn({4, 8}, 1, DType::F64), k = Tensor::randn({4, 8}, 2, DType::F64);
  const Tensor v = Tensor::from_doubles({1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, {4, 4}, DType::F64);
  const Tensor t = Tensor::randn({4, 4}, 3, DType::F64);
  for (int64_t offset : {0, 1}) {
    Expected<std::vector<Tensor>> out = interpret(*joint->graph, std::vector<Tensor>{q, k, v, state(5, offset), t});
    ASSERT_TRUE(out.has_value()) << out.error().message();
    const Tensor &p = (*out)[0], &dv = (*out)[1];
    for (int64_t j = 0; j < 4; ++j)
      for (int64_t e = 0; e < 4; ++e) {
        double want = 0;
        for (int64_t i = 0; i < 4; ++i) want += p.item_double(i * 4 + j) * t.item_double(i * 4 + e);
        EXPECT_NEAR(dv.item_double(j * 4 + e), want, 1e-12) << "offset " << offset << ", " << j << "," << e;
      }
  }
}

TEST(LiftRngState, WiresOneStateIntoEveryTopLevelRandomNode) {
  Expected<std::unique_ptr<Graph>> g = parse_graph(R"(graph @g(%x: f32[4]) -> (f32[4], f32[4]) {
  %0 = dropout(%x) {p=0.5, train=true, seed=1} : f32[4]
  %1 = rand() {size=[4], seed=2} : f32[4]
  %2 = map(%0) {num_mapped=1} : f32[4] {
    body_fn = graph(%e: f32[]) -> (f32[]) {
      %0 = dropout(%e) {p=0.5, train=true} : f32[]
      return %0
    }
  }
  return %1, %2
})");
  ASSERT_TRUE(g.has_value()) << g.error().message();
  EXPECT_EQ(find_rng_state_input(**g), -1);
  PassResult r = lift_rng_state(**g);
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(r.counters["random_nodes_lifted"], 2);
  EXPECT_EQ(r.counters["random_nodes_in_subgraphs"], 1);
  EXPECT_EQ(r.counters["rng_state_inputs_added"], 1);
  ASSERT_EQ(find_rng_state_input(**g), 1);
  EXPECT_EQ((*g)->input(1)->uses().size(), 2u);
  // Lifted again: nothing left to do.
  PassResult again = lift_rng_state(**g);
  EXPECT_FALSE(again.changed);
  EXPECT_EQ(again.counters["random_nodes_lifted"], 0);
  EXPECT_EQ((*g)->num_inputs(), 2);
  // The lifted graph runs, and replays under the same state.
  const Tensor x = Tensor::randn({4}, 3);
  Expected<std::vector<Tensor>> a = interpret(**g, std::vector<Tensor>{x, state(1, 0)});
  Expected<std::vector<Tensor>> b = interpret(**g, std::vector<Tensor>{x, state(1, 0)});
  ASSERT_TRUE(a.has_value() && b.has_value());
  EXPECT_TRUE((*a)[0].equal((*b)[0]));
  EXPECT_TRUE((*a)[1].equal((*b)[1]));
}

}  // namespace
}  // namespace kiln
