// The one entry point through which every frontend op runs: eagerly on concrete tensors, or,
// inside capture(), by recording a node. Both paths share the op's type rules (ops/op_call.h).
#pragma once

#include <span>
#include <vector>

#include "core/tensor.h"
#include "ir/graph.h"
#include "ops/attr.h"
#include "ops/op_call.h"
#include "support/diagnostic.h"

namespace kiln {

// Applies `op`. When a capture is active on this thread (frontend/trace.h) or an operand is
// traced, the node is appended to the capture's graph (concrete operands become lifted
// inputs) and the results are traced tensors; otherwise the reference kernel runs (run_op).
// Attributes equal to the schema default are dropped, so a node records only what the
// caller chose: `sum(%x) {dim=[1], keepdim=true}`. `loc` is the caller's call site: a
// recorded node keeps it, and an error that names no place of its own gets it. Internal
// callers with no user call site pass none.
Expected<std::vector<Tensor>> dispatch(OpKind op, std::vector<KernelOperand> operands, AttrMap attrs,
                                       SourceLoc loc = {});

// The same for a higher-order op and its subgraphs (in schema order): traced, the subgraphs
// are copied into the node; eager, the interpreter runs them (interp/interpreter.h).
Expected<std::vector<Tensor>> dispatch_higher_order(OpKind op, std::vector<KernelOperand> operands, AttrMap attrs,
                                                    std::span<const Graph* const> subgraphs, SourceLoc loc = {});

// A C++ call site as a SourceLoc (file:line:col); unknown for a default-constructed CallSite.
SourceLoc source_loc(const CallSite& site);

}  // namespace kiln
