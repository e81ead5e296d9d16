// GradFunction and kiln::value_and_grad(fn, ...): the partitioned forward and backward graphs
// run separately must give exactly what the unpartitioned reference (autograd/value_and_grad.h)
// gives, however forwards and backwards interleave; misuse of Saved and of output gradients is
// reported.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "autograd/value_and_grad.h"
#include "frontend/capture.h"
#include "frontend/functional.h"
#include "frontend/nn/layer_norm.h"
#include "frontend/nn/linear.h"
#include "ir/parser.h"
#include "support/error.h"
#include "train/grad_function.h"
#include "train/value_and_grad_fn.h"

namespace kiln {
namespace {

const GradOptions kDefaultPartition{.partition = {.kind = PartitionKind::Default},
                                    .runner = {.execution = Execution::Interpreter}};

struct TinyNet : nn::Module {
  nn::Linear fc{6, 5, true, 11};
  nn::LayerNorm norm{{5}};
  TinyNet() {
    register_module("fc", fc);
    register_module("norm", norm);
  }
  Tensor forward(const Tensor& x) { return norm(gelu(fc(x), "tanh")); }
};

// The net's scalar loss against a target, captured with the net's parameters lifted.
Captured capture_loss(TinyNet& net) {
  auto fn = [&](std::span<const Tensor> in) { return mse_loss(net.forward(in[0]), in[1]); };
  auto c = capture(CaptureFn1(fn), {Tensor::randn({4, 6}, 1), Tensor::randn({4, 5}, 2)},
                   {.input_names = {"x", "y"}, .module = &net});
  EXPECT_TRUE(c) << c.error().to_string();
  return std::move(*c);
}

std::vector<Tensor> with_lifted(std::vector<Tensor> inputs, const Captured& c) {
  inputs.insert(inputs.end(), c.lifted.begin(), c.lifted.end());
  return inputs;
}

void expect_all_equal(const std::vector<Tensor>& got, const std::vector<Tensor>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(got[i].equal(want[i])) << "tensor " << i;
}

GradFunction make(const Captured& c, const GradOptions& options = kDefaultPartition) {
  auto fn = GradFunction::create(*c.graph, c.lifted, options);
  EXPECT_TRUE(fn) << fn.error().to_string();
  return std::move(*fn);
}

TEST(GradFunction, TwoForwardsThenBackwardsInReverseOrderMatchTheReference) {
  TinyNet net;
  Captured c = capture_loss(net);
  GradFunction fn = make(c);
  const std::vector<Tensor> batch1 = {Tensor::randn({4, 6}, 10), Tensor::randn({4, 5}, 11)};
  const std::vector<Tensor> batch2 = {Tensor::randn({4, 6}, 20), Tensor::randn({4, 5}, 21)};

  auto f1 = fn.forward(batch1);
  ASSERT_TRUE(f1) << f1.error().to_string();
  auto f2 = fn.forward(batch2);
  ASSERT_TRUE(f2) << f2.error().to_string();
  auto g2 = fn.backward(std::move(f2->saved));
  ASSERT_TRUE(g2) << g2.error().to_string();
  auto g1 = fn.backward(std::move(f1->saved));
  ASSERT_TRUE(g1) << g1.error().to_string();

  auto r1 = value_and_grad(*c.graph, with_lifted(batch1, c));
  ASSERT_TRUE(r1) << r1.error().to_string();
  auto r2 = value_and_grad(*c.graph, with_lifted(batch2, c));
  ASSERT_TRUE(r2) << r2.error().to_string();
  expect_all_equal(f1->outputs, r1->values);
  expect_all_equal(f2->outputs, r2->values);
  expect_all_equal(*g1, r1->grads);
  expect_all_equal(*g2, r2->grads);
  // x, y and the four parameters are differentiated (every floating input and parameter).
  EXPECT_EQ(g1->size(), 6u);
  EXPECT_FALSE(g1->at(0).equal(g2->at(0)));
}

TEST(GradFunction, SavedHoldsExactlyThePartitionsSavedValues) {
  TinyNet net;
  Captured c = capture_loss(net);
  GradFunction fn = make(c);
  auto f = fn.forward(std::vector<Tensor>{Tensor::randn({4, 6}, 3), Tensor::randn({4, 5}, 4)});
  ASSERT_TRUE(f) << f.error().to_string();
  EXPECT_EQ(static_cast<int>(f->saved.count()), fn.partition().num_saved);
  EXPECT_EQ(f->saved.bytes(), fn.partition().saved_bytes);
  EXPECT_GT(f->saved.bytes(), 0);
  EXPECT_FALSE(f->saved.empty());
  Saved moved = std::move(f->saved);
  EXPECT_TRUE(f->saved.empty());  // NOLINT(bugprone-use-after-move): moving empties a Saved
  EXPECT_EQ(f->saved.count(), 0u);
  EXPECT_FALSE(moved.empty());
}

TEST(GradFunction, ASavedUsedTwiceIsAnError) {
  TinyNet net;
  Captured c = capture_loss(net);
  GradFunction fn = make(c);
  auto f = fn.forward(std::vector<Tensor>{Tensor::randn({4, 6}, 3), Tensor::randn({4, 5}, 4)});
  ASSERT_TRUE(f) << f.error().to_string();
  Saved& saved = f->saved;
  ASSERT_TRUE(fn.backward(std::move(saved)));
  EXPECT_TRUE(saved.empty());
  auto again = fn.backward(std::move(saved));
  ASSERT_FALSE(again);
  EXPECT_NE(again.error().message().find("already used by a backward"), std::string::npos) << again.error().to_string();
}

TEST(GradFunction, ASavedFromAnotherFunctionIsAnError) {
  TinyNet net;
  Captured c = capture_loss(net);
  GradFunction fn = make(c);
  GradFunction other = make(c);
  auto f = fn.forward(std::vector<Tensor>{Tensor::randn({4, 6}, 3), Tensor::randn({4, 5}, 4)});
  ASSERT_TRUE(f) << f.error().to_string();
  auto wrong = other.backward(std::move(f->saved));
  ASSERT_FALSE(wrong);
  EXPECT_NE(wrong.error().message().find("comes from the forward of another function"), std::string::npos)
      << wrong.error().to_string();
  EXPECT_FALSE(f->saved.empty());  // rejected, not consumed: it still works with its own function
  EXPECT_TRUE(fn.backward(std::move(f->saved)));
}

// Two outputs, one of them an integer (no tangent): explicit output gradients, one per
// floating output, give the reference's gradients.
TEST(GradFunction, ExplicitOutputGradientsSkipIntegerOutputs) {
  auto fn_to_capture = [](std::span<const Tensor> in) {
    Tensor h = tanh(matmul(in[0], in[1]));
    return std::vector<Tensor>{argmax(h, 1), h};
  };
  auto c = capture(CaptureFn(fn_to_capture), {Tensor::randn({3, 4}, 1), Tensor::randn({4, 2}, 2)});
  ASSERT_TRUE(c) << c.error().to_string();
  GradFunction fn = make(*c);
  EXPECT_EQ(fn.num_differentiable_outputs(), 1);
  const std::vector<Tensor> inputs = {Tensor::randn({3, 4}, 5), Tensor::randn({4, 2}, 6)};
  const std::vector<Tensor> grad_out = {Tensor::randn({3, 2}, 7)};
  auto got = fn(inputs, grad_out);
  ASSERT_TRUE(got) << got.error().to_string();
  auto want = value_and_grad(*c->graph, inputs, grad_out);
  ASSERT_TRUE(want) << want.error().to_string();
  expect_all_equal(got->values, want->values);
  expect_all_equal(got->grads, want->grads);
}

TEST(GradFunction, WrongNumberOfOutputGradientsIsAnErrorAndKeepsSaved) {
  TinyNet net;
  Captured c = capture_loss(net);
  GradFunction fn = make(c);
  auto f = fn.forward(std::vector<Tensor>{Tensor::randn({4, 6}, 3), Tensor::randn({4, 5}, 4)});
  ASSERT_TRUE(f) << f.error().to_string();
  const std::vector<Tensor> two = {Tensor::scalar(1.0, DType::F32), Tensor::scalar(1.0, DType::F32)};
  auto r = fn.backward(std::move(f->saved), two);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("has 1 outputs that take a gradient, given 2 output gradients"), std::string::npos)
      << r.error().to_string();
  EXPECT_FALSE(f->saved.empty());
}

TEST(GradFunction, OutputGradientOfTheWrongTypeIsAnError) {
  TinyNet net;
  Captured c = capture_loss(net);
  GradFunction fn = make(c);
  for (const Tensor& bad : {Tensor::full({2}, 1.0, DType::F32), Tensor::scalar(1.0, DType::F64)}) {
    auto f = fn.forward(std::vector<Tensor>{Tensor::randn({4, 6}, 3), Tensor::randn({4, 5}, 4)});
    ASSERT_TRUE(f) << f.error().to_string();
    auto r = fn.backward(std::move(f->saved), std::vector<Tensor>{bad});
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message().find("output gradient 0 has type"), std::string::npos) << r.error().to_string();
    EXPECT_NE(r.error().message().find("but output 0 is f32[]"), std::string::npos) << r.error().to_string();
  }
}

