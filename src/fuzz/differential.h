// The differential check of drawn graphs (docs/FUZZING.md): each graph runs in the reference
// interpreter and compiled for the CPU (CpuBackend through compile_graph, the pipeline `kiln run --device=cpu`
// uses) on fuzz_inputs of its seed, and every output and every input the graph writes must
// agree within the tolerance estimate_tolerance gives it; a graph one of them runs and the
// other refuses (an error at compile or run time) is a mismatch too. Graphs are compiled in
// batches (merge_graphs.h) and a batch that fails is retried graph by graph, so that each
// finding names one graph.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "backend/compile_graph.h"
#include "ir/graph.h"
#include "runtime/cpu/cpu_backend.h"

namespace kiln::fuzz {

struct FuzzCase {
  uint64_t seed;  // drew the graph and its inputs
  std::unique_ptr<Graph> graph;
};

// One mismatch: the case's seed and what differs, in one line; `graph` is the graph that
// disagrees when it is not the case's own (a joint graph of the gradient check), run on
// fuzz_inputs of the seed.
struct Finding {
  uint64_t seed;
  std::string what;
  std::shared_ptr<const Graph> graph = nullptr;
};

struct DifferentialOptions {
  CpuBackendOptions cpu = {};
  int batch = 16;  // graphs per compile
};

std::vector<Finding> check_cases(std::span<const FuzzCase> cases, const DifferentialOptions& options = {});

// What one backend made of a graph: its outputs and its inputs as the run left them, or the
// error it reported. Shared with the gradient check, which compares joint graphs the same way.
struct Outcome {
  std::vector<Tensor> outputs;
  std::vector<Tensor> inputs_after;
  std::string error;  // empty when it ran
};

// Interprets g on copies of `inputs`.
Outcome interpret_outcome(const Graph& g, std::span<const Tensor> inputs);
// Compiles g with `backend` and runs it on copies of `inputs`.
Outcome compiled_outcome(const Graph& g, std::span<const Tensor> inputs, const Backend& backend);

// Why `compiled` disagrees with `interpreted` on g (run on `inputs`), or "" when it agrees.
std::string compare_outcomes(const Graph& g, std::span<const Tensor> inputs, const Outcome& interpreted,
                             const Outcome& compiled);

}  // namespace kiln::fuzz
