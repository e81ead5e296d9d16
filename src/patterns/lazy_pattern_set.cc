#include "patterns/lazy_pattern_set.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>

namespace kiln {

struct LazyPatternSet::State {
  std::string name;
  std::vector<Replacement> replacements;
  std::mutex mutex;  // guards what follows: caches of immutable results
  std::vector<std::optional<Expected<Pattern>>> traced;
  std::map<std::vector<bool>, std::shared_ptr<const PatternSet>> sets;
};

namespace {

void collect_ops(const Graph& g, std::vector<bool>& present) {
  for (const Node* n : g.nodes()) {
    present[static_cast<size_t>(n->op())] = true;
    for (int i = 0; i < n->num_subgraphs(); ++i) collect_ops(*n->subgraph(i), present);
  }
}

}  // namespace

LazyPatternSet::LazyPatternSet(std::string name, std::vector<Replacement> replacements)
    : state_(std::make_shared<State>()) {
  state_->name = std::move(name);
  state_->replacements = std::move(replacements);
  state_->traced.resize(state_->replacements.size());
}

const std::string& LazyPatternSet::name() const { return state_->name; }

Expected<std::shared_ptr<const PatternSet>> LazyPatternSet::set_for(const Graph& g) const {
  std::vector<bool> present(kNumOps, false);
  collect_ops(g, present);
  std::vector<bool> selected;
  for (const Replacement& r : state_->replacements)
    selected.push_back(std::all_of(r.required_ops.begin(), r.required_ops.end(),
                                   [&](OpKind op) { return present[static_cast<size_t>(op)]; }));
  std::lock_guard<std::mutex> lock(state_->mutex);
  if (auto it = state_->sets.find(selected); it != state_->sets.end()) return it->second;
  auto set = std::make_shared<PatternSet>(state_->name);
  for (size_t i = 0; i < selected.size(); ++i) {
    if (!selected[i]) continue;
    std::optional<Expected<Pattern>>& t = state_->traced[i];
    if (!t) t = trace_replacement(state_->replacements[i]);
    if (!*t) return t->error();
    KILN_TRY(set->add(**t));
  }
  state_->sets.emplace(std::move(selected), set);
  return std::shared_ptr<const PatternSet>(std::move(set));
}

Expected<PassResult> LazyPatternSet::apply(Graph& g, const PatternApplyOptions& options) const {
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<const PatternSet> set, set_for(g));
  return apply_patterns(g, *set, options);
}

}  // namespace kiln
