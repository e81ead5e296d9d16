// The reference interpreter: symbol binding and its errors, "while executing" context, and
// every higher-order op (cond, while_loop, scan, map) with its type rules.
#include <gtest/gtest.h>

#include "interp/interpreter.h"
#include "ir/graph.h"
#include "ir/verifier.h"

namespace kiln {
namespace {

TensorType f32(Shape shape) { return {DType::F32, std::move(shape)}; }
TensorType i64(Shape shape) { return {DType::I64, std::move(shape)}; }
Shape sym(std::vector<Dim> dims) { return Shape(std::move(dims)); }

Tensor floats(std::vector<double> v, std::vector<int64_t> sizes) { return Tensor::from_doubles(v, sizes, DType::F32); }

// %0 = add(%x, %y) : f32[B,2]
std::unique_ptr<Graph> add_graph() {
  auto g = std::make_unique<Graph>("add");
  Value* x = g->add_input("x", f32(sym({Dim::symbol("B"), 2})));
  Value* y = g->add_input("y", f32(sym({Dim::symbol("B"), 2})));
  Node* n = g->append({OpKind::Add, {x, y}, {}, {f32(sym({Dim::symbol("B"), 2}))}});
  g->set_outputs({n->result()});
  return g;
}

TEST(Interpreter, BindsSymbolsFromInputs) {
  auto g = add_graph();
  Tensor x = floats({1, 2, 3, 4, 5, 6}, {3, 2});
  auto out = interpret(*g, std::vector<Tensor>{x, x});
  ASSERT_TRUE(out) << out.error().to_string();
  EXPECT_TRUE((*out)[0].equal(floats({2, 4, 6, 8, 10, 12}, {3, 2})));
}

TEST(Interpreter, ConflictingSymbolNamesBothInputs) {
  auto g = add_graph();
  auto out = interpret(*g, std::vector<Tensor>{Tensor::zeros({3, 2}), Tensor::zeros({5, 2})});
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().message(), "input %y: dim 0 gives symbol B the value 5, but input %x gave it 3");
}

TEST(Interpreter, WrongStaticSizeRankDtypeAndCount) {
  auto g = add_graph();
  auto size = interpret(*g, std::vector<Tensor>{Tensor::zeros({3, 2}), Tensor::zeros({3, 4})});
  ASSERT_FALSE(size);
  EXPECT_EQ(size.error().message(), "input %y: expected f32[B,2], got f32[3,4] (dim 1 is 4, not 2)");
  auto rank = interpret(*g, std::vector<Tensor>{Tensor::zeros({3, 2}), Tensor::zeros({6})});
  ASSERT_FALSE(rank);
  EXPECT_EQ(rank.error().message(), "input %y: expected f32[B,2], got f32[6]");
  auto dtype = interpret(*g, std::vector<Tensor>{Tensor::zeros({3, 2}, DType::F64), Tensor::zeros({3, 2})});
  ASSERT_FALSE(dtype);
  EXPECT_EQ(dtype.error().message(), "input %x: expected f32[B,2], got f64[3,2]");
  auto count = interpret(*g, std::vector<Tensor>{Tensor::zeros({3, 2})});
  ASSERT_FALSE(count);
  EXPECT_EQ(count.error().message(), "graph @add takes 2 inputs, got 1");
}

TEST(Interpreter, FailureSaysWhileExecuting) {
  Graph g("g");
  Value* x = g.add_input("x", f32(sym({Dim::symbol("N")})));
  Node* n = g.append({OpKind::Reshape, {x}, {{"shape", AttrValue::Ints{5}}}, {f32(Shape{5})}});
  n->set_loc({"model.kir", 3, 8});
  g.set_outputs({n->result()});
  auto out = interpret(g, std::vector<Tensor>{Tensor::zeros({4})});
  ASSERT_FALSE(out);
  EXPECT_NE(out.error().context().find("while executing %0 = reshape(%x) {shape=[5]} : f32[5]"), std::string::npos)
      << out.error().to_string();
  EXPECT_EQ(out.error().loc().to_string(), "model.kir:3:8");
}

// A subgraph with the given inputs whose body `build` appends nodes and returns outputs.
template <typename F>
std::unique_ptr<Graph> subgraph(const std::string& name, std::vector<TensorType> inputs, F build) {
  auto g = std::make_unique<Graph>(name);
  std::vector<Value*> in;
  for (size_t i = 0; i < inputs.size(); ++i) in.push_back(g->add_input("a" + std::to_string(i), inputs[i]));
  g->set_outputs(build(*g, in));
  return g;
}

std::vector<TensorType> types_or_error(Graph& g, Graph::NewNode& n) {
  std::vector<TypeOperand> operands;
  for (const Operand& o : n.operands) {
    TypeOperand t;
    if (o.is_value()) t.type = o.value->type();
    t.literal = o.literal;
    operands.push_back(t);
  }
  std::vector<SubgraphSignature> sigs;
  for (const auto& sg : n.subgraphs) sigs.push_back(graph_signature(*sg));
  auto types = infer_types(TypeCall(n.op, n.attrs, operands, sigs));
  EXPECT_TRUE(types) << types.error().to_string();
  (void)g;
  return types ? *types : std::vector<TensorType>{};
}

// Appends a higher-order node with result types from its type rules.
Node* append_hop(Graph& g, Graph::NewNode n) {
  n.result_types = types_or_error(g, n);
  return g.append(std::move(n));
}

TEST(Interpreter, CondRunsTheTakenBranch) {
  Graph g("g");
  Value* p = g.add_input("p", {DType::Bool, Shape{}});
  Value* x = g.add_input("x", f32(Shape{2}));
  Graph::NewNode n{OpKind::Cond, {p, x}, {}, {}};
  n.subgraphs.push_back(subgraph("true_fn", {f32(Shape{2})}, [](Graph& sg, std::vector<Value*> in) {
    return std::vector<Value*>{sg.append({OpKind::Mul, {in[0], Scalar(2.0)}, {}, {f32(Shape{2})}})->result()};
  }));
  n.subgraphs.push_back(subgraph("false_fn", {f32(Shape{2})}, [](Graph& sg, std::vector<Value*> in) {
    return std::vector<Value*>{sg.append({OpKind::Neg, {in[0]}, {}, {f32(Shape{2})}})->result()};
  }));
  Node* c = append_hop(g, std::move(n));
  g.set_outputs({c->result()});
  ASSERT_TRUE(verify_graph(g)) << verify_graph(g).error().to_string();
  Tensor x_val = floats({1, -3}, {2});
  auto t = interpret(g, std::vector<Tensor>{Tensor::scalar(true, DType::Bool), x_val});
  ASSERT_TRUE(t) << t.error().to_string();
  EXPECT_TRUE((*t)[0].equal(floats({2, -6}, {2})));
  auto f = interpret(g, std::vector<Tensor>{Tensor::scalar(false, DType::Bool), x_val});
  ASSERT_TRUE(f) << f.error().to_string();
  EXPECT_TRUE((*f)[0].equal(floats({-1, 3}, {2})));
}

TEST(Interpreter, CondRejectsABadPredicateAndMismatchedBranches) {
  std::vector<TypeOperand> ops(2);
  ops[0].type = f32(Shape{});
  ops[1].type = f32(Shape{2});
  SubgraphSignature same{{f32(Shape{2})}, {f32(Shape{2})}};
  SubgraphSignature other{{f32(Shape{2})}, {f32(Shape{3})}};
  std::vector<SubgraphSignature> sigs = {same, same};
  auto bad_pred = infer_types(TypeCall(OpKind::Cond, {}, ops, sigs));
  ASSERT_FALSE(bad_pred);
  EXPECT_EQ(bad_pred.error().message(), "cond: the predicate must be a one-element bool tensor, got f32[]");
  ops[0].type = TensorType{DType::Bool, Shape{1}};
  sigs = {same, other};
  auto mismatch = infer_types(TypeCall(OpKind::Cond, {}, ops, sigs));
  ASSERT_FALSE(mismatch);
  EXPECT_EQ(mismatch.error().message(),
            "cond: output 0 has shape [2] in true_fn but [3] in false_fn; branches must agree in shape");
}

TEST(Interpreter, WhileLoopRunsUntilCondIsFalse) {
  Graph g("g");
  Value* i = g.add_input("i", i64(Shape{}));
  Value* x = g.add_input("x", f32(Shape{2}));
  std::vector<TensorType> carried = {i64(Shape{}), f32(Shape{2})};
  Graph::NewNode n{OpKind::WhileLoop, {i, x}, {}, {}};
  n.subgraphs.push_back(subgraph("cond_fn", carried, [](Graph& sg, std::vector<Value*> in) {
    return std::vector<Value*>{
        sg.append({OpKind::Lt, {in[0], Scalar(int64_t{5})}, {}, {{DType::Bool, Shape{}}}})->result()};
  }));
  n.subgraphs.push_back(subgraph("body_fn", carried, [](Graph& sg, std::vector<Value*> in) {
    Value* next_i = sg.append({OpKind::Add, {in[0], Scalar(int64_t{1})}, {}, {i64(Shape{})}})->result();
    Value* next_x = sg.append({OpKind::Mul, {in[1], Scalar(2.0)}, {}, {f32(Shape{2})}})->result();
    return std::vector<Value*>{next_i, next_x};
  }));
  Node* w = append_hop(g, std::move(n));
  g.set_outputs(w->results());
  ASSERT_TRUE(verify_graph(g)) << verify_graph(g).error().to_string();
  auto out = interpret(g, std::vector<Tensor>{Tensor::scalar(int64_t{2}, DType::I64), floats({1, 0.5}, {2})});
  ASSERT_TRUE(out) << out.error().to_string();
  EXPECT_EQ((*out)[0].item_int(), 5);
  EXPECT_TRUE((*out)[1].equal(floats({8, 4}, {2})));
}

TEST(Interpreter, ScanCarriesAndStacksAlongDim) {
  Graph g("g");
  Value* init = g.add_input("init", f32(Shape{2}));
  Value* xs = g.add_input("xs", f32(Shape{2, 3}));  // scanned along dim 1
  Graph::NewNode n{OpKind::Scan, {init, xs}, {{"num_init", 1}, {"dim", 1}}, {}};
  n.subgraphs.push_back(subgraph("combine_fn", {f32(Shape{2}), f32(Shape{2})}, [](Graph& sg, std::vector<Value*> in) {
    Value* s = sg.append({OpKind::Add, {in[0], in[1]}, {}, {f32(Shape{2})}})->result();
    Value* y = sg.append({OpKind::Mul, {s, Scalar(10.0)}, {}, {f32(Shape{2})}})->result();
    return std::vector<Value*>{s, y};
  }));
  Node* s = append_hop(g, std::move(n));
  ASSERT_EQ(s->num_results(), 2);
  EXPECT_EQ(s->result(1)->type(), f32(Shape{2, 3}));
  g.set_outputs(s->results());
  ASSERT_TRUE(verify_graph(g)) << verify_graph(g).error().to_string();
  auto out = interpret(g, std::vector<Tensor>{floats({0, 100}, {2}), floats({1, 2, 3, 4, 5, 6}, {2, 3})});
  ASSERT_TRUE(out) << out.error().to_string();
  EXPECT_TRUE((*out)[0].equal(floats({6, 115}, {2})));
  EXPECT_TRUE((*out)[1].equal(floats({10, 30, 60, 1040, 1090, 1150}, {2, 3})));
}

TEST(Interpreter, MapAppliesTheBodyPerRowWithExtras) {
  Graph g("g");
  Value* xs = g.add_input("xs", f32(sym({Dim::symbol("N"), 2})));
  Value* w = g.add_input("w", f32(Shape{2}));
  Graph::NewNode n{OpKind::Map, {xs, w}, {{"num_mapped", 1}}, {}};
  n.subgraphs.push_back(subgraph("body_fn", {f32(Shape{2}), f32(Shape{2})}, [](Graph& sg, std::vector<Value*> in) {
    return std::vector<Value*>{sg.append({OpKind::Mul, {in[0], in[1]}, {}, {f32(Shape{2})}})->result()};
  }));
  Node* m = append_hop(g, std::move(n));
  EXPECT_EQ(m->result()->type(), f32(sym({Dim::symbol("N"), 2})));
  g.set_outputs({m->result()});
  ASSERT_TRUE(verify_graph(g)) << verify_graph(g).error().to_string();
  auto out = interpret(g, std::vector<Tensor>{floats({1, 2, 3, 4, 5, 6}, {3, 2}), floats({10, -1}, {2})});
  ASSERT_TRUE(out) << out.error().to_string();
  EXPECT_TRUE((*out)[0].equal(floats({10, -2, 30, -4, 50, -6}, {3, 2})));
}

TEST(Interpreter, SubgraphFailureNamesTheSubgraphAndTheNode) {
  Graph g("g");
  Value* p = g.add_input("p", {DType::Bool, Shape{}});
  Value* x = g.add_input("x", f32(sym({Dim::symbol("N")})));
  Graph::NewNode n{OpKind::Cond, {p, x}, {}, {}};
  auto branch = [](Graph& sg, std::vector<Value*> in) {
    return std::vector<Value*>{
        sg.append({OpKind::Reshape, {in[0]}, {{"shape", AttrValue::Ints{3}}}, {f32(Shape{3})}})->result()};
  };
  n.subgraphs.push_back(subgraph("true_fn", {f32(sym({Dim::symbol("N")}))}, branch));
  n.subgraphs.push_back(subgraph("false_fn", {f32(sym({Dim::symbol("N")}))}, branch));
  Node* c = append_hop(g, std::move(n));
  g.set_outputs({c->result()});
  auto out = interpret(g, std::vector<Tensor>{Tensor::scalar(true, DType::Bool), Tensor::zeros({4})});
  ASSERT_FALSE(out);
  const std::string& ctx = out.error().context();
  EXPECT_NE(ctx.find("while executing %0 = reshape"), std::string::npos) << ctx;
  EXPECT_NE(ctx.find("in true_fn of cond"), std::string::npos) << ctx;
  EXPECT_NE(ctx.find("while executing %0 = cond(%p, %x)"), std::string::npos) << ctx;
}

}  // namespace
}  // namespace kiln