TEST(GradFunction, WrongNumberOfInputsIsAnError) {
  TinyNet net;
  Captured c = capture_loss(net);
  GradFunction fn = make(c);
  auto f = fn.forward(std::vector<Tensor>{Tensor::randn({4, 6}, 3)});
  ASSERT_FALSE(f);
  EXPECT_NE(f.error().message().find("takes 2 inputs, given 1"), std::string::npos) << f.error().to_string();
}

TEST(GradFunction, PartitionOptionsReachThePartitioner) {
  TinyNet net;
  Captured c = capture_loss(net);
  auto fn =
      GradFunction::create(*c.graph, c.lifted, {.partition = {.kind = PartitionKind::Default, .memory_budget = 2.0}});
  ASSERT_FALSE(fn);
  EXPECT_NE(fn.error().message().find("outside [0, 1]"), std::string::npos) << fn.error().to_string();
}

TEST(GradFunction, MoreLiftedValuesThanInputsIsAnError) {
  TinyNet net;
  Captured c = capture_loss(net);
  std::vector<Tensor> too_many = c.lifted;
  for (int i = 0; i < 3; ++i) too_many.push_back(Tensor::zeros({1}));
  auto fn = GradFunction::create(*c.graph, too_many, kDefaultPartition);
  ASSERT_FALSE(fn);
  EXPECT_NE(fn.error().message().find("fewer than the 7 lifted values"), std::string::npos) << fn.error().to_string();
}

