// specialize_shapes (passes/specialize_shapes.h) and the CPU runner that compiles a graph with
// symbolic input dims once per input shape (train/graph_runner.h).
#include <gtest/gtest.h>

#include "cpu_backend_util.h"
#include "kiln/kiln.h"
#include "passes/specialize_shapes.h"
#include "train/graph_runner.h"

namespace kiln {
namespace {

std::unique_ptr<Graph> parse(const std::string& text) {
  auto g = parse_graph(text);
  EXPECT_TRUE(g) << g.error().to_string();
  return g ? std::move(*g) : nullptr;
}

const char* kDynamicBatch = R"(graph @mlp(%x: f32[B,4], %w: f32[4,3]) -> (f32[B,3], f32[B*3]) {
  %0 = matmul(%x, %w) : f32[B,3]
  %1 = relu(%0) : f32[B,3]
  %2 = reshape(%1) {shape=[-1]} : f32[B*3]
  return %1, %2
})";

TEST(SpecializeShapes, SymbolsTakeTheInputsSizes) {
  auto g = parse(kDynamicBatch);
  ASSERT_TRUE(has_symbolic_inputs(*g));
  const std::vector<TensorType> types = {{DType::F32, Shape{5, 4}}, {DType::F32, Shape{4, 3}}};
  auto s = specialize_shapes(*g, types);
  ASSERT_TRUE(s) << s.error().to_string();
  EXPECT_EQ(s->symbols.at("B"), 5);
  EXPECT_FALSE(has_symbolic_inputs(*s->graph));
  const std::string text = print_graph(*s->graph);
  EXPECT_NE(text.find("graph @mlp(%x: f32[5,4], %w: f32[4,3]) -> (f32[5,3], f32[15])"), std::string::npos) << text;
  EXPECT_NE(text.find("%2 = reshape(%1) {shape=[-1]} : f32[15]"), std::string::npos) << text;
  EXPECT_TRUE(has_symbolic_inputs(*g));  // the original is untouched
}

TEST(SpecializeShapes, MismatchesAndFailingGuardsAreErrors) {
  auto g = parse(kDynamicBatch);
  const std::vector<TensorType> wrong_static = {{DType::F32, Shape{5, 4}}, {DType::F32, Shape{4, 2}}};
  auto a = specialize_shapes(*g, wrong_static);
  ASSERT_FALSE(a);
  EXPECT_NE(a.error().to_string().find("input %w: expected f32[4,3], got f32[4,2]"), std::string::npos)
      << a.error().to_string();
  auto b = specialize_shapes(*g, std::vector<TensorType>{{DType::F32, Shape{5, 4}}});
  ASSERT_FALSE(b);
  EXPECT_NE(b.error().to_string().find("1 input types for 2 inputs"), std::string::npos) << b.error().to_string();

  auto guarded = parse(R"(graph @g(%x: f32[B,T]) -> (f32[4096]) {
  %0 = reshape(%x) {shape=[4096]} : f32[4096]
  guard B*T == 4096 for %0
  return %0
})");
  auto ok = specialize_shapes(*guarded, std::vector<TensorType>{{DType::F32, Shape{64, 64}}});
  ASSERT_TRUE(ok) << ok.error().to_string();
  EXPECT_TRUE(ok->graph->guards().empty());
  auto bad = specialize_shapes(*guarded, std::vector<TensorType>{{DType::F32, Shape{64, 32}}});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().to_string().find("guard B*T == 4096 does not hold for B=64, T=32"), std::string::npos)
      << bad.error().to_string();
}

// Two batch sizes: each compiled once (specialized), both agree with the interpreter.
TEST(SpecializeShapes, CpuRunnerCompilesOncePerInputShape) {
  auto g = parse(kDynamicBatch);
  auto runner = make_graph_runner(*g, {.execution = Execution::Compiled});
  ASSERT_TRUE(runner) << runner.error().to_string();
  const Tensor w = Tensor::randn({4, 3}, 7, DType::F32);
  for (int64_t batch : {1, 7, 1}) {
    const std::vector<Tensor> in = {Tensor::randn({batch, 4}, static_cast<uint64_t>(batch), DType::F32), w};
    auto got = (*runner)->run(in);
    ASSERT_TRUE(got) << got.error().to_string();
    auto want = interpret(*g, in);
    ASSERT_TRUE(want) << want.error().to_string();
    ASSERT_EQ(got->size(), 2u);
    EXPECT_EQ((*got)[1].sizes(), (std::vector<int64_t>{batch * 3}));
    for (size_t i = 0; i < got->size(); ++i) expect_close((*want)[i], (*got)[i], "batch " + std::to_string(batch));
  }
}

}  // namespace
}  // namespace kiln
