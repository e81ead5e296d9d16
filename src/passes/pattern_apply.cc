// The pattern driver of pattern.h: sweeps a graph in reverse order trying the patterns
// anchored at each node's op, replaces matches, and explains the candidates that failed.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "ir/printer.h"
#include "ir/written_operands.h"
#include "passes/pattern_internal.h"
#include "passes/topo_sort.h"
#include "support/check.h"

namespace kiln {

namespace {

using pattern_detail::OutputSet;

// Mutation regions (SPEC 5.4): the region id grows after each in-place node; a match may not
// span two regions, so no rewrite moves a read across a write.
using Regions = std::unordered_map<const Node*, int>;

Regions mutation_regions(const Graph& g) {
  Regions regions;
  int region = 0;
  for (Node* n : g.nodes()) {
    regions[n] = region;
    if (writes_operands(*n)) ++region;
  }
  return regions;
}

bool in_one_region(const Match& m, const Regions& regions) {
  const auto anchor = regions.find(m.anchor);
  for (const Node* n : m.nodes) {
    const auto r = regions.find(n);
    // Nodes made by this sweep's replacements have no region and sit where their anchor was.
    if (r != regions.end() && anchor != regions.end() && r->second != anchor->second) return false;
  }
  return true;
}

// Builds the replacement before the anchor, redirects the matched outputs to it and erases
// the matched nodes left without users. Returns the erased nodes.
std::vector<Node*> replace_match(Graph& g, const Match& m, OutputSet& graph_outputs) {
  const Pattern& p = *m.pattern;
  GraphBuilder builder(g, m.anchor);
  std::vector<Value*> values;
  if (m.replacement) {
    values = builder.inline_graph(*m.replacement, m.wildcards);
  } else if (p.replacement) {
    values = builder.inline_graph(*p.replacement, m.wildcards);
  } else {
    values = p.replace(builder, m);
  }
  KILN_CHECK(values.size() == m.outputs.size()) << "pattern '" << p.name << "': the replacement has " << values.size()
                                                << " results for " << m.outputs.size() << " matched outputs";
  for (size_t j = 0; j < values.size(); ++j) {
    Value* old_value = m.outputs[j];
    KILN_CHECK(values[j]->type() == old_value->type())
        << "pattern '" << p.name << "': replacement result " << j << " has type " << values[j]->type().to_string()
        << " for a matched value of type " << old_value->type().to_string()
        << " (the pattern's extra_check must reject such matches)";
    if (values[j] == old_value) continue;
    if (graph_outputs.erase(old_value)) graph_outputs.insert(values[j]);
    g.replace_all_uses_with(old_value, values[j]);
  }
  std::vector<Node*> erased;
  for (auto it = m.nodes.rbegin(); it != m.nodes.rend(); ++it) {
    Node* n = *it;
    if (n->has_users() || std::find(erased.begin(), erased.end(), n) != erased.end()) continue;
    erased.push_back(n);
    g.erase(n);
  }
  return erased;
}

struct Driver {
  const PatternSet& set;
  const PatternApplyOptions& options;
  PassResult& result;

  // One sweep over g in reverse order; the number of replacements.
  int64_t sweep(Graph& g) {
    OutputSet graph_outputs = pattern_detail::graph_output_set(g);
    Regions regions = mutation_regions(g);
    std::unordered_set<const Node*> erased;
    std::vector<Node*> nodes = g.nodes();
    int64_t replaced = 0;
    bool needs_sort = false;
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
      Node* n = *it;
      if (erased.count(n)) continue;
      for (int index : set.anchored_at(n->op())) {
        const Pattern& p = set.pattern(index);
        Match m;
        if (!pattern_detail::match_at(set.entry(index), n, graph_outputs, m, nullptr, &result.counters["node_visits"]))
          continue;
        if (!in_one_region(m, regions) || (p.extra_check && !p.extra_check(m))) continue;
        for (Node* gone : replace_match(g, m, graph_outputs)) {
          erased.insert(gone);
          regions.erase(gone);
        }
        needs_sort = needs_sort || m.outputs.size() > 1;
        ++replaced;
        ++result.counters["pattern." + p.name];
        break;
      }
    }
    // Replacements of multi-output matches go before the first output's producer, which may
    // precede a wildcard or follow a user of another output.
    if (needs_sort) sort_topologically(g);
    return replaced;
  }