// ---- kiln::value_and_grad for C++ functions ----

const ValueAndGradOptions kFnOptions{
    .compile = {.execution = Execution::Interpreter, .partition = PartitionKind::Default}};

TEST(ValueAndGradFn, MatchesTheGraphLevelReference) {
  auto f = [](std::span<const Tensor> in) { return sum(mul(tanh(in[0]), in[1])); };
  ValueAndGradFn vg = value_and_grad(f, {Tensor::randn({3}, 1), Tensor::randn({3}, 2)}, kFnOptions);
  const std::vector<Tensor> inputs = {Tensor::randn({3}, 3), Tensor::randn({3}, 4)};
  ValueAndGrad got = vg(inputs);
  // The other overload, on the captured graph: both names stay callable side by side.
  auto c = capture(CaptureFn1(f), {Tensor::randn({3}, 1), Tensor::randn({3}, 2)});
  ASSERT_TRUE(c) << c.error().to_string();
  auto want = value_and_grad(*c->graph, inputs);
  ASSERT_TRUE(want) << want.error().to_string();
  expect_all_equal(got.values, want->values);
  expect_all_equal(got.grads, want->grads);
}

// The n-th forward draws with (seed, n): fresh dropout masks on every call, the same
// sequence for the same seed, and each backward replays its own forward's mask.
TEST(GradFunction, EachForwardDrawsFreshNumbersThatItsBackwardReplays) {
  auto g = parse_graph(R"(graph @g(%x: f32[64], %w: param f32[64]) -> (f32[]) {
  %0 = mul(%x, %w) : f32[64]
  %1 = dropout(%0) {p=0.5, seed=1, train=true} : f32[64]
  %2 = sum(%1) : f32[]
  return %2
})");
  ASSERT_TRUE(g) << g.error().to_string();
  const std::vector<Tensor> inputs = {Tensor::full({64}, 1.0), Tensor::full({64}, 1.0)};
  // d loss / d w = x * mask / (1 - p) = 2 where kept, 0 where dropped; the loss counts them.
  auto kept = [](const Tensor& grad) {
    int n = 0;
    for (int64_t i = 0; i < grad.numel(); ++i) {
      EXPECT_TRUE(grad.item_double(i) == 0.0 || grad.item_double(i) == 2.0);
      n += grad.item_double(i) == 2.0;
    }
    return n;
  };
  auto run = [&](uint64_t seed) {
    GradFunction f = value_or_throw(GradFunction::create(**g, {}, {.seed = seed}));
    EXPECT_TRUE(f.joint().rng_state_added);
    std::vector<ForwardResult> forwards;
    for (int i = 0; i < 3; ++i) forwards.push_back(value_or_throw(f.forward(inputs)));
    EXPECT_EQ(f.rng_offset(), 3);
    std::vector<Tensor> grads;
    for (ForwardResult& fr : forwards) {  // held forwards, then their backwards
      std::vector<Tensor> gr = value_or_throw(f.backward(std::move(fr.saved)));
      EXPECT_EQ(2.0 * kept(gr[1]), fr.outputs[0].item_double()) << "the backward replays its forward's mask";
      grads.push_back(gr[1]);
    }
    return grads;
  };
  std::vector<Tensor> a = run(5), b = run(5), c = run(6);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(a[i].equal(b[i])) << "same seed, same draws";
  EXPECT_FALSE(a[0].equal(a[1]));
  EXPECT_FALSE(a[1].equal(a[2]));
  EXPECT_FALSE(a[0].equal(c[0]));

  // The first forward of seed 0 draws what the unpartitioned reference draws.
  GradFunction f0 = value_or_throw(GradFunction::create(**g, {}, {}));
  Expected<ValueAndGrad> want = value_and_grad(**g, inputs);
  ASSERT_TRUE(want) << want.error().to_string();
  ValueAndGrad got = value_or_throw(f0(inputs));
  EXPECT_TRUE(got.values[0].equal(want->values[0]));
  EXPECT_TRUE(got.grads[1].equal(want->grads[1]));
}

