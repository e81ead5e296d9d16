#include "runtime/cpu/compile_graph.h"

#include <chrono>

#include "passes/cse.h"
#include "passes/dce.h"
#include "passes/decompose.h"
#include "passes/fold_uniform_matmuls.h"
#include "passes/functionalize.h"
#include "runtime/cpu/runtime_memory.h"

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

Expected<std::unique_ptr<Graph>> prepared(const Graph& g, const CpuGraphOptions& o) {
  std::unique_ptr<Graph> copy = g.clone();
  // A kernel call writes several arguments in place: the backend runs its functional form,
  // with the writes into inputs kept as trailing copy_ write-backs (a call in a cond branch or
  // a loop body, too).
  if (calls_user_kernels(*copy)) {
    Expected<ViewAndMutationInfo> f = functionalize(*copy);
    if (!f) return f.error().add_context("while functionalizing @" + g.name() + " for the CPU backend");
  }
  if (o.decompose) {
    DecomposeOptions d;
    d.ops = decomposable_ops();
    if (o.extern_linear) std::erase(d.ops, OpKind::Linear);
    if (o.welford) {
      std::erase(d.ops, OpKind::Var);
      std::erase(d.ops, OpKind::Std);
    }
    Expected<PassResult> r = decompose(*copy, d);
    if (!r) return r.error().add_context("while decomposing @" + g.name() + " for the CPU backend");
  }
  // A product with a uniform operand (a sum loss's tangent) becomes a broadcast of sums.
  Expected<PassResult> folded = fold_uniform_matmuls(*copy);
  if (!folded) return folded.error().add_context("while folding uniform matmuls of @" + g.name());
  eliminate_dead_code(*copy);
  eliminate_common_subexpressions(*copy);
  return copy;
}

// Lowering and scheduling, timed apart: lowering runs with a scheduler that merges nothing
// (it only drops unread temporaries and numbers the kernels, which the full scheduler does
// again), then the scheduler runs with the caller's options.
Expected<LoopProgram> lowered(const Graph& g, const CpuGraphOptions& o, CpuPhaseTimes& t) {
  KILN_TRY(check_value_bytes(g));
  LowerOptions unscheduled = o.lower;
  unscheduled.schedule.merge_pointwise = false;
  unscheduled.schedule.fuse_rows = false;
  auto t0 = std::chrono::steady_clock::now();
  KILN_ASSIGN_OR_RETURN(LoopProgram p, lower_graph(g, unscheduled));
  t.lowering = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  if (o.lower.fuse) schedule_kernels(p, o.lower.schedule);
  t.scheduling = seconds_since(t0);
  return p;
}

}  // namespace

Expected<LoopProgram> lower_graph_cpu(const Graph& g, const CpuGraphOptions& o) {
  KILN_ASSIGN_OR_RETURN(std::unique_ptr<Graph> copy, prepared(g, o));
  CpuPhaseTimes unused;
  return lowered(*copy, o, unused);
}

Expected<CompiledGraph> compile_graph_cpu(const Graph& g, const CpuGraphOptions& o) {
  CpuPhaseTimes t;
  auto t0 = std::chrono::steady_clock::now();
  KILN_ASSIGN_OR_RETURN(std::unique_ptr<Graph> copy, prepared(g, o));
  t.passes = seconds_since(t0);
  KILN_ASSIGN_OR_RETURN(LoopProgram p, lowered(*copy, o, t));
  KILN_ASSIGN_OR_RETURN(CompiledProgram c, CompiledProgram::compile(std::move(p), o.compile));
  const CompileStats& s = c.stats();
  t.emit = s.emit_seconds;
  t.compile = s.toolchain_seconds + s.lookup_seconds + s.compile_seconds;
  t.load = s.load_seconds;
  return CompiledGraph(std::move(copy), std::move(c), t);
}

}  // namespace kiln