  Status run(Graph& g, bool top) {
    for (Node* n : g.nodes())
      for (int i = 0; i < n->num_subgraphs(); ++i) KILN_TRY(run(*n->subgraph(i), false));
    int iterations = 0;
    while (true) {
      if (iterations == options.max_iterations) {
        if (options.must_converge)
          return make_error("pattern set '", set.name(), "' did not converge on graph @", g.name(), " after ",
                            options.max_iterations, " sweeps");
        break;
      }
      ++iterations;
      const int64_t replaced = sweep(g);
      result.counters["matches"] += replaced;
      if (replaced == 0) break;
    }
    if (top) result.counters["iterations"] = iterations;
    return Status::ok();
  }
};

// One explanation line per reason: "pattern 'a' does not match ...", or for several patterns
// that fail the same way "patterns 'a', 'b', 'c' (+4 more) do not match ...".
std::string explain_line(const std::vector<std::string>& names, const std::string& node, const std::string& why) {
  std::string who = names.size() == 1 ? "pattern '" + names[0] + "'" : "patterns ";
  if (names.size() > 1) {
    for (size_t i = 0; i < names.size() && i < 3; ++i) who += (i ? ", '" : "'") + names[i] + "'";
    if (names.size() > 3) who += " (+" + std::to_string(names.size() - 3) + " more)";
  }
  return who + (names.size() == 1 ? " does" : " do") + " not match " + node + ": " + why;
}

void explain_in(Graph& g, const PatternSet& set, std::vector<std::string>& lines) {
  const OutputSet graph_outputs = pattern_detail::graph_output_set(g);
  const Regions regions = mutation_regions(g);
  for (Node* n : g.nodes()) {
    for (int i = 0; i < n->num_subgraphs(); ++i) explain_in(*n->subgraph(i), set, lines);
    // The failures of the patterns that got furthest (bound the most search nodes), grouped by
    // reason in pattern order; a node that some pattern rewrites gets none.
    struct Failure {
      std::string pattern, why;
      int depth = 0;
    };
    std::vector<Failure> failures;
    bool rewritten = false;
    for (int index : set.anchored_at(n->op())) {
      const Pattern& p = set.pattern(index);
      Match m;
      Failure f{p.name, "", 0};
      if (!pattern_detail::match_at(set.entry(index), n, graph_outputs, m, &f.why, nullptr, &f.depth)) {
      } else if (!in_one_region(m, regions)) {
        f.why = "the matched nodes span an in-place node";
        f.depth = static_cast<int>(m.nodes.size());
      } else if (p.extra_check && !p.extra_check(m)) {
        f.why = "extra_check rejected";
        f.depth = static_cast<int>(m.nodes.size());
      } else {
        rewritten = true;
        break;
      }
      failures.push_back(std::move(f));
    }
    if (rewritten || failures.empty()) continue;
    int deepest = 0;
    for (const Failure& f : failures) deepest = std::max(deepest, f.depth);
    std::vector<std::pair<std::string, std::vector<std::string>>> by_reason;
    for (const Failure& f : failures) {
      if (f.depth != deepest) continue;
      auto it = std::find_if(by_reason.begin(), by_reason.end(), [&](const auto& r) { return r.first == f.why; });
      if (it == by_reason.end()) it = by_reason.insert(by_reason.end(), {f.why, {}});
      it->second.push_back(f.pattern);
    }
    for (const auto& [why, names] : by_reason) lines.push_back(explain_line(names, print_node(*n), why));
  }
}

}  // namespace

Expected<PassResult> apply_patterns(Graph& g, const PatternSet& set, const PatternApplyOptions& options) {
  PassResult result;
  result.counters["matches"] = 0;
  result.counters["node_visits"] = 0;
  Driver driver{set, options, result};
  KILN_TRY(driver.run(g, true));
  result.changed = result.counters["matches"] > 0;
  return result;
}

std::vector<std::string> explain_matches(Graph& g, const PatternSet& set) {
  std::vector<std::string> lines;
  explain_in(g, set, lines);
  return lines;
}

}  // namespace kiln
