// The reference interpreter: runs any graph node by node with the reference kernels
// (ops/kernels.h), and runs the subgraphs of cond, while_loop, scan and map itself.
// It is the numerical oracle for every other backend. Symbolic dims are bound from the
// shapes of the inputs. Failures say "while executing <node in IR syntax>".
#pragma once

#include <functional>
#include <span>
#include <vector>

#include "core/tensor.h"
#include "ir/graph.h"
#include "support/diagnostic.h"

namespace kiln {

struct InterpreterOptions {
  // Called after each node with its results (for tracing and intermediate checks).
  std::function<void(const Node&, std::span<const Tensor>)> on_node = nullptr;
};

// Inputs must match the graph's inputs in count, dtype and rank; static dims must match and
// each symbol must take one value.
Expected<std::vector<Tensor>> interpret(const Graph& g, std::span<const Tensor> inputs,
                                        const InterpreterOptions& options = {});

// Runs one higher-order node (cond, while_loop, scan, map) on concrete operands by
// interpreting its subgraphs (in schema order). Used by the interpreter itself and by
// frontend code that replays graphs eagerly. Operand conventions are documented in
// interp/higher_order.cc.
Expected<std::vector<Tensor>> run_higher_order(OpKind op, const AttrMap& attrs, std::span<const KernelOperand> operands,
                                               std::span<const Graph* const> subgraphs);

}  // namespace kiln
