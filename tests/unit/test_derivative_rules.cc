// Derivative rules checked against float64 central differences. For each case, a one-op graph
// is parsed; its VJP graph (the op's operands and one gradient per result as inputs, a copy
// of the node, then the rule's nodes) is interpreted, and <grad, e> is compared with
// (L(x + h e) - L(x - h e)) / 2h for random directions e, where L(x) = <f(x), u>.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "autograd/derivative.h"
#include "interp/interpreter.h"
#include "ir/parser.h"

namespace kiln {
namespace {

// How an input's values are drawn: away from the kinks and poles of the op under test.
enum class Gen {
  Normal,    // randn
  Positive,  // |randn| + 0.5
  AwayZero,  // sign(randn) (|randn| + 0.3)
  Unit,      // in (-0.8, 0.8)
  Mask,      // bool, random
};

struct Case {
  std::string name;
  std::string inputs;  // the graph's signature, e.g. "%x: f64[3,4], %y: f64[4]"
  std::string node;    // the op application, e.g. "add(%x, %y) {alpha=2}"
  std::string result;  // the result type
  std::vector<Gen> gens = {};  // per input; Normal when missing
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.node; }

std::vector<double> values(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[static_cast<size_t>(i)] = t.item_double(i);
  return v;
}

Tensor draw(const TensorType& type, Gen gen, uint64_t seed) {
  const std::vector<int64_t> sizes = type.shape.sizes();
  if (gen == Gen::Mask) {
    std::vector<double> v = values(Tensor::randn(sizes, seed, DType::F64));
    std::vector<int64_t> bits;
    for (double x : v) bits.push_back(x > 0);
    return Tensor::from_ints(bits, sizes, DType::Bool);
  }
  std::vector<double> v = values(Tensor::randn(sizes, seed, DType::F64));
  for (double& x : v) {
    if (gen == Gen::Positive) x = std::abs(x) + 0.5;
    if (gen == Gen::AwayZero) x = (x < 0 ? -1 : 1) * (std::abs(x) + 0.3);
    if (gen == Gen::Unit) x = 0.8 * std::tanh(x);
  }
  return Tensor::from_doubles(v, sizes, type.dtype);
}

double dot(const Tensor& a, const Tensor& b) {
  std::vector<double> x = values(a), y = values(b);
  double s = 0;
  for (size_t i = 0; i < x.size(); ++i) s += x[i] * y[i];
  return s;
}

Tensor axpy(const Tensor& x, double h, const Tensor& e) {
  std::vector<double> v = values(x), d = values(e);
  for (size_t i = 0; i < v.size(); ++i) v[i] += h * d[i];
  return Tensor::from_doubles(v, x.sizes(), x.dtype());
}

struct Vjp {
  std::unique_ptr<Graph> graph;
  std::vector<int> grad_of;  // for each output, the forward input it is the gradient of
};

// The VJP graph of `fwd`'s single node, whose operands are the graph's inputs or literals.
Vjp build_vjp(const Graph& fwd) {
  Vjp out;
  out.graph = std::make_unique<Graph>("vjp");
  const Node& node = *fwd.first_node();
  std::map<const Value*, Value*> map;
  for (int i = 0; i < fwd.num_inputs(); ++i) map[fwd.input(i)] = out.graph->add_input(fwd.input(i)->name(), fwd.input(i)->type());
  std::vector<Value*> grads;
  for (int r = 0; r < node.num_results(); ++r) {
    const TensorType& t = node.result(r)->type();
    grads.push_back(is_floating(t.dtype) ? out.graph->add_input("u" + std::to_string(r), t) : nullptr);
  }
  GraphBuilder b(*out.graph);
  std::vector<Operand> operands;
  for (const Operand& o : node.operands()) operands.push_back(o.is_value() ? Operand(map.at(o.value)) : Operand(o.literal));
  Node* copy = b.apply(node.op(), operands, node.attrs())[0]->producer();
  const DerivativeInfo& info = derivative_info(node.op());
  EXPECT_EQ(info.kind, Differentiability::Rule) << node.info().name();
  if (info.kind != Differentiability::Rule) return out;
  std::vector<Value*> result = info.rule(GradCall(*copy, grads, b));
  EXPECT_EQ(result.size(), static_cast<size_t>(node.num_operands()));
  std::vector<Value*> outputs;
  for (size_t i = 0; i < result.size(); ++i) {
    if (result[i] == nullptr) continue;
    EXPECT_EQ(result[i]->type(), copy->operand(static_cast<int>(i)).value->type()) << "gradient of operand " << i;
    outputs.push_back(result[i]);
    out.grad_of.push_back(node.operand(static_cast<int>(i)).value->index());
  }
  out.graph->set_outputs(outputs);
  return out;
}

void check_case(const Case& c) {
  SCOPED_TRACE(c.name);
  const std::string text = "graph @f(" + c.inputs + ") -> (" + c.result + ") {\n  %0 = " + c.node + " : " + c.result +
                           "\n  return %0\n}\n";
  auto parsed = parse_graph(text);
  ASSERT_TRUE(parsed) << parsed.error().to_string() << "\n" << text;
  const Graph& fwd = **parsed;
  Vjp vjp = build_vjp(fwd);
  ASSERT_FALSE(::testing::Test::HasFailure());

  std::vector<Tensor> x;
  for (int i = 0; i < fwd.num_inputs(); ++i) {
    Gen gen = static_cast<size_t>(i) < c.gens.size() ? c.gens[static_cast<size_t>(i)] : Gen::Normal;
    x.push_back(draw(fwd.input(i)->type(), gen, 11 + 7 * static_cast<uint64_t>(i)));
  }
  const Tensor u = draw(fwd.outputs()[0]->type(), Gen::Normal, 5);
  std::vector<Tensor> vjp_inputs = x;
  vjp_inputs.push_back(u);
  auto grads = interpret(*vjp.graph, vjp_inputs);
  ASSERT_TRUE(grads) << grads.error().to_string();

  auto loss = [&](const std::vector<Tensor>& in) {
    auto y = interpret(fwd, in);
    EXPECT_TRUE(y) << y.error().to_string();
    return y ? dot((*y)[0], u) : 0.0;
  };
  const double h = 1e-6;
  for (uint64_t trial = 0; trial < 3; ++trial) {
    std::vector<Tensor> plus = x, minus = x;
    double predicted = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      if (!is_floating(x[i].dtype())) continue;
      Tensor e = Tensor::randn(x[i].sizes(), 100 + 10 * trial + i, DType::F64);
      plus[i] = axpy(x[i], h, e);
      minus[i] = axpy(x[i], -h, e);
      for (size_t k = 0; k < vjp.grad_of.size(); ++k)
        if (vjp.grad_of[k] == static_cast<int>(i)) predicted += dot((*grads)[k], e);
    }
    const double numeric = (loss(plus) - loss(minus)) / (2 * h);
    EXPECT_NEAR(predicted, numeric, 1e-6 * std::abs(numeric) + 1e-8) << "direction " << trial;
  }
}

std::string sig(const std::string& shape, int n = 1) {
  static const char* names[] = {"%x", "%y", "%z", "%w"};
  std::string s;
  for (int i = 0; i < n; ++i) s += std::string(i ? ", " : "") + names[i] + ": f64" + shape;
  return s;
}

Case unary(const std::string& op, Gen gen = Gen::Normal, const std::string& attrs = "") {
  return {op, sig("[3,4]"), op + "(%x)" + (attrs.empty() ? "" : " {" + attrs + "}"), "f64[3,4]", {gen}};
}

class DerivativeRuleFiniteDifference : public ::testing::TestWithParam<Case> {};

TEST_P(DerivativeRuleFiniteDifference, MatchesCentralDifference) { check_case(GetParam()); }

const Case kUnary[] = {
    unary("neg"), unary("abs", Gen::AwayZero), unary("exp"), unary("log", Gen::Positive),
    unary("log1p", Gen::Positive), unary("expm1"), unary("sqrt", Gen::Positive), unary("rsqrt", Gen::Positive),
    unary("reciprocal", Gen::AwayZero), unary("sin"), unary("cos"), unary("tan", Gen::Unit), unary("atan"),
    unary("tanh"), unary("sigmoid"), unary("relu", Gen::AwayZero), unary("gelu"),
    {"gelu_tanh", sig("[3,4]"), "gelu(%x) {approximate=\"tanh\"}", "f64[3,4]"}, unary("silu"), unary("erf"),
    unary("leaky_relu", Gen::AwayZero), {"leaky_relu_slope", sig("[3,4]"), "leaky_relu(%x) {negative_slope=0.2}", "f64[3,4]", {Gen::AwayZero}},
    unary("softplus"), {"softplus_beta", sig("[3,4]"), "softplus(%x) {beta=2.0, threshold=1.0}", "f64[3,4]", {Gen::AwayZero}},
    unary("elu", Gen::AwayZero), {"elu_scaled", sig("[3,4]"), "elu(%x) {alpha=0.7, input_scale=2.0, scale=1.5}", "f64[3,4]", {Gen::AwayZero}},
    {"hardtanh", sig("[3,4]"), "hardtanh(%x) {max_val=0.5, min_val=-0.5}", "f64[3,4]"}, unary("clone"), unary("contiguous"),
    {"to_copy_same", sig("[3,4]"), "_to_copy(%x)", "f64[3,4]"},
    {"exp_0d", sig("[]"), "exp(%x)", "f64[]"},
};
INSTANTIATE_TEST_SUITE_P(DerivativeRuleUnary, DerivativeRuleFiniteDifference, ::testing::ValuesIn(kUnary),
                         [](const auto& info) { return info.param.name; });

// Binary ops with the broadcasting pairs [3,4] x [4] and [3,1] x [1,4].
std::vector<Case> binary(const std::string& op, const std::string& attrs = "", Gen gx = Gen::Normal,
                         Gen gy = Gen::Normal, std::string name = "") {
  if (name.empty()) name = op;
  const std::string a = attrs.empty() ? "" : " {" + attrs + "}";
  return {
      {name + "_same", sig("[3,4]", 2), op + "(%x, %y)" + a, "f64[3,4]", {gx, gy}},
      {name + "_row", "%x: f64[3,4], %y: f64[4]", op + "(%x, %y)" + a, "f64[3,4]", {gx, gy}},
      {name + "_outer", "%x: f64[3,1], %y: f64[1,4]", op + "(%x, %y)" + a, "f64[3,4]", {gx, gy}},
  };
}

std::vector<Case> binary_cases() {
  std::vector<Case> all;
  auto add = [&](std::vector<Case> cs) { all.insert(all.end(), cs.begin(), cs.end()); };
  add(binary("add"));
  add(binary("add", "alpha=2.5", Gen::Normal, Gen::Normal, "add_alpha"));
  add(binary("sub", "alpha=-1.5"));
  add(binary("mul"));
  add(binary("div", "", Gen::Normal, Gen::AwayZero));
  add(binary("pow", "", Gen::Positive, Gen::Normal));
  add(binary("maximum"));
  add(binary("minimum"));
  add(binary("atan2", "", Gen::Normal, Gen::AwayZero));
  all.push_back({"add_scalar", sig("[3,4]"), "add(%x, 2.0)", "f64[3,4]"});
  all.push_back({"mul_scalar", sig("[3,4]"), "mul(%x, -3.0)", "f64[3,4]"});
  all.push_back({"div_scalar", sig("[3,4]"), "div(%x, 4.0)", "f64[3,4]"});
  all.push_back({"div_floor_none", sig("[3,4]", 2), "div(%x, %y) {rounding_mode=\"floor\"}", "f64[3,4]", {Gen::Normal, Gen::AwayZero}});
  all.push_back({"pow_scalar_exponent", sig("[3,4]"), "pow(%x, 2.5)", "f64[3,4]", {Gen::Positive}});
  all.push_back({"pow_int_exponent", sig("[3,4]"), "pow(%x, 3)", "f64[3,4]"});
  all.push_back({"pow_scalar_base", sig("[3,4]"), "pow(1.7, %x)", "f64[3,4]"});
  all.push_back({"pow_0d", sig("[]", 2), "pow(%x, %y)", "f64[]", {Gen::Positive}});
  all.push_back({"maximum_ties", "%x: f64[3,4]", "maximum(%x, %x)", "f64[3,4]"});
  all.push_back({"where", "%c: bool[3,4], %x: f64[3,4], %y: f64[4]", "where(%c, %x, %y)", "f64[3,4]", {Gen::Mask}});
  all.push_back({"where_scalar", "%c: bool[3,4], %x: f64[3,1]", "where(%c, %x, 0.0)", "f64[3,4]", {Gen::Mask}});
  all.push_back({"clamp", sig("[3,4]"), "clamp(%x) {max=0.5, min=-0.5}", "f64[3,4]"});
  all.push_back({"clamp_min", sig("[3,4]"), "clamp(%x) {min=0.1}", "f64[3,4]"});
  all.push_back({"lerp", "%x: f64[3,4], %y: f64[4], %z: f64[3,1]", "lerp(%x, %y, %z)", "f64[3,4]"});
  all.push_back({"lerp_scalar", sig("[3,4]", 2), "lerp(%x, %y, 0.3)", "f64[3,4]"});
  all.push_back({"addcmul", "%x: f64[4], %y: f64[3,4], %z: f64[3,1]", "addcmul(%x, %y, %z) {value=0.5}", "f64[3,4]"});
  all.push_back({"addcdiv", "%x: f64[3,1], %y: f64[4], %z: f64[3,4]", "addcdiv(%x, %y, %z) {value=-2.0}", "f64[3,4]",
                 {Gen::Normal, Gen::Normal, Gen::AwayZero}});
  return all;
}
INSTANTIATE_TEST_SUITE_P(DerivativeRuleBinary, DerivativeRuleFiniteDifference, ::testing::ValuesIn(binary_cases()),
                         [](const auto& info) { return info.param.name; });

std::vector<Case> reduction_cases() {
  std::vector<Case> all;
  for (std::string op : {"sum", "mean", "amax", "amin", "var", "std", "logsumexp"}) {
    const bool all_dims_ok = op != "logsumexp";
    all.push_back({op + "_dim1", "%x: f64[2,3,4]", op + "(%x) {dim=[1]}", "f64[2,4]"});
    all.push_back({op + "_dims_keepdim", "%x: f64[2,3,4]", op + "(%x) {dim=[0, 2], keepdim=true}", "f64[1,3,1]"});
    all.push_back({op + "_dims_neg", "%x: f64[2,3,4]", op + "(%x) {dim=[-1, 0]}", "f64[3]"});
    if (all_dims_ok) all.push_back({op + "_all", "%x: f64[2,3,4]", op + "(%x)", "f64[]"});
  }
  all.push_back({"var_correction0", "%x: f64[2,3,4]", "var(%x) {correction=0, dim=[1]}", "f64[2,4]"});
  all.push_back({"std_correction2_keepdim", "%x: f64[2,3,4]", "std(%x) {correction=2, dim=[2], keepdim=true}", "f64[2,3,1]"});
  all.push_back({"sum_0d", "%x: f64[]", "sum(%x)", "f64[]"});
  all.push_back({"prod_all", "%x: f64[2,3]", "prod(%x)", "f64[]", {Gen::AwayZero}});
  all.push_back({"prod_dim", "%x: f64[2,3,4]", "prod(%x) {dim=1}", "f64[2,4]", {Gen::AwayZero}});
  all.push_back({"prod_dim_keepdim", "%x: f64[2,3,4]", "prod(%x) {dim=-1, keepdim=true}", "f64[2,3,1]", {Gen::AwayZero}});
  all.push_back({"cumsum", "%x: f64[3,4]", "cumsum(%x) {dim=1}", "f64[3,4]"});
  all.push_back({"cumsum_neg", "%x: f64[3,4]", "cumsum(%x) {dim=-2}", "f64[3,4]"});
  return all;
}
INSTANTIATE_TEST_SUITE_P(DerivativeRuleReduce, DerivativeRuleFiniteDifference, ::testing::ValuesIn(reduction_cases()),
                         [](const auto& info) { return info.param.name; });

const Case kLinalgAndViews[] = {
    {"mm", "%x: f64[3,4], %y: f64[4,5]", "mm(%x, %y)", "f64[3,5]"},
    {"bmm", "%x: f64[2,3,4], %y: f64[2,4,5]", "bmm(%x, %y)", "f64[2,3,5]"},
    {"matmul_2d", "%x: f64[3,4], %y: f64[4,5]", "matmul(%x, %y)", "f64[3,5]"},
    {"matmul_dot", "%x: f64[4], %y: f64[4]", "matmul(%x, %y)", "f64[]"},
    {"matmul_vec_mat", "%x: f64[4], %y: f64[4,5]", "matmul(%x, %y)", "f64[5]"},
    {"matmul_mat_vec", "%x: f64[3,4], %y: f64[4]", "matmul(%x, %y)", "f64[3]"},
    {"matmul_vec_batch", "%x: f64[4], %y: f64[2,4,5]", "matmul(%x, %y)", "f64[2,5]"},
    {"matmul_batch_vec", "%x: f64[2,3,4], %y: f64[4]", "matmul(%x, %y)", "f64[2,3]"},
    {"matmul_batch_broadcast", "%x: f64[2,1,3,4], %y: f64[5,4,2]", "matmul(%x, %y)", "f64[2,5,3,2]"},
    {"matmul_batch_mat", "%x: f64[2,3,4], %y: f64[4,5]", "matmul(%x, %y)", "f64[2,3,5]"},
    {"addmm", "%x: f64[5], %y: f64[3,4], %z: f64[4,5]", "addmm(%x, %y, %z) {alpha=0.5, beta=2.0}", "f64[3,5]"},
    {"linear", "%x: f64[2,3,4], %y: f64[5,4], %z: f64[5]", "linear(%x, %y, %z)", "f64[2,3,5]"},
    {"linear_no_bias_1d", "%x: f64[4], %y: f64[5,4]", "linear(%x, %y, none)", "f64[5]"},
    {"reshape", "%x: f64[2,6]", "reshape(%x) {shape=[3, -1]}", "f64[3,4]"},
    {"view", "%x: f64[2,6]", "view(%x) {size=[12]}", "f64[12]"},
    {"permute", "%x: f64[2,3,4]", "permute(%x) {dims=[2, 0, 1]}", "f64[4,2,3]"},
    {"transpose", "%x: f64[2,3,4]", "transpose(%x) {dim0=0, dim1=-1}", "f64[4,3,2]"},
    {"t", "%x: f64[2,3]", "t(%x)", "f64[3,2]"},
    {"expand", "%x: f64[3,1]", "expand(%x) {size=[2, 3, 4]}", "f64[2,3,4]"},
    {"squeeze", "%x: f64[3,1,4]", "squeeze(%x) {dim=[1]}", "f64[3,4]"},
    {"unsqueeze", "%x: f64[3,4]", "unsqueeze(%x) {dim=-1}", "f64[3,4,1]"},
    {"flatten", "%x: f64[2,3,4]", "flatten(%x) {start_dim=1}", "f64[2,12]"},
    {"softmax", "%x: f64[3,4]", "softmax(%x) {dim=1}", "f64[3,4]"},
    {"softmax_dim0", "%x: f64[3,4]", "softmax(%x) {dim=0}", "f64[3,4]"},
    {"log_softmax", "%x: f64[3,4]", "log_softmax(%x) {dim=-1}", "f64[3,4]"},
};
INSTANTIATE_TEST_SUITE_P(DerivativeRuleLinalgView, DerivativeRuleFiniteDifference, ::testing::ValuesIn(kLinalgAndViews),
                         [](const auto& info) { return info.param.name; });

TEST(DerivativeRuleTable, PendingOpHasNoRule) {
  const DerivativeInfo& conv = derivative_info(OpKind::Conv2d);
  EXPECT_EQ(conv.kind, Differentiability::Pending);
  EXPECT_EQ(conv.rule, nullptr);
  EXPECT_EQ(derivative_info(OpKind::Eq).kind, Differentiability::NotDifferentiable);
  EXPECT_EQ(derivative_info(OpKind::Add).kind, Differentiability::Rule);
}

TEST(DerivativeRuleTable, GradientOfCastGoesBackToOperandDtype) {
  auto g = parse_graph("graph @f(%x: f32[3]) -> (f64[3]) {\n  %0 = _to_copy(%x) {dtype=f64} : f64[3]\n  return %0\n}\n");
  ASSERT_TRUE(g) << g.error().to_string();
  Vjp vjp = build_vjp(**g);
  ASSERT_EQ(vjp.graph->outputs().size(), 1u);
  EXPECT_EQ(vjp.graph->outputs()[0]->type().dtype, DType::F32);
}

TEST(DerivativeRuleTable, IntegerOperandGetsNoGradient) {
  auto g = parse_graph("graph @f(%x: f64[3], %i: i64[3]) -> (f64[3]) {\n  %0 = mul(%x, %i) : f64[3]\n  return %0\n}\n");
  ASSERT_TRUE(g) << g.error().to_string();
  Vjp vjp = build_vjp(**g);
  EXPECT_EQ(vjp.grad_of, std::vector<int>{0});
}

}  // namespace
}  // namespace kiln
