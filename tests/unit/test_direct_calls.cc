// Errors of the C++ entry points that take ops apart from a parsed graph: run_op and
// run_higher_order with arguments the parser would have refused, schemas that do not parse,
// and results too large to allocate. None of them may abort.
#include <gtest/gtest.h>

#include "interp/interpreter.h"
#include "ir/graph.h"
#include "ops/op_call.h"
#include "ops/schema.h"

namespace kiln {
namespace {

TensorType f32(std::initializer_list<int64_t> sizes) { return {DType::F32, Shape(sizes)}; }

std::string error_of(const Expected<std::vector<Tensor>>& r) { return r ? std::string("<ok>") : r.error().message(); }

KernelOperand tensor(Tensor t) { return KernelOperand{std::move(t), Scalar()}; }
KernelOperand literal(Scalar s) { return KernelOperand{Tensor(), s}; }

TEST(RunOp, AttributeOfTheWrongKindIsAnError) {
  std::vector<KernelOperand> ops = {tensor(Tensor::zeros({2, 3}))};
  EXPECT_EQ(error_of(run_op(OpKind::Sum, {{"dim", 1}}, ops)), "attribute 'dim' of sum expects int[]?, got int");
  EXPECT_EQ(error_of(run_op(OpKind::Sum, {{"dims", AttrValue::Ints{1}}}, ops)), "op 'sum' has no attribute 'dims'");
}

TEST(RunOp, MissingRequiredAttributeIsAnError) {
  std::vector<KernelOperand> ops = {tensor(Tensor::zeros({2, 3}))};
  EXPECT_EQ(error_of(run_op(OpKind::Transpose, {{"dim0", 0}}, ops)), "transpose requires attribute 'dim1'");
}

TEST(RunOp, LiteralWhereATensorIsRequiredIsAnError) {
  std::vector<KernelOperand> ops = {literal(Scalar(1.0)), tensor(Tensor::zeros({2}))};
  EXPECT_EQ(error_of(run_op(OpKind::Mul, {}, ops)), "literal operand not allowed for operand 'self' of mul (Tensor)");
  std::vector<KernelOperand> none = {tensor(Tensor::zeros({2})), literal(Scalar())};
  EXPECT_EQ(error_of(run_op(OpKind::Mul, {}, none)), "'none' not allowed for operand 'other' of mul (Tensor|Scalar)");
}

TEST(RunOp, HigherOrderOpsAreRefused) {
  std::vector<KernelOperand> ops = {tensor(Tensor::scalar(true, DType::Bool))};
  EXPECT_EQ(error_of(run_op(OpKind::Cond, {}, ops)), "cond has subgraphs and runs only in the interpreter");
}

TEST(RunOp, ResultTooLargeToAllocateIsAnError) {
  AttrMap attrs{{"size", AttrValue::Ints{1 << 20, 1 << 20, 1 << 20}}};
  EXPECT_EQ(error_of(run_op(OpKind::Zeros, attrs, {})),
            "zeros: result 0 of type f32[1048576,1048576,1048576] is too large to allocate");
}

TEST(RunOp, HigherOrderKernelNamesTheInterpreter) {
  AttrMap attrs;
  std::vector<TensorType> types;
  KernelCall call(OpKind::Map, attrs, {}, types);
  auto r = op_info(OpKind::Map).kernel(call);
  EXPECT_EQ(error_of(r), "map has subgraphs; run it through the interpreter (interp/interpreter.h)");
}

// A subgraph with the given input types whose outputs are the given inputs, in order.
std::unique_ptr<Graph> passthrough(std::vector<TensorType> inputs, std::vector<int> outputs) {
  auto g = std::make_unique<Graph>("body");
  std::vector<Value*> in;
  for (size_t i = 0; i < inputs.size(); ++i) in.push_back(g->add_input("a" + std::to_string(i), inputs[i]));
  std::vector<Value*> out;
  for (int i : outputs) out.push_back(in[static_cast<size_t>(i)]);
  g->set_outputs(out);
  return g;
}

TEST(RunHigherOrder, WrongSubgraphCountIsAnError) {
  std::vector<KernelOperand> ops = {tensor(Tensor::scalar(true, DType::Bool)), tensor(Tensor::zeros({2}))};
  auto only = passthrough({f32({2})}, {0});
  std::vector<const Graph*> sub = {only.get()};
  EXPECT_EQ(error_of(run_higher_order(OpKind::Cond, {}, ops, sub)), "cond expects 2 subgraphs, got 1");
}

TEST(RunHigherOrder, WhileLoopCondMustGiveOneValue) {
  std::vector<KernelOperand> ops = {tensor(Tensor::scalar(true, DType::Bool)), tensor(Tensor::zeros({2}))};
  auto cond_fn = passthrough({{DType::Bool, Shape{}}, f32({2})}, {0, 1});
  auto body_fn = passthrough({{DType::Bool, Shape{}}, f32({2})}, {0, 1});
  std::vector<const Graph*> sub = {cond_fn.get(), body_fn.get()};
  EXPECT_EQ(error_of(run_higher_order(OpKind::WhileLoop, {}, ops, sub)),
            "while_loop: cond_fn must return one tensor, got 2");
}

TEST(RunHigherOrder, WhileLoopBodyMustGiveEveryCarriedValue) {
  std::vector<KernelOperand> ops = {tensor(Tensor::scalar(true, DType::Bool)), tensor(Tensor::zeros({2}))};
  auto cond_fn = passthrough({{DType::Bool, Shape{}}, f32({2})}, {0});
  auto body_fn = passthrough({{DType::Bool, Shape{}}, f32({2})}, {1});
  std::vector<const Graph*> sub = {cond_fn.get(), body_fn.get()};
  EXPECT_EQ(error_of(run_higher_order(OpKind::WhileLoop, {}, ops, sub)),
            "while_loop: body_fn returned 1 tensors for 2 carried");
}

TEST(RunHigherOrder, ScanCountsAreChecked) {
  std::vector<KernelOperand> ops = {tensor(Tensor::zeros({2})), tensor(Tensor::zeros({3, 2}))};
  auto combine = passthrough({f32({2}), f32({2})}, {});
  std::vector<const Graph*> sub = {combine.get()};
  EXPECT_EQ(error_of(run_higher_order(OpKind::Scan, {{"num_init", 5}}, ops, sub)),
            "scan: num_init=5 but there are 2 operands");
  EXPECT_EQ(error_of(run_higher_order(OpKind::Scan, {{"num_init", 2}}, ops, sub)),
            "scan: needs at least one operand to scan over");
  EXPECT_EQ(error_of(run_higher_order(OpKind::Scan, {{"num_init", 1}}, ops, sub)),
            "scan: combine_fn returned 0 tensors for 1 carries");
}

TEST(RunHigherOrder, MapCountsAreChecked) {
  std::vector<KernelOperand> ops = {tensor(Tensor::zeros({3, 2}))};
  auto body = passthrough({f32({2})}, {0});
  std::vector<const Graph*> sub = {body.get()};
  EXPECT_EQ(error_of(run_higher_order(OpKind::Map, {{"num_mapped", 2}}, ops, sub)),
            "map: num_mapped=2 but there are 1 operands");
}

// With no iterations there is no result to stack, so the shape comes from the body's
// declared output type, which must then be static.
TEST(RunHigherOrder, ZeroIterationsNeedAStaticOutputType) {
  std::vector<KernelOperand> ops = {tensor(Tensor::zeros({0, 3}))};
  auto body = passthrough({{DType::F32, Shape({Dim::symbol("N")})}}, {0});
  std::vector<const Graph*> sub = {body.get()};
  EXPECT_EQ(error_of(run_higher_order(OpKind::Map, {{"num_mapped", 1}}, ops, sub)),
            "map: cannot stack zero iterations of an output of type f32[N]");
  auto static_body = passthrough({f32({3})}, {0});
  std::vector<const Graph*> static_sub = {static_body.get()};
  auto r = run_higher_order(OpKind::Map, {{"num_mapped", 1}}, ops, static_sub);
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ((*r)[0].sizes(), (std::vector<int64_t>{0, 3}));
}

TEST(Schema, MalformedSchemasAreErrors) {
  auto message = [](std::string_view text) {
    auto s = parse_schema(text);
    return s ? std::string("<ok>") : s.error().message();
  };
  EXPECT_EQ(message("neg Tensor self"), "malformed schema 'neg Tensor self'");
  EXPECT_EQ(message("neg(Tensor) -> Tensor"), "schema argument 'Tensor' has no name");
  EXPECT_EQ(message("neg(Tensr self) -> Tensor"), "unknown schema type 'Tensr' in 'neg(Tensr self) -> Tensor'");
  EXPECT_EQ(message("neg(Tensor self) -> int"), "unsupported schema result 'int'");
  EXPECT_EQ(message("sum(Tensor self, int dim=abc) -> Tensor"),
            "schema default 'abc' of argument 'dim' does not fit its type");
  EXPECT_EQ(message("split(Tensor self) -> (Tensor, Tensor)"), "<ok>");
}

}  // namespace
}  // namespace kiln