TEST(ValueAndGradFn, WrtPicksTheDifferentiatedInputsAndSplitCallsWork) {
  auto f = [](std::span<const Tensor> in) { return std::vector<Tensor>{mul(in[0], in[1]), sum(in[0])}; };
  ValueAndGradOptions options = kFnOptions;
  options.input_names = {"a", "b"};
  options.joint.wrt = {"b"};
  ValueAndGradFn vg = value_and_grad(f, {Tensor::randn({2}, 1), Tensor::randn({2}, 2)}, options);
  const Tensor a = Tensor::from_doubles({2.0, 3.0}, {2});
  ForwardResult fr = vg.forward({a, Tensor::from_doubles({5.0, 7.0}, {2})});
  // sum(a) does not depend on b: only a*b takes an output gradient.
  std::vector<Tensor> grads = vg.backward(std::move(fr.saved), {Tensor::full({2}, 1.0)});
  ASSERT_EQ(grads.size(), 1u);
  EXPECT_TRUE(grads[0].equal(a));  // d(a*b)/db = a
}

TEST(ValueAndGradFn, ErrorsThrow) {
  auto f = [](std::span<const Tensor> in) { return sum(in[0]); };
  ValueAndGradFn vg = value_and_grad(f, {Tensor::randn({3}, 1)}, kFnOptions);
  EXPECT_THROW(vg({Tensor::randn({3}, 1), Tensor::randn({3}, 2)}), Error);
  ForwardResult fr = vg.forward({Tensor::randn({3}, 1)});
  Saved saved = std::move(fr.saved);
  vg.backward(std::move(saved));
  EXPECT_THROW(vg.backward(std::move(saved)), Error);
  // A capture failure: an op error while tracing.
  auto bad = [](std::span<const Tensor> in) { return sum(matmul(in[0], in[0])); };
  EXPECT_THROW(value_and_grad(bad, {Tensor::randn({2, 3}, 1)}, kFnOptions), Error);
}

