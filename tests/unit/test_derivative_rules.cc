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
  Class3,    // integer class index in [0, 3), e.g. a loss target
  Fixed,     // |randn| + 0.5, held constant by the finite difference (inputs a rule gives no
             // gradient by design: loss class weights, running statistics)
};

struct Case {
  std::string name;
  std::string inputs;                             // the graph's signature, e.g. "%x: f64[3,4], %y: f64[4]"
  std::string node;                               // the op application, e.g. "add(%x, %y) {alpha=2}"
  std::string result;                             // the result type
  std::vector<Gen> gens = {};                     // per input; Normal when missing
  std::map<int, std::vector<int64_t>> ints = {};  // fixed values of integer inputs, by input position
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.node; }

std::vector<double> values(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[static_cast<size_t>(i)] = t.item_double(i);
  return v;
}

Tensor draw(const TensorType& type, Gen gen, uint64_t seed) {
  const std::vector<int64_t> sizes = type.shape.sizes();
  if (gen == Gen::Class3) {
    std::vector<int64_t> ids;
    for (double x : values(Tensor::rand(sizes, seed, DType::F64))) ids.push_back(static_cast<int64_t>(x * 3) % 3);
    return Tensor::from_ints(ids, sizes, type.dtype);
  }
  if (gen == Gen::Mask) {
    std::vector<double> v = values(Tensor::randn(sizes, seed, DType::F64));
    std::vector<int64_t> bits;
    for (double x : v) bits.push_back(x > 0);
    return Tensor::from_ints(bits, sizes, DType::Bool);
  }
  std::vector<double> v = values(Tensor::randn(sizes, seed, DType::F64));
  for (double& x : v) {
    if (gen == Gen::Positive || gen == Gen::Fixed) x = std::abs(x) + 0.5;
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
  for (int i = 0; i < fwd.num_inputs(); ++i)
    map[fwd.input(i)] = out.graph->add_input(fwd.input(i)->name(), fwd.input(i)->type());
  std::vector<Value*> grads;
  for (int r = 0; r < node.num_results(); ++r) {
    const TensorType& t = node.result(r)->type();
    grads.push_back(is_floating(t.dtype) ? out.graph->add_input("u" + std::to_string(r), t) : nullptr);
  }
  GraphBuilder b(*out.graph);
  std::vector<Operand> operands;
  for (const Operand& o : node.operands())
    operands.push_back(o.is_value() ? Operand(map.at(o.value)) : Operand(o.literal));
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
  // c.result lists one type per result ("f64[2,4], f64[1,4]" for a two-result op).
  int depth = 0, num_results = 1;
  for (char ch : c.result) {
    depth += ch == '[' ? 1 : ch == ']' ? -1 : 0;
    num_results += ch == ',' && depth == 0;
  }
  std::string names;
  for (int r = 0; r < num_results; ++r) names += (r ? ", %" : "%") + std::to_string(r);
  const std::string type = num_results == 1 ? c.result : "(" + c.result + ")";
  const std::string text = "graph @f(" + c.inputs + ") -> (" + c.result + ") {\n  " + names + " = " + c.node + " : " +
                           type + "\n  return " + names + "\n}\n";
  auto parsed = parse_graph(text);
  ASSERT_TRUE(parsed) << parsed.error().to_string() << "\n" << text;
  const Graph& fwd = **parsed;
  Vjp vjp = build_vjp(fwd);
  ASSERT_FALSE(::testing::Test::HasFailure());

  std::vector<Tensor> x;
  for (int i = 0; i < fwd.num_inputs(); ++i) {
    Gen gen = static_cast<size_t>(i) < c.gens.size() ? c.gens[static_cast<size_t>(i)] : Gen::Normal;
    if (auto fixed = c.ints.find(i); fixed != c.ints.end())
      x.push_back(Tensor::from_ints(fixed->second, fwd.input(i)->type().shape.sizes(), fwd.input(i)->type().dtype));
    else
      x.push_back(draw(fwd.input(i)->type(), gen, 11 + 7 * static_cast<uint64_t>(i)));
  }
  std::vector<Tensor> u;
  for (size_t r = 0; r < fwd.outputs().size(); ++r) u.push_back(draw(fwd.outputs()[r]->type(), Gen::Normal, 5 + r));
  std::vector<Tensor> vjp_inputs = x;
  vjp_inputs.insert(vjp_inputs.end(), u.begin(), u.end());
  auto grads = interpret(*vjp.graph, vjp_inputs);
  ASSERT_TRUE(grads) << grads.error().to_string();

  auto loss = [&](const std::vector<Tensor>& in) {
    auto y = interpret(fwd, in);
    EXPECT_TRUE(y) << y.error().to_string();
    double l = 0;
    for (size_t r = 0; y && r < u.size(); ++r) l += dot((*y)[r], u[r]);
    return l;
  };
  const double h = 1e-6;
  for (uint64_t trial = 0; trial < 3; ++trial) {
    std::vector<Tensor> plus = x, minus = x;
    double predicted = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      if (!is_floating(x[i].dtype())) continue;
      if (i < c.gens.size() && c.gens[i] == Gen::Fixed) continue;
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
    unary("neg"),
    unary("abs", Gen::AwayZero),
    unary("exp"),
    unary("log", Gen::Positive),
    unary("log1p", Gen::Positive),
    unary("expm1"),
    unary("sqrt", Gen::Positive),
    unary("rsqrt", Gen::Positive),
    unary("reciprocal", Gen::AwayZero),
    unary("sin"),
    unary("cos"),
    unary("tan", Gen::Unit),
    unary("atan"),
    unary("tanh"),
    unary("sigmoid"),
    unary("relu", Gen::AwayZero),
    unary("gelu"),
    {"gelu_tanh", sig("[3,4]"), "gelu(%x) {approximate=\"tanh\"}", "f64[3,4]"},
    unary("silu"),
    unary("erf"),
    unary("leaky_relu", Gen::AwayZero),
    {"leaky_relu_slope", sig("[3,4]"), "leaky_relu(%x) {negative_slope=0.2}", "f64[3,4]", {Gen::AwayZero}},
    unary("softplus"),
    {"softplus_beta", sig("[3,4]"), "softplus(%x) {beta=2.0, threshold=1.0}", "f64[3,4]", {Gen::AwayZero}},
    unary("elu", Gen::AwayZero),
    {"elu_scaled", sig("[3,4]"), "elu(%x) {alpha=0.7, input_scale=2.0, scale=1.5}", "f64[3,4]", {Gen::AwayZero}},
    {"hardtanh", sig("[3,4]"), "hardtanh(%x) {max_val=0.5, min_val=-0.5}", "f64[3,4]"},
    unary("clone"),
    unary("contiguous"),
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
  all.push_back({"div_floor_none",
                 sig("[3,4]", 2),
                 "div(%x, %y) {rounding_mode=\"floor\"}",
                 "f64[3,4]",
                 {Gen::Normal, Gen::AwayZero}});
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
  all.push_back({"addcdiv",
                 "%x: f64[3,1], %y: f64[4], %z: f64[3,4]",
                 "addcdiv(%x, %y, %z) {value=-2.0}",
                 "f64[3,4]",
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
  all.push_back(
      {"std_correction2_keepdim", "%x: f64[2,3,4]", "std(%x) {correction=2, dim=[2], keepdim=true}", "f64[2,3,1]"});
  all.push_back({"sum_0d", "%x: f64[]", "sum(%x)", "f64[]"});
  all.push_back({"prod_all", "%x: f64[2,3]", "prod(%x)", "f64[]", {Gen::AwayZero}});
  all.push_back({"prod_dim", "%x: f64[2,3,4]", "prod(%x) {dim=1}", "f64[2,4]", {Gen::AwayZero}});
  all.push_back(
      {"prod_dim_keepdim", "%x: f64[2,3,4]", "prod(%x) {dim=-1, keepdim=true}", "f64[2,3,1]", {Gen::AwayZero}});
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
  const DerivativeInfo& inplace = derivative_info(OpKind::AddInplace);
  EXPECT_EQ(inplace.kind, Differentiability::Pending);
  EXPECT_EQ(inplace.rule, nullptr);
  EXPECT_EQ(derivative_info(OpKind::Eq).kind, Differentiability::NotDifferentiable);
  EXPECT_EQ(derivative_info(OpKind::Add).kind, Differentiability::Rule);
}

TEST(DerivativeRuleTable, UnsupportedOpSaysWhy) {
  const DerivativeInfo& loop = derivative_info(OpKind::WhileLoop);
  EXPECT_EQ(loop.kind, Differentiability::Unsupported);
  EXPECT_EQ(loop.rule, nullptr);
  ASSERT_NE(loop.why, nullptr);
  EXPECT_NE(std::string(loop.why).find("use scan"), std::string::npos);
}

TEST(DerivativeRuleTable, GradientOfCastGoesBackToOperandDtype) {
  auto g =
      parse_graph("graph @f(%x: f32[3]) -> (f64[3]) {\n  %0 = _to_copy(%x) {dtype=f64} : f64[3]\n  return %0\n}\n");
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

// ---- layout and indexing ops (rules_layout.cc, rules_index.cc) ----
namespace layout_index {

// Integer index inputs take fixed values (valid, with repeats where the op sums over them).
using Ints = std::map<int, std::vector<int64_t>>;

const Gen N = Gen::Normal, M = Gen::Mask;

std::vector<Case> layout_cases() {
  return {
      {"slice", "%x: f64[4,6]", "slice(%x) {dim=1, end=5, start=1}", "f64[4,4]"},
      {"slice_step_neg_dim", "%x: f64[4,6]", "slice(%x) {dim=-1, start=1, step=2}", "f64[4,3]"},
      {"slice_neg_bounds", "%x: f64[4,6]", "slice(%x) {end=-1, start=-3}", "f64[2,6]"},
      {"slice_step_clipped_end", "%x: f64[7,2]", "slice(%x) {end=100, step=3}", "f64[3,2]"},
      {"select", "%x: f64[3,4,5]", "select(%x) {dim=1, index=2}", "f64[3,5]"},
      {"select_neg", "%x: f64[3,4,5]", "select(%x) {dim=-1, index=-1}", "f64[3,4]"},
      {"narrow", "%x: f64[3,4,5]", "narrow(%x) {dim=-2, length=2, start=1}", "f64[3,2,5]"},
      {"narrow_neg_start", "%x: f64[3,4,5]", "narrow(%x) {dim=2, length=2, start=-3}", "f64[3,4,2]"},
      {"split", "%x: f64[5,4]", "split(%x) {split_size=2}", "f64[2,4], f64[2,4], f64[1,4]"},
      {"split_neg_dim", "%x: f64[5,4]", "split(%x) {dim=-1, split_size=3}", "f64[5,3], f64[5,1]"},
      {"chunk", "%x: f64[3,6]", "chunk(%x) {chunks=3, dim=1}", "f64[3,2], f64[3,2], f64[3,2]"},
      {"chunk_uneven_neg_dim", "%x: f64[5,2]", "chunk(%x) {chunks=2, dim=-2}", "f64[3,2], f64[2,2]"},
      {"cat", "%x: f64[2,3], %y: f64[4,3]", "cat(%x, %y)", "f64[6,3]"},
      {"cat_neg_dim", "%x: f64[2,3], %y: f64[2,1], %z: f64[2,2]", "cat(%x, %y, %z) {dim=-1}", "f64[2,6]"},
      {"stack", sig("[2,3]", 3), "stack(%x, %y, %z) {dim=1}", "f64[2,3,3]"},
      {"stack_neg_dim", sig("[2,3]", 2), "stack(%x, %y) {dim=-1}", "f64[2,3,2]"},
      {"constant_pad_nd", "%x: f64[3,4]", "constant_pad_nd(%x) {pad=[1, 2], value=0.5}", "f64[3,7]"},
      {"constant_pad_nd_2d", "%x: f64[3,4]", "constant_pad_nd(%x) {pad=[0, 1, 2, 1]}", "f64[6,5]"},
      {"constant_pad_nd_crop", "%x: f64[3,4]", "constant_pad_nd(%x) {pad=[-1, 2, 1, -2]}", "f64[2,5]"},
      {"flip", "%x: f64[3,4]", "flip(%x) {dims=[0, -1]}", "f64[3,4]"},
      {"roll", "%x: f64[3,4]", "roll(%x) {dims=[1], shifts=[1]}", "f64[3,4]"},
      {"roll_flat", "%x: f64[3,4]", "roll(%x) {shifts=[5]}", "f64[3,4]"},
      {"roll_two_dims", "%x: f64[3,4]", "roll(%x) {dims=[0, -1], shifts=[-1, 6]}", "f64[3,4]"},
      {"repeat", "%x: f64[2,3]", "repeat(%x) {repeats=[3, 2]}", "f64[6,6]"},
      {"repeat_lead", "%x: f64[2,3]", "repeat(%x) {repeats=[2, 1, 3]}", "f64[2,2,9]"},
      {"repeat_ones", "%x: f64[2,3]", "repeat(%x) {repeats=[1, 1]}", "f64[2,3]"},
      {"tril", "%x: f64[4,5]", "tril(%x)", "f64[4,5]"},
      {"tril_diag", "%x: f64[2,3,4]", "tril(%x) {diagonal=-1}", "f64[2,3,4]"},
      {"triu", "%x: f64[4,5]", "triu(%x) {diagonal=1}", "f64[4,5]"},
  };
}

std::vector<Case> index_cases() {
  return {
      {"index_select",
       "%x: f64[4,3], %i: i64[5]",
       "index_select(%x, %i) {dim=0}",
       "f64[5,3]",
       {},
       Ints{{1, {3, 0, 3, 1, 2}}}},
      {"index_select_neg_dim",
       "%x: f64[4,3], %i: i64[2]",
       "index_select(%x, %i) {dim=-1}",
       "f64[4,2]",
       {},
       Ints{{1, {2, 0}}}},
      {"gather", "%x: f64[3,4], %i: i64[3,2]", "gather(%x, %i) {dim=1}", "f64[3,2]", {}, Ints{{1, {0, 3, 1, 1, 2, 0}}}},
      {"gather_neg_dim",
       "%x: f64[3,4], %i: i64[2,4]",
       "gather(%x, %i) {dim=-2}",
       "f64[2,4]",
       {},
       Ints{{1, {0, 2, 2, 1, 0, 0, 1, 2}}}},
      {"scatter",
       "%x: f64[3,5], %i: i64[2,3], %y: f64[2,4]",
       "scatter(%x, %i, %y) {dim=1}",
       "f64[3,5]",
       {},
       Ints{{1, {0, 2, 4, 1, 3, 0}}}},
      {"scatter_scalar_neg_dim",
       "%x: f64[3,5], %i: i64[2,3]",
       "scatter(%x, %i, 1.5) {dim=-2}",
       "f64[3,5]",
       {},
       Ints{{1, {0, 2, 1, 1, 0, 2}}}},
      {"scatter_add",
       "%x: f64[3,5], %i: i64[2,3], %y: f64[2,3]",
       "scatter_add(%x, %i, %y) {dim=1}",
       "f64[3,5]",
       {},
       Ints{{1, {0, 0, 4, 1, 1, 1}}}},
      {"scatter_add_neg_dim",
       "%x: f64[3,5], %i: i64[2,5], %y: f64[3,5]",
       "scatter_add(%x, %i, %y) {dim=-2}",
       "f64[3,5]",
       {},
       Ints{{1, {0, 2, 2, 1, 0, 0, 0, 1, 2, 2}}}},
      {"index", "%x: f64[4,3], %i: i64[5]", "index(%x, %i)", "f64[5,3]", {}, Ints{{1, {3, 0, 3, 1, 2}}}},
      {"index_none_first",
       "%x: f64[2,4,3], %i: i64[2,2]",
       "index(%x, none, %i)",
       "f64[2,2,2,3]",
       {},
       Ints{{1, {0, 3, 3, 1}}}},
      {"index_two",
       "%x: f64[4,3], %i: i64[3], %j: i64[3]",
       "index(%x, %i, %j)",
       "f64[3]",
       {},
       Ints{{1, {1, 1, 3}}, {2, {2, 2, 0}}}},
      {"index_put",
       "%x: f64[4,3], %i: i64[2], %y: f64[2,3]",
       "index_put(%x, %i, %y)",
       "f64[4,3]",
       {},
       Ints{{1, {3, 1}}}},
      {"index_put_broadcast",
       "%x: f64[4,3], %i: i64[2], %y: f64[3]",
       "index_put(%x, %i, %y)",
       "f64[4,3]",
       {},
       Ints{{1, {0, 2}}}},
      {"index_put_accumulate",
       "%x: f64[4,3], %i: i64[3], %y: f64[3,3]",
       "index_put(%x, %i, %y) {accumulate=true}",
       "f64[4,3]",
       {},
       Ints{{1, {1, 1, 2}}}},
      {"index_add",
       "%x: f64[4,3], %i: i64[3], %y: f64[3,3]",
       "index_add(%x, %i, %y) {alpha=2.0, dim=0}",
       "f64[4,3]",
       {},
       Ints{{1, {2, 0, 2}}}},
      {"index_add_neg_dim",
       "%x: f64[4,3], %i: i64[2], %y: f64[4,2]",
       "index_add(%x, %i, %y) {dim=-1}",
       "f64[4,3]",
       {},
       Ints{{1, {0, 2}}}},
      {"masked_fill", "%x: f64[3,4], %m: bool[3,4]", "masked_fill(%x, %m, 0.5)", "f64[3,4]", {N, M}},
      {"masked_fill_tensor_value",
       "%x: f64[3,4], %m: bool[4], %v: f64[]",
       "masked_fill(%x, %m, %v)",
       "f64[3,4]",
       {N, M, N}},
      {"masked_fill_broadcast_self", "%x: f64[4], %m: bool[3,4]", "masked_fill(%x, %m, -1.0)", "f64[3,4]", {N, M}},
      {"embedding", "%w: f64[5,3], %i: i64[2,3]", "embedding(%w, %i)", "f64[2,3,3]", {}, Ints{{1, {1, 4, 1, 0, 0, 2}}}},
      {"embedding_padding_unused",
       "%w: f64[5,3], %i: i64[4]",
       "embedding(%w, %i) {padding_idx=3}",
       "f64[4,3]",
       {},
       Ints{{1, {1, 4, 1, 0}}}},
  };
}

std::vector<Case> all_cases() {
  std::vector<Case> all = layout_cases();
  for (Case& c : index_cases()) all.push_back(c);
  return all;
}

}  // namespace layout_index

INSTANTIATE_TEST_SUITE_P(DerivativeRuleLayoutIndex, DerivativeRuleFiniteDifference,
                         ::testing::ValuesIn(layout_index::all_cases()),
                         [](const auto& info) { return info.param.name; });

// The parsed one-op graph `text`, its VJP, and the VJP run on `inputs` (forward inputs, then
// one gradient per result).
std::vector<Tensor> run_vjp(const std::string& text, const std::vector<Tensor>& inputs) {
  auto g = parse_graph(text);
  EXPECT_TRUE(g) << g.error().to_string();
  if (!g) return {};
  Vjp vjp = build_vjp(**g);
  auto out = interpret(*vjp.graph, inputs);
  EXPECT_TRUE(out) << out.error().to_string();
  return out ? *out : std::vector<Tensor>{};
}

TEST(DerivativeRuleLayoutIndexTable, SplitResultWithoutGradientContributesZeros) {
  auto g = parse_graph(
      "graph @f(%x: f64[4,3]) -> (f64[2,3], f64[2,3]) {\n  %0, %1 = split(%x) {split_size=2} : (f64[2,3], f64[2,3])\n"
      "  return %0, %1\n}\n");
  ASSERT_TRUE(g) << g.error().to_string();
  Graph vjp("vjp");
  Value* x = vjp.add_input("x", (*g)->input(0)->type());
  Value* u = vjp.add_input("u0", (*g)->outputs()[0]->type());
  GraphBuilder b(vjp);
  Node* split = b.apply(OpKind::Split, {x}, {{"split_size", 2}})[0]->producer();
  const std::vector<Value*> grads = {u, nullptr};
  std::vector<Value*> out = derivative_info(OpKind::Split).rule(GradCall(*split, grads, b));
  ASSERT_EQ(out.size(), 1u);
  vjp.set_outputs({out[0]});
  const Tensor ux = Tensor::from_doubles({1, 2, 3, 4, 5, 6}, {2, 3}, DType::F64);
  const std::vector<Tensor> inputs = {Tensor::zeros({4, 3}, DType::F64), ux};
  auto r = interpret(vjp, inputs);
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(values((*r)[0]), (std::vector<double>{1, 2, 3, 4, 5, 6, 0, 0, 0, 0, 0, 0}));
}

TEST(DerivativeRuleLayoutIndexTable, EmbeddingPaddingRowGetsNoGradient) {
  const std::vector<Tensor> grads = run_vjp(
      "graph @f(%w: f64[3,2], %i: i64[4]) -> (f64[4,2]) {\n  %0 = embedding(%w, %i) {padding_idx=1} : f64[4,2]\n"
      "  return %0\n}\n",
      {Tensor::zeros({3, 2}, DType::F64), Tensor::from_ints({1, 0, 1, 0}, {4}, DType::I64),
       Tensor::from_doubles({1, 2, 3, 4, 5, 6, 7, 8}, {4, 2}, DType::F64)});
  ASSERT_EQ(grads.size(), 1u);
  EXPECT_EQ(values(grads[0]), (std::vector<double>{3 + 7, 4 + 8, 0, 0, 0, 0}));
}

}  // namespace
}  // namespace kiln

// ---- appended: DerivativeRuleNn (normalizations, losses, dropout, attention, remainder) ----
namespace kiln {
namespace {

const Gen kC = Gen::Class3;

const Case kNn[] = {
    {"layer_norm", "%x: f64[2,3,4], %w: f64[3,4], %b: f64[3,4]", "layer_norm(%x, %w, %b) {normalized_shape=[3, 4]}",
     "f64[2,3,4]"},
    {"layer_norm_plain", "%x: f64[3,4]", "layer_norm(%x, none, none) {eps=0.1, normalized_shape=[4]}", "f64[3,4]"},
    {"rms_norm", "%x: f64[3,4], %w: f64[4]", "rms_norm(%x, %w) {normalized_shape=[4]}", "f64[3,4]"},
    {"rms_norm_eps", "%x: f64[2,3,4]", "rms_norm(%x, none) {eps=0.5, normalized_shape=[3, 4]}", "f64[2,3,4]"},
    {"group_norm", "%x: f64[2,4,3], %w: f64[4], %b: f64[4]", "group_norm(%x, %w, %b) {num_groups=2}", "f64[2,4,3]"},
    {"group_norm_plain", "%x: f64[2,6,2,2]", "group_norm(%x, none, none) {num_groups=3}", "f64[2,6,2,2]"},
    {"batch_norm_train",
     "%x: f64[3,2,2,2], %w: f64[2], %b: f64[2], %m: f64[2], %v: f64[2]",
     "batch_norm(%x, %w, %b, %m, %v) {training=true}",
     "f64[3,2,2,2]",
     {Gen::Normal, Gen::Normal, Gen::Normal, Gen::Normal, Gen::Positive}},
    {"batch_norm_train_2d", "%x: f64[4,3]", "batch_norm(%x, none, none, none, none) {training=true}", "f64[4,3]"},
    {"batch_norm_eval",
     "%x: f64[3,2,2], %w: f64[2], %b: f64[2], %m: f64[2], %v: f64[2]",
     "batch_norm(%x, %w, %b, %m, %v)",
     "f64[3,2,2]",
     {Gen::Normal, Gen::Normal, Gen::Normal, Gen::Fixed, Gen::Fixed}},
    {"mse_loss_mean", "%x: f64[3,4], %y: f64[3,4]", "mse_loss(%x, %y)", "f64[]"},
    {"mse_loss_sum", "%x: f64[3,4], %y: f64[3,4]", "mse_loss(%x, %y) {reduction=\"sum\"}", "f64[]"},
    {"mse_loss_none", "%x: f64[3,4], %y: f64[3,4]", "mse_loss(%x, %y) {reduction=\"none\"}", "f64[3,4]"},
    {"nll_loss_mean", "%x: f64[5,3], %t: i64[5]", "nll_loss(%x, %t, none)", "f64[]", {Gen::Normal, kC}},
    {"nll_loss_weight_ignore",
     "%x: f64[5,3], %t: i64[5], %w: f64[3]",
     "nll_loss(%x, %t, %w) {ignore_index=1}",
     "f64[]",
     {Gen::Normal, kC, Gen::Fixed}},
    {"nll_loss_sum_spatial",
     "%x: f64[2,3,4], %t: i64[2,4]",
     "nll_loss(%x, %t, none) {reduction=\"sum\"}",
     "f64[]",
     {Gen::Normal, kC}},
    {"nll_loss_none",
     "%x: f64[5,3], %t: i64[5]",
     "nll_loss(%x, %t, none) {ignore_index=0, reduction=\"none\"}",
     "f64[5]",
     {Gen::Normal, kC}},
    {"nll_loss_1d", "%x: f64[3], %t: i64[]", "nll_loss(%x, %t, none)", "f64[]", {Gen::Normal, kC}},
    {"cross_entropy_mean", "%x: f64[5,3], %t: i64[5]", "cross_entropy(%x, %t, none)", "f64[]", {Gen::Normal, kC}},
    {"cross_entropy_weight_smooth",
     "%x: f64[5,3], %t: i64[5], %w: f64[3]",
     "cross_entropy(%x, %t, %w) {ignore_index=2, label_smoothing=0.2}",
     "f64[]",
     {Gen::Normal, kC, Gen::Fixed}},
    {"cross_entropy_smooth_ignore",
     "%x: f64[2,3,4], %t: i64[2,4]",
     "cross_entropy(%x, %t, none) {ignore_index=0, label_smoothing=0.3}",
     "f64[]",
     {Gen::Normal, kC}},
    {"cross_entropy_smooth_sum",
     "%x: f64[5,3], %t: i64[5], %w: f64[3]",
     "cross_entropy(%x, %t, %w) {label_smoothing=0.1, reduction=\"sum\"}",
     "f64[]",
     {Gen::Normal, kC, Gen::Fixed}},
    {"cross_entropy_none",
     "%x: f64[5,3], %t: i64[5]",
     "cross_entropy(%x, %t, none) {label_smoothing=0.1, reduction=\"none\"}",
     "f64[5]",
     {Gen::Normal, kC}},
    {"cross_entropy_probs",
     "%x: f64[4,3], %t: f64[4,3], %w: f64[3]",
     "cross_entropy(%x, %t, %w) {label_smoothing=0.2}",
     "f64[]",
     {Gen::Normal, Gen::Positive, Gen::Fixed}},
    {"dropout_train", "%x: f64[4,5]", "dropout(%x) {p=0.3, seed=7, train=true}", "f64[4,5]"},
    {"dropout_eval", "%x: f64[4,5]", "dropout(%x) {p=0.3, train=false}", "f64[4,5]"},
    {"sdpa", "%q: f64[2,3,4], %k: f64[2,5,4], %v: f64[2,5,2]", "scaled_dot_product_attention(%q, %k, %v, none)",
     "f64[2,3,2]"},
    {"sdpa_causal_scale", "%q: f64[2,4,3], %k: f64[2,4,3], %v: f64[2,4,3]",
     "scaled_dot_product_attention(%q, %k, %v, none) {is_causal=true, scale=0.7}", "f64[2,4,3]"},
    {"sdpa_float_mask", "%q: f64[2,3,4], %k: f64[2,5,4], %v: f64[2,5,2], %m: f64[3,5]",
     "scaled_dot_product_attention(%q, %k, %v, %m)", "f64[2,3,2]"},
    {"sdpa_bool_mask",
     "%m: bool[3,5], %q: f64[2,3,4], %k: f64[2,5,4], %v: f64[2,5,2]",
     "scaled_dot_product_attention(%q, %k, %v, %m)",
     "f64[2,3,2]",
     {Gen::Mask}},
    {"sdpa_dropout", "%q: f64[2,3,4], %k: f64[2,5,4], %v: f64[2,5,2]",
     "scaled_dot_product_attention(%q, %k, %v, none) {dropout_p=0.4, seed=3}", "f64[2,3,2]"},
    {"remainder", "%x: f64[3,4], %y: f64[4]", "remainder(%x, %y)", "f64[3,4]", {Gen::Normal, Gen::Positive}},
    {"remainder_scalar", "%x: f64[3,4]", "remainder(%x, 0.7)", "f64[3,4]"},
    {"fmod", "%x: f64[3,4], %y: f64[3,4]", "fmod(%x, %y)", "f64[3,4]", {Gen::Normal, Gen::AwayZero}},
    {"baddbmm", "%x: f64[3,5], %y: f64[2,3,4], %z: f64[2,4,5]", "baddbmm(%x, %y, %z) {alpha=0.5, beta=2.0}",
     "f64[2,3,5]"},
    {"avg_pool2d", "%x: f64[2,2,5,6]", "avg_pool2d(%x) {kernel_size=[2, 3]}", "f64[2,2,2,2]"},
    {"avg_pool2d_pad_stride", "%x: f64[1,2,5,6]", "avg_pool2d(%x) {kernel_size=[3, 3], padding=[1, 1], stride=[2, 1]}",
     "f64[1,2,3,6]"},
    {"avg_pool2d_no_count_pad_ceil", "%x: f64[2,5,6]",
     "avg_pool2d(%x) {ceil_mode=true, count_include_pad=false, kernel_size=[2, 2], padding=[0, 1], stride=[2, 2]}",
     "f64[2,3,4]"},
    {"avg_pool2d_divisor", "%x: f64[1,1,4,4]", "avg_pool2d(%x) {divisor_override=3, kernel_size=[2]}", "f64[1,1,2,2]"},
    {"max_pool2d", "%x: f64[2,2,6,6]", "max_pool2d(%x) {kernel_size=[2]}", "f64[2,2,3,3]"},
    {"max_pool2d_overlap_pad", "%x: f64[1,2,5,6]", "max_pool2d(%x) {kernel_size=[3, 2], padding=[1, 1], stride=[1, 2]}",
     "f64[1,2,5,4]"},
    {"max_pool2d_ceil_dilation_unbatched", "%x: f64[2,9,8]",
     "max_pool2d(%x) {ceil_mode=true, dilation=[2], kernel_size=[3], padding=[1], stride=[2]}", "f64[2,4,4]"},
    {"adaptive_avg_pool2d", "%x: f64[2,2,5,7]", "adaptive_avg_pool2d(%x) {output_size=[3, 4]}", "f64[2,2,3,4]"},
    {"adaptive_avg_pool2d_up", "%x: f64[1,3,2]", "adaptive_avg_pool2d(%x) {output_size=[3, 5]}", "f64[1,3,5]"},
    {"upsample_bilinear2d", "%x: f64[2,2,3,4]", "upsample_bilinear2d(%x) {align_corners=false, output_size=[5, 3]}",
     "f64[2,2,5,3]"},
    {"upsample_bilinear2d_corners_scales", "%x: f64[1,2,4,3]",
     "upsample_bilinear2d(%x) {align_corners=true, output_size=none, scales_h=0.5, scales_w=2.5}", "f64[1,2,2,7]"},
    {"conv2d", "%x: f64[2,3,5,6], %w: f64[4,3,3,2], %b: f64[4]", "conv2d(%x, %w, %b)", "f64[2,4,3,5]"},
    {"conv2d_stride_pad_dilation", "%x: f64[2,2,7,6], %w: f64[3,2,3,2]",
     "conv2d(%x, %w, none) {dilation=[2, 1], padding=[1, 2], stride=[2, 3]}", "f64[2,3,3,3]"},
    {"conv2d_groups", "%x: f64[1,4,5,5], %w: f64[6,2,2,3], %b: f64[6]",
     "conv2d(%x, %w, %b) {groups=2, padding=[1], stride=[2]}", "f64[1,6,3,3]"},
    {"conv2d_unbatched_depthwise", "%x: f64[3,4,4], %w: f64[3,1,3,3]",
     "conv2d(%x, %w, none) {groups=3, padding=[1, 1]}", "f64[3,4,4]"},
};
INSTANTIATE_TEST_SUITE_P(DerivativeRuleNn, DerivativeRuleFiniteDifference, ::testing::ValuesIn(kNn),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace kiln

// ---- appended: edge points where a formula meets 0/0 or inf * 0 and PyTorch's rule gives a
// number (tests/oracle/cases_grad_edges.py tries every op at its edge points against torch) ----
namespace kiln {
namespace {

Tensor f64s(std::vector<double> v, std::vector<int64_t> sizes) { return Tensor::from_doubles(v, sizes, DType::F64); }

TEST(DerivativeRuleEdges, StdOfConstantRowHasZeroGradient) {
  const std::vector<Tensor> g =
      run_vjp("graph @f(%x: f64[2,3]) -> (f64[2]) {\n  %0 = std(%x) {dim=[1]} : f64[2]\n  return %0\n}\n",
              {f64s({2, 2, 2, 1, 2, 3}, {2, 3}), f64s({1, 1}, {2})});
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(values(g[0]), (std::vector<double>{0, 0, 0, -0.5, 0, 0.5}));
}

TEST(DerivativeRuleEdges, ProdGradientIsTheProductOfTheOthersAtZeros) {
  const std::vector<Tensor> g =
      run_vjp("graph @f(%x: f64[3,3]) -> (f64[3]) {\n  %0 = prod(%x) {dim=1} : f64[3]\n  return %0\n}\n",
              {f64s({0, 2, 3, 0, 0, 3, 1, 2, 4}, {3, 3}), f64s({1, 1, 1}, {3})});
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(values(g[0]), (std::vector<double>{6, 0, 0, 0, 0, 0, 8, 4, 2}));
}

TEST(DerivativeRuleEdges, PowHasNoGradientAtZeroExponentOrZeroBase) {
  const std::vector<Tensor> g =
      run_vjp("graph @f(%x: f64[2], %y: f64[2]) -> (f64[2]) {\n  %0 = pow(%x, %y) : f64[2]\n  return %0\n}\n",
              {f64s({0, 2}, {2}), f64s({0, 3}, {2}), f64s({1, 1}, {2})});
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(values(g[0]), (std::vector<double>{0, 12}));
  EXPECT_EQ(values(g[1]), (std::vector<double>{0, 8 * std::log(2.0)}));
  const std::vector<Tensor> literal_base =
      run_vjp("graph @f(%y: f64[3]) -> (f64[3]) {\n  %0 = pow(0.0, %y) : f64[3]\n  return %0\n}\n",
              {f64s({0, 1.5, -1}, {3}), f64s({1, 1, 1}, {3})});
  ASSERT_EQ(literal_base.size(), 1u);
  EXPECT_EQ(values(literal_base[0]), (std::vector<double>{0, 0, -INFINITY}));
}

TEST(DerivativeRuleEdges, Atan2HasNoGradientAtTheOrigin) {
  const std::vector<Tensor> g =
      run_vjp("graph @f(%y: f64[2], %x: f64[2]) -> (f64[2]) {\n  %0 = atan2(%y, %x) : f64[2]\n  return %0\n}\n",
              {f64s({0, 1}, {2}), f64s({0, 1}, {2}), f64s({1, 1}, {2})});
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(values(g[0]), (std::vector<double>{0, 0.5}));
  EXPECT_EQ(values(g[1]), (std::vector<double>{0, -0.5}));
}

TEST(DerivativeRuleEdges, CrossEntropyWithEveryTargetIgnoredHasZeroGradient) {
  for (const char* attrs : {"", " {label_smoothing=0.2}"}) {
    const std::vector<Tensor> g =
        run_vjp(std::string("graph @f(%x: f64[2,3], %t: i64[2]) -> (f64[]) {\n  %0 = cross_entropy(%x, %t)") + attrs +
                    " : f64[]\n  return %0\n}\n",
                {f64s({1, 2, 3, 4, 5, 6}, {2, 3}), Tensor::from_ints({-100, -100}, {2}, DType::I64), f64s({1}, {})});
    ASSERT_EQ(g.size(), 1u) << attrs;
    EXPECT_EQ(values(g[0]), std::vector<double>(6, 0.0)) << attrs;
  }
}

TEST(DerivativeRuleEdges, AttentionRowMaskedOutByFloatMaskHasZeroGradient) {
  const double inf = INFINITY;
  const std::vector<Tensor> g = run_vjp(
      "graph @f(%q: f64[2,2], %k: f64[2,2], %v: f64[2,2], %m: f64[2,2]) -> (f64[2,2]) {\n"
      "  %0 = scaled_dot_product_attention(%q, %k, %v, %m) : f64[2,2]\n  return %0\n}\n",
      {f64s({1, 2, 3, 4}, {2, 2}), f64s({0.5, -1, 2, 0}, {2, 2}), f64s({1, -2, 0.5, 3}, {2, 2}),
       f64s({0, -inf, -inf, -inf}, {2, 2}), f64s({1, 1, 1, 1}, {2, 2})});
  ASSERT_EQ(g.size(), 4u);
  EXPECT_EQ(values(g[0])[2], 0.0);  // q's masked-out row
  EXPECT_EQ(values(g[0])[3], 0.0);
  for (const Tensor& t : g)
    for (double x : values(t)) EXPECT_TRUE(std::isfinite(x));
}

// scatter reads a 0-d src or index as one element (PyTorch's ensure_nonempty_dim): a 0-d src
// goes to the one index, a 0-d index sends src[0] only.
TEST(DerivativeRuleEdges, ScatterReadsZeroDimSrcAndIndexAsOneElement) {
  const std::vector<Tensor> src_0d = run_vjp(
      "graph @f(%a: f64[3], %i: i64[1], %s: f64[]) -> (f64[3]) {\n  %0 = scatter(%a, %i, %s) {dim=0} : f64[3]\n"
      "  return %0\n}\n",
      {f64s({0, 0, 0}, {3}), Tensor::from_ints({2}, {1}, DType::I64), f64s({5}, {}), f64s({1, 2, 4}, {3})});
  ASSERT_EQ(src_0d.size(), 2u);
  EXPECT_EQ(values(src_0d[0]), (std::vector<double>{1, 2, 0}));
  EXPECT_EQ(values(src_0d[1]), (std::vector<double>{4}));
  const std::vector<Tensor> index_0d = run_vjp(
      "graph @f(%a: f64[3], %i: i64[], %s: f64[2]) -> (f64[3]) {\n  %0 = scatter_add(%a, %i, %s) {dim=0} : f64[3]\n"
      "  return %0\n}\n",
      {f64s({0, 0, 0}, {3}), Tensor::from_ints({1}, {}, DType::I64), f64s({5, 6}, {2}), f64s({1, 2, 4}, {3})});
  ASSERT_EQ(index_0d.size(), 2u);
  EXPECT_EQ(values(index_0d[1]), (std::vector<double>{2, 0}));
}

}  // namespace
}  // namespace kiln
