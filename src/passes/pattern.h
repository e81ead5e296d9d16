// The pattern matcher (SPEC.md 5.4). A Pattern is a search graph, whose inputs are
// wildcards and whose outputs are the values a match replaces, plus a replacement: a graph
// inlined with the matched wildcards as its inputs, or a callback that builds it. Matching
// walks backward from an anchor node (the producer of the search graph's first output):
// ops, operand counts and attributes must be equal, commutative ops try both operand orders,
// a wildcard bound twice must bind the same value, and an interior matched node may have no
// user outside the match unless it produces a search output. With `ignore_literals`, inline
// int/float literals and int, float, int-list and dtype attributes match anything and the
// values found are reported in the Match; the pattern's `extra_check` then decides (traced
// patterns re-trace with the real shapes there, patterns/traced_pattern.h).
//
// A PatternSet indexes its patterns by anchor op, so one sweep costs time linear in the graph
// (times the pattern sizes); apply_patterns sweeps until nothing matches. docs/PATTERNS.md.
#pragma once

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ir/graph.h"
#include "ir/graph_builder.h"
#include "passes/pass_manager.h"
#include "support/diagnostic.h"

namespace kiln {

struct Pattern;

// A literal found where the pattern's literal was ignored or is a scalar parameter.
struct FoundLiteral {
  int node = 0;           // index of the search-graph node (in search-graph order)
  int operand = -1;       // the operand index, or -1 for an attribute
  std::string attr = {};  // the attribute name when operand == -1
  AttrValue pattern_value = {};
  AttrValue value = {};
};

struct Match {
  const Pattern* pattern = nullptr;
  Node* anchor = nullptr;
  std::vector<Value*> wildcards;  // the value bound to each search-graph input
  std::vector<Node*> nodes;       // the node matched by each search-graph node
  std::vector<Value*> outputs;    // the values matched by the search-graph outputs
  std::vector<FoundLiteral> literals;
  std::vector<AttrValue> scalars;  // the value bound to each of pattern->scalar_params
  // Set by an extra_check to replace with this graph (its inputs: the wildcards) instead of
  // the pattern's own replacement.
  std::shared_ptr<const Graph> replacement;

  // The wildcard bound to the search-graph input named `name`, or null.
  Value* wildcard(std::string_view name) const;
};

// A named literal of the search graph (the reference's scalar_workaround): every literal
// equal to `magic` matches any number and all of them must find the same one; the value
// found is Match::scalars[i].
struct ScalarParam {
  std::string name;
  double magic = 0;
};

using PatternReplaceFn = std::function<std::vector<Value*>(GraphBuilder& builder, const Match& match)>;
using PatternCheck = std::function<bool(Match& match)>;

struct Pattern {
  std::string name = {};  // counted as "pattern.<name>"
  std::shared_ptr<const Graph> search = {};
  // Exactly one of these: a graph inlined with the wildcards as inputs, or a callback that
  // builds the replacement with a builder whose nodes go before the anchor. Either way one
  // value per search output, of the same type as the value it replaces.
  std::shared_ptr<const Graph> replacement = {};
  PatternReplaceFn replace = {};
  bool ignore_literals = false;
  std::vector<ScalarParam> scalar_params = {};
  // Only the first `scalar_nodes` search nodes (in order) bind scalar parameters; -1: all. A
  // joint pattern's backward nodes come from derivative rules whose own literals (a matmul
  // rule's transpose(-1, -2)) may equal a magic value without being the parameter.
  int scalar_nodes = -1;
  // Runs on a structural match before replacing; may set Match::replacement.
  PatternCheck extra_check = {};
};

struct PatternApplyOptions {
  int max_iterations = 16;     // sweeps over the graph
  bool must_converge = false;  // reaching max_iterations with changes is an error
};

class PatternSet {
 public:
  explicit PatternSet(std::string name) : name_(std::move(name)) {}

  const std::string& name() const { return name_; }
  // Checks the pattern (a search graph with outputs produced by nodes, every input used, no
  // subgraphs; one kind of replacement with as many outputs) and adds it. A pattern whose
  // name or printed search graph is already in the set is an error.
  Status add(Pattern pattern);

  int size() const { return static_cast<int>(entries_.size()); }
  const Pattern& pattern(int i) const { return entries_[static_cast<size_t>(i)]->pattern; }
  // Indices of the patterns anchored at `op`, in the order they were added.
  const std::vector<int>& anchored_at(OpKind op) const { return by_anchor_[static_cast<size_t>(op)]; }

  // Internal: a pattern with the search-graph positions the matcher needs.
  struct Entry {
    Pattern pattern;
    std::vector<const Node*> nodes;                   // search nodes in order
    std::unordered_map<const Node*, int> node_index;  // and back
    std::vector<bool> produces_output;                // per search node
    std::string printed_search;
  };
  const Entry& entry(int i) const { return *entries_[static_cast<size_t>(i)]; }

 private:
  std::string name_;
  std::vector<std::unique_ptr<Entry>> entries_;
  std::array<std::vector<int>, kNumOps> by_anchor_;
};

// Matches pattern `index` of `set` at `anchor`, without its extra_check. On failure, `why`
// (when given) receives the first reason. `visits` (when given) is increased by the number of
// node comparisons made.
std::optional<Match> match_pattern(const PatternSet& set, int index, Node* anchor, std::string* why = nullptr,
                                   int64_t* visits = nullptr);

// Applies the set to `g` and its subgraphs until a sweep matches nothing. Each sweep visits
// candidate nodes in reverse graph order and tries their patterns in the order added; a match
// whose nodes span an in-place node's before and after, or that its extra_check rejects, is
// skipped. Counters: "matches", "pattern.<name>" per pattern that fired, "iterations" (sweeps
// of the top graph) and "node_visits" (node comparisons, which grow linearly with the graph).
Expected<PassResult> apply_patterns(Graph& g, const PatternSet& set, const PatternApplyOptions& options = {});

// For every node (subgraphs included) whose op anchors some pattern of the set and that no
// pattern would rewrite, why: the first failure of each pattern that got furthest (bound the
// most search nodes), one line per distinct reason, naming the patterns that fail that way:
//   pattern 'silu' does not match %3 = mul(%2, %x) : f32[4]: operand 0 of %3: expected sigmoid, found relu at %2 =
//   relu(%x) : f32[4] patterns 'a', 'b', 'c' (+9 more) do not match %5 = matmul(%q, %4) : ...: operand 0 of %5:
//   expected softmax, found input %q
// Does not change g.
std::vector<std::string> explain_matches(Graph& g, const PatternSet& set);

}  // namespace kiln