TEST(ValueAndGradFn, ModuleParametersAreDifferentiatedWithTheInputs) {
  TinyNet net;
  auto f = [&](std::span<const Tensor> in) { return mean(net.forward(in[0])); };
  ValueAndGradOptions options = kFnOptions;
  options.module = &net;
  options.joint.wrt = {"fc.weight"};
  ValueAndGradFn vg = value_and_grad(f, {Tensor::randn({2, 6}, 1)}, options);
  ValueAndGrad r = vg({Tensor::randn({2, 6}, 5)});
  ASSERT_EQ(r.grads.size(), 1u);
  EXPECT_EQ(r.grads[0].sizes(), (std::vector<int64_t>{5, 6}));
}

// Compiled (Execution::Compiled), the dropout is a loop body in both compiled graphs: the min cut recomputes
// it in the backward (it reads the generator state), and the replayed mask is the forward's,
// so every forward's loss and its backward's gradients are the interpreter's, call after call
// (each call steps the state's offset: fresh masks).
TEST(GradFunction, CpuBackendReplaysTheForwardsDropoutMaskInTheBackward) {
  auto g = parse_graph(R"(graph @g(%x: f32[4,256], %w: param f32[256]) -> (f32[]) {
  %0 = mul(%x, %w) : f32[4,256]
  %1 = dropout(%0) {p=0.3, seed=3, train=true} : f32[4,256]
  %2 = sin(%1) : f32[4,256]
  %3 = cos(%2) : f32[4,256]
  %4 = sum(%3) : f32[]
  return %4
})");
  ASSERT_TRUE(g) << g.error().to_string();
  GradFunction interpreted =
      value_or_throw(GradFunction::create(**g, {}, {.runner = {.execution = Execution::Interpreter}, .seed = 9}));
  GradFunction compiled =
      value_or_throw(GradFunction::create(**g, {}, {.runner = {.execution = Execution::Compiled}, .seed = 9}));
  bool recomputes_dropout = false;
  for (const Node* n : compiled.partition().recomputed) recomputes_dropout |= n->op() == OpKind::Dropout;
  EXPECT_TRUE(recomputes_dropout) << "the backward should redraw the mask";
  const std::vector<Tensor> inputs = {Tensor::randn({4, 256}, 1), Tensor::randn({256}, 2)};
  for (int call = 0; call < 3; ++call) {
    ValueAndGrad want = value_or_throw(interpreted(inputs));
    ValueAndGrad got = value_or_throw(compiled(inputs));
    const double loss = want.values[0].item_double();
    EXPECT_NEAR(got.values[0].item_double(), loss, 1e-5 * (1 + std::fabs(loss))) << "call " << call;
    const Tensor& gw = want.grads[1];
    int zeros = 0;
    for (int64_t i = 0; i < gw.numel(); ++i) {
      EXPECT_NEAR(got.grads[1].item_double(i), gw.item_double(i), 1e-5 * (1 + std::fabs(gw.item_double(i))))
          << "call " << call << " element " << i;
      zeros += got.grads[1].item_double(i) == 0;
    }
    EXPECT_LT(zeros, gw.numel()) << "some elements are kept";
  }
  EXPECT_EQ(compiled.rng_offset(), 3);
}

