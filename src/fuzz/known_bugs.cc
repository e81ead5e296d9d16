#include "fuzz/known_bugs.h"

namespace kiln::fuzz {
namespace {

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
