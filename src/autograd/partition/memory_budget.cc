#include "autograd/partition/memory_budget.h"

#include <algorithm>
#include <map>
#include <optional>

#include "autograd/partition/extract.h"
#include "autograd/partition/knapsack.h"
#include "autograd/partition/min_cut.h"
#include "autograd/partition/op_categories.h"
#include "autograd/partition/runtime_estimate.h"

namespace kiln::partitioning {

namespace {

inline constexpr int kBudgetSteps = 100;

struct Candidate {
  std::vector<const Value*> saved;
  double bytes = 0;
  double recompute_cost = 0;
};

Candidate evaluate(const JointView& view, std::vector<const Value*> saved) {
  Candidate c;
  c.saved = std::move(saved);
  for (const Value* v : used_saved_values(view, c.saved)) c.bytes += JointView::bytes(v);
  for (int i : backward_items(view, c.saved))
    if (!view.item(i).in_tangent_closure) c.recompute_cost += estimate_runtime(*view.item(i).node);
  return c;
}

std::vector<const Value*> primal_values(const JointView& view) {
  std::vector<const Value*> values;
  for (int i : view.primals()) values.push_back(view.item(i).input);
  return values;
}

// The knapsack's items: banned values of the aggressive cut that the backward needs and that
// do not share storage with an input, largest first.
std::vector<int> knapsack_items(const JointView& view, const std::set<int>& banned) {
  std::vector<int> items;
  for (int i : banned) {
    const Item& it = view.item(i);
    if (it.node == nullptr || must_stay_in_place(*it.node) || it.dist_from_bw >= kFarFromBackward) continue;
    items.push_back(i);
  }
  std::ranges::stable_sort(items, [&](int a, int b) { return view.bytes(a) > view.bytes(b); });
  return items;
}

}  // namespace

Expected<std::vector<const Value*>> choose_saved_values(const JointView& view, const PartitionOptions& options) {
  const BanRules bans = ban_rules(options);
  Expected<CutResult> optimal = solve_min_cut(view, options, bans);
  if (!optimal) return optimal.error();
  if (options.memory_budget == 1.0) return optimal->saved;

  std::vector<Candidate> candidates;
  candidates.push_back(evaluate(view, optimal->saved));
  candidates.push_back(evaluate(view, primal_values(view)));
  const double max_bytes = candidates[0].bytes, min_bytes = candidates[1].bytes;
  if (max_bytes <= min_bytes) return optimal->saved;

  BanRules more_aggressive = bans;
  more_aggressive.used_far_apart = more_aggressive.long_fusible_chains = more_aggressive.materialized_backward = false;
  Expected<CutResult> more = solve_min_cut(view, options, more_aggressive);
  if (!more) return more.error();
  candidates.push_back(evaluate(view, more->saved));
  BanRules aggressive = more_aggressive;
  aggressive.not_in_allowlist = false;
  Expected<CutResult> all_aggressive = solve_min_cut(view, options, aggressive);
  if (!all_aggressive) return all_aggressive.error();
  candidates.push_back(evaluate(view, all_aggressive->saved));

  const std::vector<int> items = knapsack_items(view, all_aggressive->banned);
  if (!items.empty()) {
    const double range = max_bytes - min_bytes;
    std::vector<double> memory, runtime;
    for (int i : items) {
      memory.push_back(view.bytes(i) / range);
      runtime.push_back(estimate_runtime(*view.item(i).node));
    }
    std::optional<DpKnapsack> dp;
    if (options.solver == KnapsackSolver::DynamicProgramming) dp.emplace(memory, runtime);
    std::map<std::set<int>, bool> solved;  // dont_ban sets already cut
    for (int step = 0; step < kBudgetSteps; ++step) {
      const double budget = static_cast<double>(step) / kBudgetSteps;
      const KnapsackChoice choice = dp ? dp->solve(budget) : greedy_knapsack(memory, runtime, budget);
      std::set<int> dont_ban;
      for (int k : choice.recomputable) dont_ban.insert(items[static_cast<size_t>(k)]);
      if (!solved.emplace(dont_ban, true).second) continue;
      Expected<CutResult> cut = solve_min_cut(view, options, aggressive, dont_ban);
      if (!cut) return cut.error();
      candidates.push_back(evaluate(view, cut->saved));
    }
  }

  // The cheapest candidate to recompute that fits; then fewer bytes; then the earliest.
  const double cap = min_bytes + options.memory_budget * (max_bytes - min_bytes);
  const Candidate* best = nullptr;
  for (const Candidate& c : candidates) {
    if (c.bytes > cap) continue;
    if (best == nullptr || c.recompute_cost < best->recompute_cost ||
        (c.recompute_cost == best->recompute_cost && c.bytes < best->bytes))
      best = &c;
  }
  return best->saved;  // the inputs always fit
}

}  // namespace kiln::partitioning
