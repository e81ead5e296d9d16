// functionalize: removes every in-place op (trait Inplace) from a graph and its subgraphs.
// Each becomes its functional twin (add_ -> add, copy_ -> src expanded and cast to self's
// type, fill_ -> full_like, zero_ -> zeros_like, ...), and every later read of the mutated
// tensor, and of every view sharing its storage, reads the new value: a write to a view goes
// back to its base through the view inverse (functionalize_views.h), other views of that base
// are replayed from the updated base when next used. Mutated graph inputs are written back
// at the end: a trailing copy_(input, final value) per input (keep_input_mutations, the only
// in-place nodes left), or extra outputs after the user outputs. Inputs that share storage at
// run time (FunctionalizeOptions::aliased_inputs) are treated as views of one synthetic base,
// so a write through one is seen through the others.
//
// Preserves: the graph's inputs and user outputs (values, types and order); nodes that do not
// read mutated state. Expects: inputs are packed (as_strided offsets count from their first
// element) and distinct unless named in aliased_inputs. A subgraph may mutate only tensors
// it creates; mutating a subgraph input is an error naming the higher-order node.
#pragma once

#include "ir/graph.h"
#include "passes/mutation_info.h"
#include "support/diagnostic.h"

namespace kiln {

Expected<ViewAndMutationInfo> functionalize(Graph& g, const FunctionalizeOptions& options = {});

}  // namespace kiln
