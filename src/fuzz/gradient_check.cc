#include "fuzz/gradient_check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <span>
#include <unordered_map>

#include "autograd/derivative.h"
#include "autograd/joint_graph.h"
#include "core/random.h"
#include "fuzz/fuzz_inputs.h"
#include "fuzz/tensor_values.h"
#include "interp/interpreter.h"
#include "support/check.h"

namespace kiln::fuzz {
namespace {

constexpr double kStep = 1e-6;  // h: truncation error h^2 f''' against rounding eps / h
constexpr int kDirections = 3;
constexpr double kRelative = 1e-5;  // agreement of the directional derivatives
constexpr double kAbsolute = 1e-7;
constexpr double kRoundings = 16;  // L's rounding, in eps of sum |output * tangent|
constexpr double kRowNoise = 64;   // a std this many eps of its operand's largest value is noise

// x + h * e (x floating).
Tensor step(const Tensor& x, double h, const Tensor& e) {
  std::vector<double> v = element_values(x);
  const std::vector<double> d = element_values(e);
  for (size_t i = 0; i < v.size(); ++i) v[i] += h * d[i];
  return Tensor::from_doubles(v, x.sizes(), x.dtype());
}

Tensor normal_like(const TensorType& t, uint64_t seed) {
  return Tensor::randn(t.shape.sizes(), seed, DType::F64).to(t.dtype);
}

// The joint graph's inputs: the forward inputs, then a random tangent per tangent input.
std::vector<Tensor> joint_inputs(const JointGraph& joint, const std::vector<Tensor>& primals, uint64_t seed) {
  std::vector<Tensor> in = primals;
  for (int i = joint.num_primals; i < joint.graph->num_inputs(); ++i)
    in.push_back(normal_like(joint.graph->input(i)->type(), seed + 1000 + static_cast<uint64_t>(i)));
  return in;
}

// A directional derivative sum_i <grad_i, e_i> and sum_i |grad_i e_i|, the size its own
// rounding and the check's relative tolerance are measured against.
struct Directional {
  double value = 0, scale = 0;
};

Directional directional(std::span<const Tensor> grads, std::span<const Tensor> directions) {
  Directional d;
  for (size_t k = 0; k < grads.size(); ++k) {
    const std::vector<double> g = element_values(grads[k]), e = element_values(directions[k]);
    for (size_t j = 0; j < g.size(); ++j) {
      d.value += g[j] * e[j];
      d.scale += std::abs(g[j] * e[j]);
    }
  }
  return d;
}

// The operands of g's std, var, fmod and remainder nodes (in the order they run) and their
// results, on x: the intermediates at which differences cannot check a gradient.
struct Intermediates {
  struct Call {
    OpKind op;
    std::vector<std::vector<double>> operands;  // a literal operand as its one value
    std::vector<double> result;
  };
  std::vector<Call> calls;

