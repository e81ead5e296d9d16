#include "runtime/cpu/compile_graph.h"

#include <chrono>

#include "passes/cse.h"
#include "passes/dce.h"
#include "passes/decompose.h"

namespace kiln {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

Expected<std::unique_ptr<Graph>> prepared(const Graph& g, const CpuGraphOptions& o) {
  std::unique_ptr<Graph> copy = g.clone();
  if (o.decompose) {
    Expected<PassResult> r = decompose(*copy);
    if (!r) return r.error().add_context("while decomposing @" + g.name() + " for the CPU backend");
  }
  eliminate_dead_code(*copy);
  eliminate_common_subexpressions(*copy);
  return copy;
}

}  // namespace

Expected<LoopProgram> lower_graph_cpu(const Graph& g, const CpuGraphOptions& o) {
  KILN_ASSIGN_OR_RETURN(std::unique_ptr<Graph> copy, prepared(g, o));
  return lower_graph(*copy, o.lower);
}

Expected<CompiledGraph> compile_graph_cpu(const Graph& g, const CpuGraphOptions& o) {
  CpuPhaseTimes t;
  auto t0 = std::chrono::steady_clock::now();
  KILN_ASSIGN_OR_RETURN(std::unique_ptr<Graph> copy, prepared(g, o));
  t.passes = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  KILN_ASSIGN_OR_RETURN(LoopProgram p, lower_graph(*copy, o.lower));
  t.lowering = seconds_since(t0);
  KILN_ASSIGN_OR_RETURN(CompiledProgram c, CompiledProgram::compile(std::move(p), o.compile));
  const CompileStats& s = c.stats();
  t.emit = s.emit_seconds;
  t.compile = s.toolchain_seconds + s.compile_seconds;
  t.load = s.load_seconds;
  return CompiledGraph(std::move(copy), std::move(c), t);
}

}  // namespace kiln
