#include "fuzz/gradient_check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "autograd/derivative.h"
#include "autograd/joint_graph.h"
#include "core/random.h"
#include "fuzz/fuzz_inputs.h"
#include "fuzz/tensor_values.h"
#include "interp/interpreter.h"

namespace kiln::fuzz {
namespace {

constexpr double kStep = 1e-6;      // h: truncation error h^2 f''' against rounding eps / h
constexpr int kDirections = 3;
constexpr double kRelative = 1e-5;  // agreement of the directional derivatives
constexpr double kAbsolute = 1e-7;

double dot(const Tensor& a, const Tensor& b) {
  const std::vector<double> x = element_values(a), y = element_values(b);
  double s = 0;
  for (size_t i = 0; i < x.size(); ++i) s += x[i] * y[i];
  return s;
}

// x + h * e (x floating).
Tensor step(const Tensor& x, double h, const Tensor& e) {
  std::vector<double> v = element_values(x);
  const std::vector<double> d = element_values(e);
  for (size_t i = 0; i < v.size(); ++i) v[i] += h * d[i];
  return Tensor::from_doubles(v, x.sizes(), x.dtype());
}

Tensor normal_like(const TensorType& t, uint64_t seed) { return Tensor::randn(t.shape.sizes(), seed, DType::F64).to(t.dtype); }

// The joint graph's inputs: the forward inputs, then a random tangent per tangent input.
std::vector<Tensor> joint_inputs(const JointGraph& joint, const std::vector<Tensor>& primals, uint64_t seed) {
  std::vector<Tensor> in = primals;
  for (int i = joint.num_primals; i < joint.graph->num_inputs(); ++i)
    in.push_back(normal_like(joint.graph->input(i)->type(), seed + 1000 + static_cast<uint64_t>(i)));
  return in;
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
  const std::vector<Tensor> in = joint_inputs(joint, x, seed);
  Expected<std::vector<Tensor>> out = interpret(*joint.graph, in);
  if (!out) return "the joint graph fails in the interpreter (" + out.error().message() + ")";
  // L(x) = sum over outputs with a tangent of <output, tangent>.
  auto loss = [&](const std::vector<Tensor>& primals) -> double {
    Expected<std::vector<Tensor>> y = interpret(g, primals);
    if (!y) return NAN;
    double l = 0;
    for (size_t k = 0; k < joint.tangent_input.size(); ++k)
      if (joint.tangent_input[k] >= 0) l += dot((*y)[k], in[static_cast<size_t>(joint.tangent_input[k])]);
    return l;
  };
  const double l0 = loss(x);
  for (int d = 0; d < kDirections; ++d) {
    std::vector<Tensor> plus = x, minus = x;
    double predicted = 0, scale = 0;
    for (size_t k = 0; k < joint.wrt_inputs.size(); ++k) {
      const size_t i = static_cast<size_t>(joint.wrt_inputs[k]);
      const Tensor e = normal_like(x[i].type(), seed * 31 + 7 * static_cast<uint64_t>(d) + i);
      plus[i] = step(x[i], kStep, e);
      minus[i] = step(x[i], -kStep, e);
      const Tensor& grad = (*out)[static_cast<size_t>(joint.num_forward_outputs) + k];
      predicted += dot(grad, e);
      for (size_t j = 0; j < static_cast<size_t>(e.numel()); ++j)
        scale += std::abs(grad.contiguous().item_double(static_cast<int64_t>(j)) * e.item_double(static_cast<int64_t>(j)));
    }
    const double lp = loss(plus), lm = loss(minus);
    if (!std::isfinite(lp) || !std::isfinite(lm) || !std::isfinite(l0) || !std::isfinite(predicted)) continue;
    const double right = (lp - l0) / kStep, left = (l0 - lm) / kStep, central = (lp - lm) / (2 * kStep);
    if (std::abs(right - left) > 1e-3 * (std::abs(right) + std::abs(left)) + 1e-6) continue;  // a kink within h
    if (std::abs(predicted - central) > kRelative * std::max(std::abs(central), scale) + kAbsolute) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "gradients disagree with finite differences along direction %d: %.9g, differences %.9g",
                    d, predicted, central);
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
