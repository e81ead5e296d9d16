// cond, while_loop, scan and map (frontend/control_flow.h): eager results against hand-computed
// values, the printed form of captured nodes (and that it parses back), captured+interpreted
// equal to eager, closures over traced values, module parameters and constants, nested
// control flow, and every error message.
#include <gtest/gtest.h>

#include "kiln/kiln.h"

namespace kiln {
namespace {

Tensor floats(const std::vector<double>& v, const std::vector<int64_t>& sizes) {
  return Tensor::from_doubles(v, sizes);
}
Tensor boolean(bool b) { return Tensor::scalar(b, DType::Bool); }
Tensor index(int64_t i) { return Tensor::scalar(i, DType::I64); }

using Tensors = std::vector<Tensor>;

// Captures `fn`, checks that its graph prints and parses back to the same text, and returns it.
Captured capture_ok(CaptureFn fn, Tensors examples, CaptureOptions options = {}) {
  auto captured = capture(std::move(fn), std::move(examples), options);
  EXPECT_TRUE(captured) << captured.error().to_string();
  if (!captured) return {};
  const std::string text = print_graph(*captured->graph);
  auto parsed = parse_graph(text);
  EXPECT_TRUE(parsed) << parsed.error().to_string() << "\n" << text;
  if (parsed) {
    EXPECT_EQ(print_graph(**parsed), text);
  }
  return std::move(*captured);
}

// Runs `fn` eagerly and through capture + the interpreter on each input set; they must agree
// exactly.
void expect_captured_equals_eager(const CaptureFn& fn, const std::vector<Tensors>& input_sets,
                                  CaptureOptions options = {}) {
  Captured captured = capture_ok(fn, input_sets[0], options);
  ASSERT_TRUE(captured.graph);
  for (const Tensors& inputs : input_sets) {
    Tensors eager = fn(inputs);
    auto interpreted = captured.run(inputs);
    ASSERT_TRUE(interpreted) << interpreted.error().to_string();
    ASSERT_EQ(interpreted->size(), eager.size());
    for (size_t i = 0; i < eager.size(); ++i)
      EXPECT_TRUE((*interpreted)[i].equal(eager[i]))
          << "output " << i << ": " << (*interpreted)[i].to_string() << " vs " << eager[i].to_string();
  }
}

// The message of the error `fn` throws.
template <typename Fn>
std::string thrown(Fn fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.diagnostic().message();
  }
  return "(nothing thrown)";
}

// The message of the error capturing `fn` gives.
std::string capture_error(CaptureFn fn, Tensors examples) {
  auto captured = capture(std::move(fn), std::move(examples));
  return captured ? "(captured)" : captured.error().message();
}

// ---- the functions of the running examples ----

Tensors neg_or_exp(std::span<const Tensor> in) {
  return cond(
      in[0], [](std::span<const Tensor> a) { return Tensors{neg(a[0])}; },
      [](std::span<const Tensor> a) { return Tensors{exp(a[0])}; }, {in[1]});
}

Tensors double_five_times(std::span<const Tensor> in) {
  return while_loop([](std::span<const Tensor> c) { return Tensors{lt(c[0], 5)}; },
                    [](std::span<const Tensor> c) {
                      return Tensors{c[0] + 1, c[1] * 2.0};
                    },
                    {in[0], in[1]});
}

Tensors running_sum(std::span<const Tensor> in, int64_t dim) {
  return scan(
      [](std::span<const Tensor> a) {
        Tensor c = a[0] + a[1];
        return Tensors{c, c * a[1]};
      },
      {in[0]}, {in[1]}, dim);
}

Tensors sin_times(std::span<const Tensor> in) {
  return map([](std::span<const Tensor> a) { return Tensors{sin(a[0]) * a[1]}; }, {in[0]}, {in[1]});
}

// ---- eager ----

TEST(ControlFlow, EagerCondRunsTheBranchThePredicatePicks) {
  Tensor x = floats({1, -3}, {2});
  EXPECT_TRUE(neg_or_exp(Tensors{boolean(true), x})[0].equal(floats({-1, 3}, {2})));
  EXPECT_TRUE(neg_or_exp(Tensors{boolean(false), x})[0].equal(exp(x)));
  // A one-element predicate of any rank.
  Tensor p = Tensor::full({1, 1}, true, DType::Bool);
  EXPECT_TRUE(neg_or_exp(Tensors{p, x})[0].equal(floats({-1, 3}, {2})));
}

TEST(ControlFlow, EagerWhileLoopLoopsUntilCondFnIsFalse) {
  Tensors out = double_five_times(Tensors{index(0), floats({1, 2}, {2})});
  EXPECT_TRUE(out[0].equal(index(5)));
  EXPECT_TRUE(out[1].equal(floats({32, 64}, {2})));
  // No iteration at all.
  Tensors none = double_five_times(Tensors{index(7), floats({1, 2}, {2})});
  EXPECT_TRUE(none[0].equal(index(7)));
  EXPECT_TRUE(none[1].equal(floats({1, 2}, {2})));
}

TEST(ControlFlow, EagerScanCarriesAndStacksAlongDim) {
  Tensor init = floats({0, 0, 0}, {3});
  Tensor xs = floats({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensors out = running_sum(Tensors{init, xs}, 0);
  EXPECT_TRUE(out[0].equal(floats({5, 7, 9}, {3})));
  EXPECT_TRUE(out[1].equal(floats({1, 4, 9, 20, 35, 54}, {2, 3})));
  // Along dim 1 (and -1): the slices are the columns, the carry has 2 elements.
  Tensors by_column = running_sum(Tensors{floats({0, 0}, {2}), xs}, -1);
  EXPECT_TRUE(by_column[0].equal(floats({6, 15}, {2})));
  EXPECT_TRUE(by_column[1].equal(floats({1, 6, 18, 16, 45, 90}, {2, 3})));
}

TEST(ControlFlow, EagerMapStacksTheOutputsWithExtras) {
  Tensor xs = floats({0, 0, 0, 0}, {2, 2});
  Tensor w = floats({10, 100}, {2});
  Tensors out = map([](std::span<const Tensor> a) { return Tensors{a[0] + a[1], a[0].sum()}; }, {xs}, {w});
  EXPECT_TRUE(out[0].equal(floats({10, 100, 10, 100}, {2, 2})));
  EXPECT_TRUE(out[1].equal(floats({0, 0}, {2})));
}

// ---- captured: the printed form ----

TEST(ControlFlow, CapturedCondPrintsBothBranches) {
  Captured c = capture_ok(neg_or_exp, {boolean(true), floats({1, 2, 3, 4}, {4})}, {.input_names = {"p", "x"}});
  ASSERT_TRUE(c.graph);
  EXPECT_EQ(print_graph(*c.graph),
            "graph @main(%p: bool[], %x: f32[4]) -> (f32[4]) {\n"
            "  %0 = cond(%p, %x) : f32[4] {\n"
            "    true_fn = graph(%arg0: f32[4]) -> (f32[4]) {\n"
            "      %0 = neg(%arg0) : f32[4]\n"
            "      return %0\n"
            "    }\n"
            "    false_fn = graph(%arg0: f32[4]) -> (f32[4]) {\n"
            "      %0 = exp(%arg0) : f32[4]\n"
            "      return %0\n"
            "    }\n"
            "  }\n"
            "  return %0\n"
            "}\n");
}

TEST(ControlFlow, CapturedWhileLoopPrintsCondAndBody) {
  Captured c = capture_ok(double_five_times, {index(0), floats({1, 2, 3, 4}, {4})}, {.input_names = {"i", "x"}});
  ASSERT_TRUE(c.graph);
  EXPECT_EQ(print_graph(*c.graph),
            "graph @main(%i: i64[], %x: f32[4]) -> (i64[], f32[4]) {\n"
            "  %0, %1 = while_loop(%i, %x) : (i64[], f32[4]) {\n"
            "    cond_fn = graph(%arg0: i64[], %arg1: f32[4]) -> (bool[]) {\n"
            "      %0 = lt(%arg0, 5) : bool[]\n"
            "      return %0\n"
            "    }\n"
            "    body_fn = graph(%arg0: i64[], %arg1: f32[4]) -> (i64[], f32[4]) {\n"
            "      %0 = add(%arg0, 1) : i64[]\n"
            "      %1 = mul(%arg1, 2.0) : f32[4]\n"
            "      return %0, %1\n"
            "    }\n"
            "  }\n"
            "  return %0, %1\n"
            "}\n");
}

TEST(ControlFlow, CapturedScanPrintsCombineFnAndDim) {
  auto fn = [](std::span<const Tensor> in) { return running_sum(in, 1); };
  Captured c = capture_ok(fn, {floats({0, 0, 0}, {3}), Tensor::randn({3, 5}, 1)}, {.input_names = {"init", "xs"}});
  ASSERT_TRUE(c.graph);
  EXPECT_EQ(print_graph(*c.graph),
            "graph @main(%init: f32[3], %xs: f32[3,5]) -> (f32[3], f32[3,5]) {\n"
            "  %0, %1 = scan(%init, %xs) {dim=1, num_init=1} : (f32[3], f32[3,5]) {\n"
            "    combine_fn = graph(%arg0: f32[3], %arg1: f32[3]) -> (f32[3], f32[3]) {\n"
            "      %0 = add(%arg0, %arg1) : f32[3]\n"
            "      %1 = mul(%0, %arg1) : f32[3]\n"
            "      return %0, %1\n"
            "    }\n"
            "  }\n"
            "  return %0, %1\n"
            "}\n");
}

TEST(ControlFlow, CapturedMapPrintsBodyWithExtras) {
  Captured c = capture_ok(sin_times, {Tensor::randn({4, 3}, 2), Tensor::randn({3}, 3)}, {.input_names = {"xs", "s"}});
  ASSERT_TRUE(c.graph);
  EXPECT_EQ(print_graph(*c.graph),
            "graph @main(%xs: f32[4,3], %s: f32[3]) -> (f32[4,3]) {\n"
            "  %0 = map(%xs, %s) {num_mapped=1} : f32[4,3] {\n"
            "    body_fn = graph(%arg0: f32[3], %arg1: f32[3]) -> (f32[3]) {\n"
            "      %0 = sin(%arg0) : f32[3]\n"
            "      %1 = mul(%0, %arg1) : f32[3]\n"
            "      return %1\n"
            "    }\n"
            "  }\n"
            "  return %0\n"
            "}\n");
}

TEST(ControlFlow, CapturedWithDynamicDimsKeepsTheSymbols) {
  Captured c = capture_ok(sin_times, {Tensor::randn({4, 3}, 2), Tensor::randn({3}, 3)}, {.dynamic = {{0, "N"}}});
  ASSERT_TRUE(c.graph);
  EXPECT_EQ(c.graph->outputs()[0]->type().to_string(), "f32[N,3]");
  auto out = c.run(Tensors{Tensor::randn({6, 3}, 4), Tensor::randn({3}, 5)});
  ASSERT_TRUE(out) << out.error().to_string();
  EXPECT_EQ((*out)[0].sizes(), (std::vector<int64_t>{6, 3}));
}

// ---- captured + interpreted == eager ----

TEST(ControlFlow, CondCapturedAndInterpretedEqualsEager) {
  Tensor x = Tensor::randn({4}, 10);
  expect_captured_equals_eager(neg_or_exp, {{boolean(true), x}, {boolean(false), x}});
}

TEST(ControlFlow, WhileLoopCapturedAndInterpretedEqualsEager) {
  expect_captured_equals_eager(
      double_five_times,
      {{index(0), Tensor::randn({4}, 11)}, {index(3), Tensor::randn({4}, 12)}, {index(9), Tensor::randn({4}, 13)}});
}

TEST(ControlFlow, ScanCapturedAndInterpretedEqualsEager) {
  for (int64_t dim : {0, 1}) {
    auto fn = [dim](std::span<const Tensor> in) { return running_sum(in, dim); };
    expect_captured_equals_eager(
        fn, {{Tensor::randn({3}, 14), Tensor::randn({3, 3}, 15)}, {Tensor::randn({3}, 16), Tensor::randn({3, 3}, 17)}});
  }
}

TEST(ControlFlow, MapCapturedAndInterpretedEqualsEager) {
  expect_captured_equals_eager(sin_times, {{Tensor::randn({4, 3}, 18), Tensor::randn({3}, 19)},
                                           {Tensor::randn({4, 3}, 20), Tensor::randn({3}, 21)}});
}

// ---- closures ----

TEST(ControlFlow, CondLiftsOuterTracedValuesIntoBothBranches) {
  // true_fn uses the input %w, false_fn the node result %0: both branches get both, in order.
  auto fn = [](std::span<const Tensor> in) {
    Tensor w = in[2];
    Tensor h = exp(in[1]);
    return cond(
        in[0], [&](std::span<const Tensor> a) { return Tensors{a[0] * w}; },
        [&](std::span<const Tensor> a) { return Tensors{a[0] + h}; }, {in[1]});
  };
  Tensor x = Tensor::randn({3}, 22), w = Tensor::randn({3}, 23);
  Captured c = capture_ok(fn, {boolean(true), x, w}, {.input_names = {"p", "x", "w"}});
  ASSERT_TRUE(c.graph);
  EXPECT_EQ(print_graph(*c.graph),
            "graph @main(%p: bool[], %x: f32[3], %w: f32[3]) -> (f32[3]) {\n"
            "  %0 = exp(%x) : f32[3]\n"
            "  %1 = cond(%p, %x, %w, %0) : f32[3] {\n"
            "    true_fn = graph(%arg0: f32[3], %w: f32[3], %lifted1: f32[3]) -> (f32[3]) {\n"
            "      %0 = mul(%arg0, %w) : f32[3]\n"
            "      return %0\n"
            "    }\n"
            "    false_fn = graph(%arg0: f32[3], %w: f32[3], %lifted1: f32[3]) -> (f32[3]) {\n"
            "      %0 = add(%arg0, %lifted1) : f32[3]\n"
            "      return %0\n"
            "    }\n"
            "  }\n"
            "  return %1\n"
            "}\n");
  expect_captured_equals_eager(fn, {{boolean(true), x, w}, {boolean(false), x, w}});
}

struct Affine : nn::Module {
  nn::Linear fc{3, 2, true, 24};
  Affine() { register_module("fc", fc); }
};

TEST(ControlFlow, MapLiftsModuleParametersAsExtraOperands) {
  Affine model;
  auto fn = [&](std::span<const Tensor> in) {
    return map([&](std::span<const Tensor> a) { return Tensors{model.fc(a[0])}; }, {in[0]});
  };
  Captured c = capture_ok(fn, {Tensor::randn({4, 3}, 25)}, {.input_names = {"xs"}, .module = &model});
  ASSERT_TRUE(c.graph);
  EXPECT_EQ(print_graph(*c.graph),
            "graph @main(%xs: f32[4,3], %fc.weight: param f32[2,3], %fc.bias: param f32[2]) -> (f32[4,2]) {\n"
            "  %0 = map(%xs, %fc.weight, %fc.bias) {num_mapped=1} : f32[4,2] {\n"
            "    body_fn = graph(%arg0: f32[3], %fc.weight: f32[2,3], %fc.bias: f32[2]) -> (f32[2]) {\n"
            "      %0 = linear(%arg0, %fc.weight, %fc.bias) : f32[2]\n"
            "      return %0\n"
            "    }\n"
            "  }\n"
            "  return %0\n"
            "}\n");
  ASSERT_EQ(c.lifted.size(), 2u);
  EXPECT_EQ(c.lifted[0].storage(), model.fc.weight.storage());
  expect_captured_equals_eager(fn, {{Tensor::randn({4, 3}, 26)}}, {.module = &model});
}

TEST(ControlFlow, ScanCarriesAConstantClosureUnchanged) {
  Tensor k = floats({1, 2, 3}, {3});
  auto fn = [&](std::span<const Tensor> in) {
    return scan([&](std::span<const Tensor> a) { return Tensors{a[0] + a[1] * k, a[0]}; }, {in[0]}, {in[1]});
  };
  Captured c = capture_ok(fn, {Tensor::randn({3}, 27), Tensor::randn({2, 3}, 28)}, {.input_names = {"init", "xs"}});
  ASSERT_TRUE(c.graph);
  EXPECT_EQ(print_graph(*c.graph),
            "graph @main(%init: f32[3], %xs: f32[2,3], %_tensor_constant0: buffer f32[3]) -> (f32[3], f32[2,3]) {\n"
            "  %0, %1, %2 = scan(%init, %_tensor_constant0, %xs) {num_init=2} : (f32[3], f32[3], f32[2,3]) {\n"
            "    combine_fn = graph(%arg0: f32[3], %_tensor_constant0: f32[3], %arg1: f32[3]) -> "
            "(f32[3], f32[3], f32[3]) {\n"
            "      %0 = mul(%arg1, %_tensor_constant0) : f32[3]\n"
            "      %1 = add(%arg0, %0) : f32[3]\n"
            "      return %1, %_tensor_constant0, %arg0\n"
            "    }\n"
            "  }\n"
            "  return %0, %2\n"
            "}\n");
  expect_captured_equals_eager(fn, {{Tensor::randn({3}, 29), Tensor::randn({2, 3}, 30)}});
}

TEST(ControlFlow, WhileLoopCarriesClosuresThroughTheBody) {
  // cond_fn closes over a traced limit, body_fn over a traced step: both become carried.
  auto fn = [](std::span<const Tensor> in) {
    Tensor limit = in[1], step = in[2];
    return while_loop([&](std::span<const Tensor> c) { return Tensors{lt(c[0].sum(), limit)}; },
                      [&](std::span<const Tensor> c) { return Tensors{c[0] + step}; }, {in[0]});
  };
  Tensors inputs{floats({0, 1}, {2}), Tensor::scalar(20.0, DType::F32), floats({1, 2}, {2})};
  Captured c = capture_ok(fn, inputs);
  ASSERT_TRUE(c.graph);
  const Node* loop = c.graph->first_node();
  ASSERT_EQ(loop->op(), OpKind::WhileLoop);
  EXPECT_EQ(loop->num_operands(), 3);
  EXPECT_EQ(loop->num_results(), 3);
  EXPECT_EQ(c.graph->outputs().size(), 1u);
  Tensors done_at_once{floats({5, 5}, {2}), Tensor::scalar(3.0, DType::F32), floats({1, 1}, {2})};
  expect_captured_equals_eager(fn, {inputs, done_at_once});
}

// ---- nesting ----

TEST(ControlFlow, CondNestedInAWhileLoopBody) {
  // The inner branches use an input of the capture (%w), lifted through body_fn into cond.
  auto fn = [](std::span<const Tensor> in) {
    Tensor w = in[2];
    return while_loop([](std::span<const Tensor> c) { return Tensors{lt(c[0], 4)}; },
                      [&](std::span<const Tensor> c) {
                        Tensors y = cond(
                            gt(c[1].sum(), 0.0), [&](std::span<const Tensor> a) { return Tensors{a[0] * w}; },
                            [](std::span<const Tensor> a) { return Tensors{a[0] + 1.0}; }, {c[1]});
                        return Tensors{c[0] + 1, y[0]};
                      },
                      {in[0], in[1]});
  };
  Tensors inputs{index(0), floats({-3, 1}, {2}), floats({2, -1}, {2})};
  Captured c = capture_ok(fn, inputs);
  ASSERT_TRUE(c.graph);
  const Node* loop = c.graph->first_node();
  ASSERT_EQ(loop->op(), OpKind::WhileLoop);
  EXPECT_EQ(loop->num_operands(), 3);  // i, x, and the lifted w
  const Graph& body = *loop->subgraph(1);
  EXPECT_EQ(body.num_inputs(), 3);
  expect_captured_equals_eager(fn, {inputs, {index(1), floats({2, 2}, {2}), floats({0.5, 3}, {2})}});
  // Hand-computed: x=[-3,1] sums to -2 -> +1 -> [-2,2] sums to 0 -> +1 -> [-1,3] sums to 2
  // -> *w -> [-2,-3] sums to -5 -> +1 -> [-1,-2].
  Tensors eager = fn(inputs);
  EXPECT_TRUE(eager[1].equal(floats({-1, -2}, {2})));
}

TEST(ControlFlow, MapInsideScanInsideCond) {
  auto fn = [](std::span<const Tensor> in) {
    Tensor s = in[2];
    auto body = [&](std::span<const Tensor> a) {
      Tensors r = scan(
          [&](std::span<const Tensor> b) {
            Tensors m = map([&](std::span<const Tensor> e) { return Tensors{e[0] * s}; }, {b[1]});
            return Tensors{b[0] + m[0], m[0]};
          },
          {select(a[0], 0, 0)}, {a[0]});
      return Tensors{r[1]};
    };
    return cond(in[0], body, [](std::span<const Tensor> a) { return Tensors{a[0]}; }, {in[1]});
  };
  Tensor xs = Tensor::randn({3, 2, 4}, 31), s = Tensor::randn({4}, 32);
  expect_captured_equals_eager(fn, {{boolean(true), xs, s}, {boolean(false), xs, s}});
}

// ---- errors ----

TEST(ControlFlow, CondErrors) {
  auto same = [](std::span<const Tensor> a) { return Tensors{a[0]}; };
  Tensor x = floats({1, 2, 3, 4}, {4});
  const std::string bad_pred = "cond: the predicate must be a one-element bool tensor, got f32[]";
  EXPECT_EQ(thrown([&] { cond(Tensor::scalar(1.0, DType::F32), same, same, {x}); }), bad_pred);
  EXPECT_EQ(capture_error([&](std::span<const Tensor> in) { return cond(in[0], same, same, {in[1]}); },
                          {Tensor::scalar(1.0, DType::F32), x}),
            bad_pred);
  EXPECT_EQ(thrown([&] { cond(Tensor::full({2}, true, DType::Bool), same, same, {x}); }),
            "cond: the predicate must be a one-element bool tensor, got bool[2]");

  auto to_int = [](std::span<const Tensor> a) { return Tensors{a[0].to_dtype(DType::I64)}; };
  EXPECT_EQ(
      capture_error([&](std::span<const Tensor> in) { return cond(in[0], same, to_int, {in[1]}); }, {boolean(true), x}),
      "cond: output 0 is f32[4] in true_fn but i64[4] in false_fn");
  auto first_two = [](std::span<const Tensor> a) { return Tensors{slice(a[0], 0, 0, 2)}; };
  EXPECT_EQ(capture_error([&](std::span<const Tensor> in) { return cond(in[0], same, first_two, {in[1]}); },
                          {boolean(true), x}),
            "cond: output 0 has shape [4] in true_fn but [2] in false_fn; branches must agree in shape");
  auto none = [](std::span<const Tensor>) { return Tensors{}; };
  EXPECT_EQ(
      capture_error([&](std::span<const Tensor> in) { return cond(in[0], same, none, {in[1]}); }, {boolean(true), x}),
      "cond: true_fn returns 1 tensors but false_fn returns 0");
  auto undefined = [](std::span<const Tensor>) { return Tensors{Tensor()}; };
  EXPECT_EQ(capture_error([&](std::span<const Tensor> in) { return cond(in[0], undefined, same, {in[1]}); },
                          {boolean(true), x}),
            "cond: true_fn returned an undefined tensor as output 0");
  EXPECT_EQ(thrown([&] { cond(boolean(true), same, same, {Tensor()}); }), "cond: operand 1 is undefined");
}

TEST(ControlFlow, WhileLoopErrors) {
  auto below_five = [](std::span<const Tensor> c) { return Tensors{lt(c[0], 5)}; };
  auto drops_i = [](std::span<const Tensor> c) { return Tensors{c[1] * 2.0}; };
  Tensors carried{index(0), floats({1, 2, 3, 4}, {4})};
  const std::string bad_body = "while_loop: body_fn returns (f32[4]) but the carried values are (i64[], f32[4])";
  EXPECT_EQ(thrown([&] { while_loop(below_five, drops_i, carried); }), bad_body);
  EXPECT_EQ(capture_error(
                [&](std::span<const Tensor> in) {
                  return while_loop(below_five, drops_i, {in[0], in[1]});
                },
                carried),
            bad_body);

  auto widens = [](std::span<const Tensor> c) { return Tensors{c[0] + 1, c[1].to_dtype(DType::F64)}; };
  EXPECT_EQ(capture_error(
                [&](std::span<const Tensor> in) {
                  return while_loop(below_five, widens, {in[0], in[1]});
                },
                carried),
            "while_loop: body_fn returns (i64[], f64[4]) but the carried values are (i64[], f32[4])");

  auto not_bool = [](std::span<const Tensor> c) { return Tensors{c[1].sum()}; };
  auto same = [](std::span<const Tensor> c) { return Tensors(c.begin(), c.end()); };
  const std::string bad_cond = "while_loop: cond_fn must return bool[], it returns (f32[])";
  EXPECT_EQ(thrown([&] { while_loop(not_bool, same, carried); }), bad_cond);
  EXPECT_EQ(capture_error(
                [&](std::span<const Tensor> in) {
                  return while_loop(not_bool, same, {in[0], in[1]});
                },
                carried),
            bad_cond);
}

TEST(ControlFlow, ScanErrors) {
  auto add = [](std::span<const Tensor> a) { return Tensors{a[0] + a[1]}; };
  Tensor init = floats({0, 0, 0}, {3});
  const std::string bad_carry = "scan: combine_fn must return the carries (f32[3]) first, it returns (f64[3])";
  auto widens = [](std::span<const Tensor> a) { return Tensors{(a[0] + a[1]).to_dtype(DType::F64)}; };
  EXPECT_EQ(thrown([&] { scan(widens, {init}, {Tensor::zeros({2, 3})}); }), bad_carry);
  EXPECT_EQ(capture_error([&](std::span<const Tensor> in) { return scan(widens, {in[0]}, {in[1]}); },
                          {init, Tensor::zeros({2, 3})}),
            bad_carry);
  EXPECT_EQ(thrown([&] {
              scan(add, {init}, {Tensor::zeros({2, 3}), Tensor::zeros({3, 3})});
            }),
            "scan: scanned operands disagree in size along dim 0: f32[2,3] vs f32[3,3]");
  EXPECT_EQ(thrown([&] { scan(add, {init}, {Tensor::zeros({2, 3})}, 2); }), "scan: dim=2 is out of range for f32[2,3]");
  EXPECT_EQ(thrown([&] { scan(add, {init}, {}); }), "scan: needs at least one tensor to scan over");
  EXPECT_EQ(thrown([&] {
              scan(add, {init}, {Tensor::zeros({0, 3})});
            }),
            "scan: cannot run eagerly over a dim of size 0 (f32[0,3]): the outputs' shapes come from calling the "
            "function");
}

TEST(ControlFlow, MapErrors) {
  auto same = [](std::span<const Tensor> a) { return Tensors{a[0]}; };
  EXPECT_EQ(thrown([&] { map(same, {Tensor::scalar(1.0, DType::F32)}); }),
            "map: mapped operands need a dim to map over, got f32[]");
  EXPECT_EQ(thrown([&] { map(same, {}); }), "map: needs at least one tensor to map over");
  EXPECT_EQ(thrown([&] {
              map(same, {Tensor::zeros({2}), Tensor::zeros({3, 1})});
            }),
            "map: mapped operands disagree in size along dim 0: f32[2] vs f32[3,1]");
  auto ragged = [](std::span<const Tensor> a) { return a[0].item_int() == 0 ? Tensors{a[0]} : Tensors{a[0], a[0]}; };
  EXPECT_EQ(thrown([&] {
              map(ragged, {Tensor::from_ints({0, 1}, {2})});
            }),
            "map: body_fn returned 2 outputs at index 1 but 1 at index 0");
}

TEST(ControlFlow, TracedTensorsMustStayInTheirContext) {
  Tensor leaked;
  auto keep = [&](std::span<const Tensor> in) {
    leaked = in[0];
    return Tensors{in[0]};
  };
  ASSERT_TRUE(capture(keep, {Tensor::zeros({2})}));
  auto same = [](std::span<const Tensor> a) { return Tensors{a[0]}; };
  EXPECT_EQ(thrown([&] { cond(boolean(true), same, same, {leaked}); }),
            "cond: a traced tensor was used outside the capture that made it");

  // A tensor traced in true_fn, kept, and used by false_fn after true_fn has returned.
  Tensor from_true_fn;
  auto fn = [&](std::span<const Tensor> in) {
    return cond(
        in[0],
        [&](std::span<const Tensor> a) {
          from_true_fn = a[0];
          return Tensors{a[0]};
        },
        [&](std::span<const Tensor> a) { return Tensors{a[0] + from_true_fn}; }, {in[1]});
  };
  EXPECT_EQ(capture_error(fn, {boolean(true), Tensor::zeros({2})}),
            "a tensor traced by another capture, or inside a function of cond/while_loop/scan/map that has returned, "
            "was used here; pass it in as an input instead");
}

}  // namespace
}  // namespace kiln