  bool periodic() const {
    return std::any_of(calls.begin(), calls.end(),
                       [](const Call& c) { return c.op == OpKind::Fmod || c.op == OpKind::Remainder; });
  }
};

Intermediates intermediates(const Graph& g, const std::vector<Tensor>& x) {
  std::unordered_map<const Value*, Tensor> values;
  for (int i = 0; i < g.num_inputs(); ++i) values.emplace(g.input(i), x[static_cast<size_t>(i)]);
  Intermediates out;
  InterpreterOptions options;
  options.on_node = [&](const Node& n, std::span<const Tensor> results) {
    if (n.op() == OpKind::Std || n.op() == OpKind::Var || n.op() == OpKind::Fmod || n.op() == OpKind::Remainder) {
      Intermediates::Call call{n.op(), {}, element_values(results[0])};
      for (const Operand& o : n.operands())
        call.operands.push_back(!o.is_value()              ? std::vector<double>{o.literal.to_double()}
                                : values.contains(o.value) ? element_values(values.at(o.value))
                                                           : std::vector<double>{});
      out.calls.push_back(std::move(call));
    }
    for (int i = 0; i < n.num_results(); ++i) values.emplace(n.result(i), results[static_cast<size_t>(i)]);
  };
  (void)interpret(g, x, options);
  return out;
}

double largest_magnitude(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

// Whether g takes std or var of a row constant up to rounding (one value expanded to a row,
// seed 4439). std is rounding noise there and its derivative, (x - mean) / (std (n - 1)), noise
// over noise (in torch too): a point with no derivative, which differences along directions
// that keep the row constant cannot show. A std within kRowNoise eps of the largest value in
// its operand counts as noise.
bool takes_std_of_a_constant_row(const Intermediates& at_x) {
  for (const Intermediates::Call& c : at_x.calls) {
    if (c.op != OpKind::Std && c.op != OpKind::Var) continue;
    const double noise = kRowNoise * std::numeric_limits<double>::epsilon() * largest_magnitude(c.operands[0]);
    for (double r : c.result)
      if (r <= (c.op == OpKind::Std ? noise : noise * noise)) return true;
  }
  return false;
}

// The quotients a / b of a fmod or remainder call, element by element where its operands pair
// up (the same size, or either of one element); empty where either is empty or they broadcast
// otherwise.
std::vector<double> quotients(const Intermediates::Call& c) {
  const std::vector<double>&a = c.operands[0], &b = c.operands[1];
  if (a.empty() || b.empty() || (a.size() != b.size() && a.size() != 1 && b.size() != 1)) return {};
  std::vector<double> q(std::max(a.size(), b.size()));
  for (size_t k = 0; k < q.size(); ++k) q[k] = a[a.size() == 1 ? 0 : k] / b[b.size() == 1 ? 0 : k];
  return q;
}

// Whether fmod or remainder crosses a tooth of its sawtooth between two points: the floor of a
// quotient a / b changes, so the result jumps by b. Many such jumps within h leave a mean slope
// the differences measure where the derivative is the slope of one tooth, and the one-sided test
// cannot tell: fmod(tan(x), 0.001) where tan' is 2e5 (seed 4002587), remainder(a, b) of a small
// b, whose quotient moves by a / b^2 per unit of b (seed 4305222). Where the operands broadcast
// otherwise, a dividend moving by half the smallest divisor counts as crossing.
bool steps_over_a_period(const Intermediates& a, const Intermediates& b) {
  if (a.calls.size() != b.calls.size()) return true;
  for (size_t j = 0; j < a.calls.size(); ++j) {
    const Intermediates::Call &p = a.calls[j], &q = b.calls[j];
    if (p.op != OpKind::Fmod && p.op != OpKind::Remainder) continue;
    if (p.operands[0].size() != q.operands[0].size() || p.operands[1].size() != q.operands[1].size()) return true;
    const std::vector<double> qp = quotients(p), qq = quotients(q);
    if (!qp.empty()) {
      for (size_t k = 0; k < qp.size(); ++k)
        if (!(std::floor(qp[k]) == std::floor(qq[k]))) return true;
      continue;
    }
    double period = std::numeric_limits<double>::infinity();
    for (double d : p.operands[1]) period = std::min(period, std::abs(d));
    for (size_t k = 0; k < p.operands[0].size(); ++k)
      if (!(std::abs(q.operands[0][k] - p.operands[0][k]) < period / 2)) return true;
  }
  return false;
}

// Why the interpreter's gradients of g disagree with finite differences, or "".
std::string check_against_differences(const Graph& g, const JointGraph& joint, uint64_t seed) {
  // The differences are taken in f64: an input or output of a narrower dtype (f32 from sin of
  // a bool input) rounds L to 1e-7 of its size, which h turns into a 10% error (seed 2002543).
  for (int i : joint.wrt_inputs)
    if (g.input(i)->type().dtype != DType::F64) return "";
  for (size_t k = 0; k < joint.tangent_input.size(); ++k)
    if (joint.tangent_input[k] >= 0 && g.outputs()[k]->type().dtype != DType::F64) return "";
  const std::vector<Tensor> x = fuzz_inputs(g, seed, {.special_values = false});
  const Intermediates at_x = intermediates(g, x);
  if (takes_std_of_a_constant_row(at_x)) return "";
  const std::vector<Tensor> in = joint_inputs(joint, x, seed);
  Expected<std::vector<Tensor>> out = interpret(*joint.graph, in);
  if (!out) return "the joint graph fails in the interpreter (" + out.error().message() + ")";
  const std::span<const Tensor> grads =
      std::span<const Tensor>(*out).subspan(static_cast<size_t>(joint.num_forward_outputs));
  // L(x) = sum over outputs with a tangent of <output, tangent>, and sum |output * tangent|:
  // L's rounding is a few eps of that, which a difference divides by h (an output near 1e301
  // beside the ones x moves leaves L(x + h e) - L(x - h e) at 0, seed 1615; outputs scaled by
  // alpha=100 made it 3e-5 of the derivative, seed 3569).
  struct Loss {
    double value = NAN, magnitude = 0;
  };
  auto loss = [&](const std::vector<Tensor>& primals) -> Loss {
    Expected<std::vector<Tensor>> y = interpret(g, primals);
    if (!y) return {};
    Loss l{0, 0};
    for (size_t k = 0; k < joint.tangent_input.size(); ++k) {
      if (joint.tangent_input[k] < 0) continue;
      const std::vector<double> a = element_values((*y)[k]);
      const std::vector<double> u = element_values(in[static_cast<size_t>(joint.tangent_input[k])]);
      for (size_t j = 0; j < a.size(); ++j) {
        l.value += a[j] * u[j];
        l.magnitude += std::abs(a[j] * u[j]);
      }
    }
    return l;
  };
  const Loss l0 = loss(x);
  for (int d = 0; d < kDirections; ++d) {
    std::vector<Tensor> plus = x, minus = x, plus2 = x, minus2 = x, directions;
    for (size_t k = 0; k < joint.wrt_inputs.size(); ++k) {
      const size_t i = static_cast<size_t>(joint.wrt_inputs[k]);
      directions.push_back(normal_like(x[i].type(), seed * 31 + 7 * static_cast<uint64_t>(d) + i));
      plus[i] = step(x[i], kStep, directions.back());
      minus[i] = step(x[i], -kStep, directions.back());
      plus2[i] = step(x[i], 2 * kStep, directions.back());
      minus2[i] = step(x[i], -2 * kStep, directions.back());
    }
    if (at_x.periodic() &&
        (steps_over_a_period(at_x, intermediates(g, plus)) || steps_over_a_period(at_x, intermediates(g, minus))))
      continue;
    const Directional predicted = directional(grads, directions);
    const Loss lp = loss(plus), lm = loss(minus);
    if (!std::isfinite(lp.value) || !std::isfinite(lm.value) || !std::isfinite(l0.value) ||
        !std::isfinite(predicted.value))
      continue;
    const double right = (lp.value - l0.value) / kStep, left = (l0.value - lm.value) / kStep,
                 central = (lp.value - lm.value) / (2 * kStep);
    if (std::abs(right - left) > 1e-3 * (std::abs(right) + std::abs(left)) + 1e-6) continue;  // a kink within h
    const double rounding = kRoundings * std::numeric_limits<double>::epsilon() *
                            std::max({l0.magnitude, lp.magnitude, lm.magnitude}) / kStep;
    const double tolerance = kRelative * std::max(std::abs(central), predicted.scale) + kAbsolute + rounding;
    // The differences must have converged: over 2h they agree with those over h where L is
    // smooth at that scale and its rounding small beside the step, and not where rounding noise
    // that the intermediates amplify dominates them (group_norm of a group constant up to
    // rounding is noise times rsqrt(eps), which atan2 of a small value turns into 5e-7 of noise
    // in the differences against a gradient of 6e-14: --grad long run, seed 4102474).
    const Loss lp2 = loss(plus2), lm2 = loss(minus2);
    if (!std::isfinite(lp2.value) || !std::isfinite(lm2.value) ||
        std::abs((lp2.value - lm2.value) / (4 * kStep) - central) > tolerance)
      continue;
    if (std::abs(predicted.value - central) > tolerance) {
      char buf[160];
      std::snprintf(buf, sizeof buf,
                    "gradients disagree with finite differences along direction %d: %.9g, differences %.9g", d,
                    predicted.value, central);
      return buf;
    }
  }
  return "";
}

// Whether g holds a map or scan (at any depth). The CPU backend lowers those only with pointwise
// bodies of one output shape (docs/LOWERING.md), and the backward of a body seldom is one (it
// sums broadcast gradients, its outputs take the operands' shapes): such joint graphs are
// checked against finite differences only.
bool has_map_or_scan(const Graph& g) {
  for (const Node* n : g.nodes()) {
    if (n->op() == OpKind::Map || n->op() == OpKind::Scan) return true;
    for (int i = 0; i < n->num_subgraphs(); ++i)
      if (has_map_or_scan(*n->subgraph(i))) return true;
  }
  return false;
}

}  // namespace

GeneratorOptions differentiable_options(GeneratorOptions options) {
  options.differentiable = true;
  options.draws = [](OpKind op) { return derivative_info(op).kind == Differentiability::Rule; };
  return options;
}

std::vector<Finding> check_gradient_cases(std::span<const FuzzCase> cases, const DifferentialOptions& options) {
  std::vector<Finding> findings;
  std::vector<FuzzCase> joints;
  JointOptions jo;
  jo.lift_rng_state = false;  // the forward graph draws at its static seeds too
  for (const FuzzCase& c : cases) {
    const CheckContext context("differentiating fuzz seed " + std::to_string(c.seed));
    // A graph that fails forward (an integer power below 0) has no gradient to check.
    if (!interpret(*c.graph, fuzz_inputs(*c.graph, c.seed, {.special_values = false}))) continue;
    Expected<JointGraph> joint = joint_graph(*c.graph, jo);
    if (!joint) {
      findings.push_back({c.seed, "joint_graph fails: " + joint.error().message()});
      continue;
    }
    if (std::string why = check_against_differences(*c.graph, *joint, c.seed); !why.empty())
      findings.push_back({c.seed, why});
    if (!has_map_or_scan(*joint->graph)) joints.push_back({c.seed, std::move(joint->graph)});
  }
  for (Finding& f : check_cases(joints, options)) {
    f.what = "joint graph: " + f.what;
    for (const FuzzCase& j : joints)
      if (j.seed == f.seed) f.graph = j.graph->clone();
    findings.push_back(std::move(f));
  }
  std::sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) { return a.seed < b.seed; });
  return findings;
}

}  // namespace kiln::fuzz
