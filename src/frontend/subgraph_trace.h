// Tracing the functions of cond, while_loop, scan and map into closed subgraphs: a function
// runs in a trace context nested in the enclosing one (frontend/trace.h) on tensors standing
// for new subgraph inputs; the outer tensors it uses ("closures") become extra inputs, which
// the node receives as extra operands.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "frontend/control_flow.h"
#include "frontend/trace.h"
#include "ir/graph.h"

namespace kiln {

struct TracedSubgraph {
  std::unique_ptr<Graph> graph;  // inputs: the arguments, then one per closure
  int num_args = 0;
  std::vector<Value*> closures;  // the enclosing graph's values the closure inputs stand for
};

// Traces `fn` called on inputs of types `arg_types`, in a context nested in `parent`. `op`
// and `fn_name` name it in errors ("cond: true_fn returned ..."). Throws kiln::Error when
// `fn` does or returns an undefined tensor.
TracedSubgraph trace_subgraph(TraceContext& parent, const GraphFn& fn, const std::vector<TensorType>& arg_types,
                              const std::string& op, const std::string& fn_name);

// The closures of `subs`, each once, in order of first use.
std::vector<Value*> closure_union(const std::vector<const TracedSubgraph*>& subs);

// `sub`'s graph with one input per entry of `closures` (a superset of sub.closures) inserted
// before argument `at`: inputs `sub` does not use are left unused, so that sibling subgraphs
// share one signature. With `return_at`, the closure inputs are also returned unchanged,
// inserted before output `*return_at` (values carried through a loop).
std::unique_ptr<Graph> close_over(const TracedSubgraph& sub, const std::vector<Value*>& closures, int at,
                                  std::optional<int> return_at = std::nullopt);

}  // namespace kiln
