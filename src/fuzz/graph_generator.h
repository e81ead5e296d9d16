// The random-graph generator of the differential fuzzer (docs/FUZZING.md): graphs that are
// valid by construction, built by walking ops.def's table and asking each op's schema and
// shape and dtype rules (ops/op_call.h: infer_types) whether a drawn application is well
// typed. Ops whose operands or attributes must hold values the schema cannot describe (sizes
// that fit, dims, index tensors in range, matching bodies of control flow) get a recipe
// (op_recipes.h); the rest are built from their schema alone. One seed gives one graph.
#pragma once

#include <memory>
#include <span>
#include <string_view>

#include "fuzz/choices.h"
#include "ir/graph.h"
#include "ops/op_kind.h"

namespace kiln::fuzz {

struct GeneratorOptions {
  int max_nodes = 8;         // ops drawn for the top-level graph (recipes' helper nodes aside)
  int max_elements = 64;     // the most elements of a drawn input type
  bool control_flow = true;  // cond, while_loop (2 to 3 trips at most), scan and map
  // Only f64 inputs, operands a derivative rule leaves without gradient made constants, and
  // only the ops `draws` accepts: graphs whose gradients the fuzzer checks by finite
  // differences (gradient_check.h: differentiable_options).
  bool differentiable = false;
  // When set, the only ops drawn (besides recipes' helpers).
  bool (*draws)(OpKind op) = nullptr;
  // The percentage of index operands left unclamped and integer divisors left unguarded, so
  // that some graphs fail at run time (an index out of range, a division by zero): a run
  // error must be an error on every backend.
  int error_percent = 3;
};

// A graph of drawn ops on drawn inputs. Every node result that no other node reads is an
// output, so every node is run by every backend (dead code would be removed by the compiled
// pipeline but run by the interpreter).
std::unique_ptr<Graph> generate_graph(Choices& choices, const GeneratorOptions& options = {});

// Ops the generator never draws, each with the reason; every other op of ops.def is drawn
// (tests/unit/test_fuzz_generator.cc checks that a few hundred seeds reach each of them).
struct ExcludedOp {
  OpKind op;
  std::string_view why;
};
std::span<const ExcludedOp> excluded_ops();

}  // namespace kiln::fuzz
