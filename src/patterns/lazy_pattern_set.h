// A pattern set traced one pattern at a time, on demand. Applied to a graph, it traces (once
// per LazyPatternSet) only the patterns whose Replacement::required_ops all occur in the graph
// and applies the set of those, in registration order: the same rewrites as the whole set,
// since a pattern with an op the graph lacks cannot match. fuse-attention's 336 patterns cost
// about 80 ms to trace; a transformer block needs a fraction of them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "passes/pass_manager.h"
#include "passes/pattern.h"
#include "patterns/traced_pattern.h"

namespace kiln {

class LazyPatternSet {
 public:
  LazyPatternSet(std::string name, std::vector<Replacement> replacements);

  const std::string& name() const;
  // The set of the patterns `g` (subgraphs included) could match, built once per distinct
  // selection. A tracing failure of a selected pattern is an error, as for the whole set.
  Expected<std::shared_ptr<const PatternSet>> set_for(const Graph& g) const;
  Expected<PassResult> apply(Graph& g, const PatternApplyOptions& options = {}) const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace kiln
