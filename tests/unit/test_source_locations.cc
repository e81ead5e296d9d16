// C++ call sites (functional.h's trailing `loc`): captured nodes keep the line that called the
// op (through functions, Tensor methods, nn modules and control flow), operators record none,
// the printed IR does not show them, and eager, capture-time and interpreter errors start with
// them. Each expected line is __LINE__ on the line of the call.
#include <gtest/gtest.h>

#include "frontend/replay.h"
#include "kiln/kiln.h"

// Each call and its `line = __LINE__` must stay on one line, as written.
// clang-format off
namespace kiln {
namespace {

using Tensors = std::vector<Tensor>;

Captured capture_ok(CaptureFn1 fn, Tensors examples, const CaptureOptions& options = {}) {
  auto captured = capture(std::move(fn), std::move(examples), options);
  EXPECT_TRUE(captured) << captured.error().to_string();
  if (!captured) return {};
  return std::move(*captured);
}

// The location of the only node of `g` (captures below record one op each).
SourceLoc only_node_loc(const Graph& g) {
  EXPECT_EQ(g.num_nodes(), 1u);
  return g.first_node() ? g.first_node()->loc() : SourceLoc{};
}

std::string at_line(int line) { return std::string(__FILE__) + ":" + std::to_string(line) + ":"; }

TEST(SourceLocations, CapturedNodeNamesTheCallLine) {
  int line = 0;
  Captured c = capture_ok([&](std::span<const Tensor> in) { line = __LINE__; return relu(in[0]); },
                          {Tensor::zeros({2})});
  ASSERT_TRUE(c.graph);
  const SourceLoc loc = only_node_loc(*c.graph);
  EXPECT_EQ(loc.file, __FILE__);
  EXPECT_EQ(loc.line, line);
  EXPECT_GT(loc.col, 0);
}

TEST(SourceLocations, TensorMethodNamesTheCallLine) {
  int line = 0;
  Captured c = capture_ok([&](std::span<const Tensor> in) { line = __LINE__; return in[0].sum({1}); },
                          {Tensor::zeros({2, 3})});
  ASSERT_TRUE(c.graph);
  EXPECT_EQ(only_node_loc(*c.graph).line, line);
}

TEST(SourceLocations, OperatorsRecordNoLocation) {
  Captured c = capture_ok([](std::span<const Tensor> in) { return in[0] + in[0]; }, {Tensor::zeros({2})});
  ASSERT_TRUE(c.graph);
  EXPECT_FALSE(only_node_loc(*c.graph).known());
}

TEST(SourceLocations, PrintedGraphShowsNoLocation) {
  Captured c = capture_ok([](std::span<const Tensor> in) { return relu(in[0]); }, {Tensor::zeros({2})},
                          {.name = "f"});
  ASSERT_TRUE(c.graph);
  EXPECT_EQ(print_graph(*c.graph),
            "graph @f(%x0: f32[2]) -> (f32[2]) {\n"
            "  %0 = relu(%x0) : f32[2]\n"
            "  return %0\n"
            "}\n");
}

TEST(SourceLocations, LinearModuleRecordsTheCallersLine) {
  nn::Linear fc(4, 2);
  int line = 0;
  Captured c = capture_ok([&](std::span<const Tensor> in) { line = __LINE__; return fc(in[0]); },
                          {Tensor::zeros({3, 4})});
  ASSERT_TRUE(c.graph);
  EXPECT_EQ(only_node_loc(*c.graph).line, line);
}

TEST(SourceLocations, SequentialPassesItsCallersLineToEveryModule) {
  nn::Sequential seq{std::make_shared<nn::Linear>(4, 4), std::make_shared<nn::Linear>(4, 2)};
  int line = 0;
  Captured c = capture_ok([&](std::span<const Tensor> in) { line = __LINE__; return seq(in[0]); },
                          {Tensor::zeros({3, 4})});
  ASSERT_TRUE(c.graph);
  ASSERT_EQ(c.graph->num_nodes(), 2u);
  for (const Node* n : c.graph->nodes()) EXPECT_EQ(n->loc().line, line);
}

TEST(SourceLocations, ControlFlowNodeNamesTheCallLine) {
  int line = 0;
  auto branch = [](std::span<const Tensor> a) { return Tensors{neg(a[0])}; };
  Captured c = capture_ok(
      [&](std::span<const Tensor> in) { line = __LINE__; return cond(in[0], branch, branch, {in[1]})[0]; },
      {Tensor::scalar(true, DType::Bool), Tensor::zeros({2})});
  ASSERT_TRUE(c.graph);
  EXPECT_EQ(only_node_loc(*c.graph).line, line);
}

TEST(SourceLocations, EagerErrorStartsWithTheCallLine) {
  const Tensor a = Tensor::zeros({2, 3});
  const Tensor b = Tensor::zeros({4, 5});
  int line = 0;
  try {
    line = __LINE__; matmul(a, b);
    FAIL() << "expected kiln::Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.diagnostic().loc().file, __FILE__);
    EXPECT_EQ(e.diagnostic().loc().line, line);
    EXPECT_EQ(e.diagnostic().to_string().rfind(at_line(line), 0), 0u) << e.diagnostic().to_string();
    EXPECT_EQ(std::string(e.what()), e.diagnostic().to_string());
  }
}

TEST(SourceLocations, EagerControlFlowErrorStartsWithTheCallLine) {
  auto branch = [](std::span<const Tensor> a) { return Tensors{a[0]}; };
  int line = 0;
  try {
    line = __LINE__; cond(Tensor::zeros({2}), branch, branch, {});
    FAIL() << "expected kiln::Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.diagnostic().loc().line, line);
    EXPECT_EQ(e.diagnostic().to_string().rfind(at_line(line), 0), 0u) << e.diagnostic().to_string();
  }
}

TEST(SourceLocations, CaptureErrorStartsWithTheCallLine) {
  int line = 0;
  auto c = capture(CaptureFn1([&](std::span<const Tensor> in) { line = __LINE__; return matmul(in[0], in[1]); }),
                   {Tensor::zeros({2, 3}), Tensor::zeros({4, 5})});
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().loc().line, line);
  EXPECT_EQ(c.error().to_string().rfind(at_line(line), 0), 0u) << c.error().to_string();
}

TEST(SourceLocations, InterpreterErrorNamesTheCaptureCallLine) {
  int line = 0;
  Captured c = capture_ok([&](std::span<const Tensor> in) { line = __LINE__; return div(in[0], in[1], "trunc"); },
                          {Tensor::from_ints({6, 7}, {2}), Tensor::from_ints({2, 1}, {2})});
  ASSERT_TRUE(c.graph);
  auto r = c.run(Tensors{Tensor::from_ints({6, 7}, {2}), Tensor::from_ints({2, 0}, {2})});
  ASSERT_FALSE(r);
  const std::string text = r.error().to_string();
  EXPECT_EQ(r.error().loc().line, line);
  EXPECT_EQ(text.rfind(at_line(line), 0), 0u) << text;
  EXPECT_NE(text.find("integer division by zero"), std::string::npos) << text;
  EXPECT_NE(text.find("while executing %0 = div(%x0, %x1) {rounding_mode=\"trunc\"}"), std::string::npos) << text;
}

TEST(SourceLocations, ReplayKeepsTheRecordedLocations) {
  int line = 0;
  Captured c = capture_ok([&](std::span<const Tensor> in) { line = __LINE__; return relu(in[0]); },
                          {Tensor::zeros({2})});
  ASSERT_TRUE(c.graph);
  auto replayed = replay_capture(*c.graph, Tensors{Tensor::zeros({2})});
  ASSERT_TRUE(replayed) << replayed.error().to_string();
  EXPECT_EQ(only_node_loc(*replayed->graph).line, line);
}

}  // namespace
}  // namespace kiln
// clang-format on
