// The driver: the passes, lowering and scheduling every backend shares, then the backend.
#include "backend/compile_graph.h"

#include <chrono>

#include "lower/byte_counts.h"
#include "passes/pass_manager.h"

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

// The graph passes every backend runs, through the pass manager (verifying the graph after each
// when verify_each is set): a kernel call writes several arguments in place, so a graph that
// calls one is functionalized first (the backend runs its functional form, with the writes into
// inputs kept as trailing copy_ write-backs, in a cond branch or a loop body too); then the ops
// the backend does not keep whole are decomposed; a product with a uniform operand (a sum
// loss's tangent) becomes a broadcast of sums; then dead code and common subexpressions go.
Expected<std::unique_ptr<Graph>> prepared(const Graph& g, const Backend& backend, const GraphCompileOptions& o) {
  std::unique_ptr<Graph> copy = g.clone();
  std::string pipeline = calls_user_kernels(*copy) ? "functionalize," : "";
  if (o.decompose) pipeline += "decompose,";
  pipeline += "fold-uniform-matmuls,dce,cse";
  PassManagerOptions passes;
  passes.verify_each = o.verify_each;
  passes.decompose.ops = decomposed_ops(backend.policy());
  Status s = run_passes(*copy, pipeline, passes);
  if (!s) return s.error().add_context("while preparing @" + g.name() + " for the " + backend.name() + " backend");
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
  unscheduled.schedule.merge_reductions = false;
  auto t0 = std::chrono::steady_clock::now();
  KILN_ASSIGN_OR_RETURN(LoopProgram p, lower_graph(g, unscheduled));
  t.lowering = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  ScheduleOptions schedule = backend.policy().schedule;
  if (!o.schedule) {
    schedule.merge_pointwise = false;
    schedule.fuse_rows = false;
    schedule.merge_reductions = false;
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