// A graph with cond: the joint graph has a cond in the forward and one in the backward (the
// branches' own gradients), which Execution::Compiled compiles to control kernels. Values and
// gradients match the interpreter's for either branch (float32 rounding, matmul order).
TEST(GradFunction, CpuBackendCompilesCondAndMatchesTheInterpreter) {
  auto g = parse_graph(
      "graph @branch(%p: bool[], %x: f32[3,4], %w: param f32[4,4]) -> (f32[3,4]) {\n"
      "  %0 = cond(%p, %x, %w) : f32[3,4] {\n"
      "    true_fn = graph(%a: f32[3,4], %v: f32[4,4]) -> (f32[3,4]) {\n"
      "      %0 = matmul(%a, %v) : f32[3,4]\n      %1 = tanh(%0) : f32[3,4]\n      return %1\n    }\n"
      "    false_fn = graph(%a: f32[3,4], %v: f32[4,4]) -> (f32[3,4]) {\n"
      "      %0 = sum(%v) {dim=[0]} : f32[4]\n      %1 = mul(%a, %0) : f32[3,4]\n"
      "      %2 = softmax(%1) {dim=1} : f32[3,4]\n      return %2\n    }\n  }\n  return %0\n}");
  ASSERT_TRUE(g) << g.error().to_string();
  auto on_cpu = GradFunction::create(**g, {}, GradOptions{.runner = {.execution = Execution::Compiled}});
  ASSERT_TRUE(on_cpu) << on_cpu.error().to_string();
  auto interpreted = GradFunction::create(**g, {}, GradOptions{.runner = {.execution = Execution::Interpreter}});
  ASSERT_TRUE(interpreted) << interpreted.error().to_string();
  for (bool p : {true, false}) {
    const std::vector<Tensor> in = {Tensor::scalar(p, DType::Bool), Tensor::randn({3, 4}, 7), Tensor::randn({4, 4}, 8)};
    auto got = (*on_cpu)(in);
    ASSERT_TRUE(got) << got.error().to_string();
    auto want = (*interpreted)(in);
    ASSERT_TRUE(want) << want.error().to_string();
    std::vector<Tensor> got_all = got->values, want_all = want->values;
    got_all.insert(got_all.end(), got->grads.begin(), got->grads.end());
    want_all.insert(want_all.end(), want->grads.begin(), want->grads.end());
    ASSERT_EQ(got_all.size(), want_all.size());
    ASSERT_EQ(want->grads.size(), 2u);  // x and w
    for (size_t t = 0; t < want_all.size(); ++t) {
      const Tensor& w = want_all[t];
      ASSERT_EQ(got_all[t].sizes(), w.sizes());
      for (int64_t i = 0; i < w.numel(); ++i)
        EXPECT_NEAR(got_all[t].item_double(i), w.item_double(i), 1e-5 * (1 + std::fabs(w.item_double(i))))
            << "p=" << p << " tensor " << t << " element " << i;
    }
  }
}

// Execution::Compiled compiles both graphs when the function is created: what the CPU backend cannot
// lower (a while_loop whose carried value grows each iteration: no static buffer holds it; it
// needs no gradient, so autograd lets it through) is an error there, naming the node, not a
// crash at the first step.
TEST(GradFunction, CpuBackendRefusesWhatItCannotCompile) {
  auto g = parse_graph(
      "graph @grow(%n: i64[2], %x: f32[3], %w: param f32[3]) -> (f32[3]) {\n"
      "  %0 = while_loop(%n) : i64[N] {\n"
      "    cond_fn = graph(%y: i64[N]) -> (bool[]) {\n      %0 = sum(%y) : i64[]\n"
      "      %1 = lt(%0, 100) : bool[]\n      return %1\n    }\n"
      "    body_fn = graph(%y: i64[N]) -> (i64[2*N]) {\n      %0 = cat(%y, %y) : i64[2*N]\n      return %0\n    }\n"
      "  }\n  %1 = sum(%0) : i64[]\n  %2 = mul(%x, %w) : f32[3]\n  %3 = mul(%2, %1) : f32[3]\n  return %3\n}");
  ASSERT_TRUE(g) << g.error().to_string();
  auto interpreted = GradFunction::create(**g, {}, GradOptions{.runner = {.execution = Execution::Interpreter}});
  EXPECT_TRUE(interpreted) << interpreted.error().to_string();
  auto fn = GradFunction::create(**g, {}, GradOptions{.runner = {.execution = Execution::Compiled}});
  ASSERT_FALSE(fn);
  const std::string msg = fn.error().to_string();
  EXPECT_NE(msg.find("while_loop: carried value 0 changes shape across iterations"), std::string::npos) << msg;
  EXPECT_NE(msg.find("while_loop(%n)"), std::string::npos) << msg;
}

}  // namespace
}  // namespace kiln
