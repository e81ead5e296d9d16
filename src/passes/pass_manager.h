// Runs named passes over a graph. Options say whether to verify after each pass (on in
// debug builds and tests), print the IR after every pass or only after passes that changed
// it, and time passes. Pass names: "dce", "cse", "topo-sort", "functionalize" (which takes
// its options from PassManagerOptions and reports its ViewAndMutationInfo in PipelineFacts),
// "decompose" (options from PassManagerOptions::decompose), "lift-rng-state",
// "propagate-shapes" (passes/propagate_shapes.h), "unique-index" (mark_unique_indices), and
// the cleanup passes "remove-noop-ops", "fold-constants" and "canonicalize" (with their
// default options).
// Layers above passes add their own named passes (pattern sets) through
// PassManagerOptions::extra_passes, so the pass manager needs no registry of its own.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "passes/decompose_options.h"
#include "passes/mutation_info.h"
#include "support/diagnostic.h"

namespace kiln {

// What a pass did: whether it changed the graph, and named counters ("nodes_removed").
struct PassResult {
  bool changed = false;
  std::map<std::string, int64_t> counters;
};

// A pass the caller names: `kiln opt` registers the pattern sets this way.
struct NamedPass {
  std::string name;
  std::function<Expected<PassResult>(Graph&)> run;
};

struct PassManagerOptions {
#ifdef NDEBUG
  bool verify_each = false;
#else
  bool verify_each = true;
#endif
  bool print_after_all = false;
  bool print_after_change = false;
  bool time_passes = false;
  std::ostream* log = nullptr;          // where printing and timing go (stderr when null)
  FunctionalizeOptions functionalize;   // for the "functionalize" pass
  DecomposeOptions decompose;           // for the "decompose" pass
  std::vector<NamedPass> extra_passes;  // found after the built-in passes, by name
};

// Typed facts the passes of a pipeline report (set when the pass that computes them ran).
struct PipelineFacts {
  std::optional<ViewAndMutationInfo> mutation_info;  // from "functionalize"
  // Each pass's counters by pass name (summed where a pass runs twice): "lift-rng-state"'s
  // "rng_state_inputs_added", ...
  std::map<std::string, std::map<std::string, int64_t>> counters;
};

// Names of the registered passes, in a stable order.
std::vector<std::string> registered_passes();

// Runs the comma-separated passes in order (built-in ones, then options.extra_passes). An
// unknown pass name, or a verifier failure
// after a pass, is an error naming the pass.
// Facts the passes report go to `facts` when it is given.
Status run_passes(Graph& g, const std::string& pipeline, const PassManagerOptions& options = {},
                  PipelineFacts* facts = nullptr);

}  // namespace kiln
