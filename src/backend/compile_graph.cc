// The driver: the passes, lowering and scheduling every backend shares, then the backend.
#include "backend/compile_graph.h"

#include <chrono>

#include "ir/verifier.h"
#include "lower/byte_counts.h"
#include "passes/cse.h"
#include "passes/dce.h"
#include "passes/decompose.h"
#include "passes/fold_uniform_matmuls.h"
#include "passes/functionalize.h"
#include "support/check.h"

namespace kiln {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

bool calls_user_kernels(const Graph& g) {
  for (const Node* n : g.nodes()) {
    if (n->op() == OpKind::KernelCall) return true;
    for (int i = 0; i < n->num_subgraphs(); ++i)
      if (calls_user_kernels(*n->subgraph(i))) return true;
  }
  return false;
}

// The passes are the compiler's own: a graph they leave invalid is an internal error.
void verify_after(const Graph& g, const char* pass, const GraphCompileOptions& o) {
  if (!o.verify_each) return;
  Status s = verify_graph(g);
  KILN_CHECK(s.ok()) << "graph @" << g.name() << " is invalid after " << pass << ": " << s.error().to_string();
}

Expected<std::unique_ptr<Graph>> prepared(const Graph& g, const Backend& backend, const GraphCompileOptions& o) {
  const std::string target = " for the " + backend.name() + " backend";
  std::unique_ptr<Graph> copy = g.clone();
  // A kernel call writes several arguments in place: the backend runs its functional form,
  // with the writes into inputs kept as trailing copy_ write-backs (a call in a cond branch or
  // a loop body, too).
  if (calls_user_kernels(*copy)) {
    Expected<ViewAndMutationInfo> f = functionalize(*copy);
    if (!f) return f.error().add_context("while functionalizing @" + g.name() + target);
    verify_after(*copy, "functionalize", o);
  }
  if (o.decompose) {
    DecomposeOptions d;
    d.ops = decomposed_ops(backend.policy());
    Expected<PassResult> r = decompose(*copy, d);
    if (!r) return r.error().add_context("while decomposing @" + g.name() + target);
    verify_after(*copy, "decompose", o);
  }
  // A product with a uniform operand (a sum loss's tangent) becomes a broadcast of sums.
  Expected<PassResult> folded = fold_uniform_matmuls(*copy);
  if (!folded) return folded.error().add_context("while folding uniform matmuls of @" + g.name());
  verify_after(*copy, "fold_uniform_matmuls", o);
  eliminate_dead_code(*copy);
  verify_after(*copy, "dce", o);
  eliminate_common_subexpressions(*copy);
  verify_after(*copy, "cse", o);
  return copy;
}

// Lowering and scheduling, timed apart: lowering runs with a scheduler that merges nothing
// (it only drops unread temporaries and numbers the kernels, which the full scheduler does
// again), then the scheduler runs within the backend's limits.
Expected<LoopProgram> lowered(const Graph& g, const Backend& backend, const GraphCompileOptions& o,
                              GraphPhaseTimes& t) {
  KILN_TRY(check_value_bytes(g));
  LowerOptions unscheduled{.fuse = o.fuse};
  unscheduled.schedule.merge_pointwise = false;
  unscheduled.schedule.fuse_rows = false;
  auto t0 = std::chrono::steady_clock::now();
  KILN_ASSIGN_OR_RETURN(LoopProgram p, lower_graph(g, unscheduled));
  t.lowering = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  ScheduleOptions schedule = backend.policy().schedule;
  if (!o.schedule) {
    schedule.merge_pointwise = false;
    schedule.fuse_rows = false;
  }
  if (o.fuse) schedule_kernels(p, schedule);
  t.scheduling = seconds_since(t0);
  return p;
}

}  // namespace

Expected<LoopProgram> lower_graph_for(const Graph& g, const Backend& backend, const GraphCompileOptions& o) {
  KILN_ASSIGN_OR_RETURN(std::unique_ptr<Graph> copy, prepared(g, backend, o));
  GraphPhaseTimes unused;
  return lowered(*copy, backend, o, unused);
}

Expected<CompiledGraph> compile_graph(const Graph& g, const Backend& backend, const GraphCompileOptions& o) {
  GraphPhaseTimes t;
  auto t0 = std::chrono::steady_clock::now();
  KILN_ASSIGN_OR_RETURN(std::unique_ptr<Graph> copy, prepared(g, backend, o));
  t.passes = seconds_since(t0);
  KILN_ASSIGN_OR_RETURN(LoopProgram p, lowered(*copy, backend, o, t));
  KILN_ASSIGN_OR_RETURN(std::unique_ptr<Executable> e, backend.compile(std::move(p)));
  t.backend = e->times();
  return CompiledGraph(std::move(copy), std::move(e), t);
}

}  // namespace kiln
