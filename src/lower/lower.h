// Lowering a graph to the loop IR (docs/LOWERING.md). Elementwise ops become pointwise
// kernels, sum/mean/amax/amin become reduction kernels, views become index arithmetic in
// their consumers' loads (no kernel of their own), and every other op is an extern kernel run
// by its reference kernel. Elementwise producers are inlined into the kernels that read them
// (fusion by inlining, lower.cc says when a value is stored instead); so are the pointwise
// bodies of `map`, and `scan` with a pointwise combine_fn becomes a scan kernel (subgraph.h);
// `cond` and `while_loop` become control kernels over their lowered subgraphs (loop_control.h).
#pragma once

#include "ir/graph.h"
#include "lower/loop_ir.h"
#include "lower/schedule.h"
#include "ops/op_set.h"
#include "support/diagnostic.h"

namespace kiln {

struct LowerOptions {
  // Inline elementwise producers into their consumers' kernels and run the scheduler
  // (schedule.h); false: one kernel per node.
  bool fuse = true;
  ScheduleOptions schedule = {};
  // Ops that may create or mutate a buffer inside a higher-order op's body (SPEC.md 4's
  // allowed_mutations; subgraph.h). Empty: bodies must be pointwise.
  OpSet allowed_mutations = {};
};

// Requires static shapes. Of the higher-order ops, `map` and `scan` are lowered when their
// bodies are pointwise (subgraph.h), `cond` and `while_loop` with any subgraphs, each lowered as
// a loop program of its own into a control kernel (loop_control.h). Otherwise an error naming
// the node in IR syntax.
Expected<LoopProgram> lower_graph(const Graph& g, const LowerOptions& options = {});

// Whether lowering inlines node `n` as a scalar function of its operands: what the bodies of
// map and scan may hold (subgraph.h), for code that builds such bodies (the fuzzer's generator).
bool lowers_inline(const Node& n);

}  // namespace kiln
