#include "fuzz/known_bugs.h"

namespace kiln::fuzz {
namespace {

bool body_draws_random(const Graph& g) {
  for (const Node* n : g.nodes()) {
    if (n->info().has(kRandom)) return true;
    for (int i = 0; i < n->num_subgraphs(); ++i)
      if (body_draws_random(*n->subgraph(i))) return true;
  }
  return false;
}

bool is_variance(OpKind op) { return op == OpKind::Var || op == OpKind::Std; }

// A mean and a var or std of one value: the CPU backend computes both in one Welford pass.
bool pairs_mean_and_variance(const Node& n) {
  if (n.op() != OpKind::Mean && !is_variance(n.op())) return false;
  for (const Node* m : n.graph()->nodes()) {
    if (m == &n || !m->num_operands() || m->operand(0).value != n.operand(0).value) continue;
    if (n.op() == OpKind::Mean ? is_variance(m->op()) : m->op() == OpKind::Mean) return true;
  }
  return false;
}

constexpr KnownBug kKnownBugs[] = {
    {"src/autograd/body_gradient.cc and rules_higher_order.cc (grad_rule_cond; map and scan alike)",
     "a body that draws random numbers (randn, dropout): the body's joint graph gets an rng_state input the "
     "backward cond is not given, and GraphBuilder aborts (\"true_fn takes (i64[2], f64[2,3]) but is given "
     "(f64[2,3], f64[4,1])\"; kiln grad --emit=joint aborts the same way; kiln fuzz-graphs --grad --seed 108)",
     [](const Node& n, const GeneratorOptions& o) {
       if (!o.differentiable || !n.info().has(kHigherOrder)) return false;
       for (int i = 0; i < n.num_subgraphs(); ++i)
         if (body_draws_random(*n.subgraph(i))) return true;
       return false;
     }},
    {"src/codegen/cpp (the Welford reduction, cpp_kernel.cc welford_reduction)",
     "a mean computed in one Welford pass with a var of the same values (lower_welford.cc pairs them) is NaN "
     "where the mean is inf ([inf, 6e4, 0.8]: the update x - mean is inf - inf); mean alone gives inf. A var's "
     "derivative adds that mean, so differentiable graphs avoid var and std (kiln fuzz-graphs --grad --seed 345)",
     [](const Node& n, const GeneratorOptions& o) {
       return (o.differentiable && is_variance(n.op())) || pairs_mean_and_variance(n);
     }},
};

}  // namespace

std::span<const KnownBug> known_bugs() { return kKnownBugs; }

const KnownBug* hits_known_bug(const Node& n, const GeneratorOptions& options) {
  for (const KnownBug& b : kKnownBugs)
    if (b.hits(n, options)) return &b;
  return nullptr;
}

}  // namespace kiln::fuzz
