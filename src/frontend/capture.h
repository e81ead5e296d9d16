// capture(): runs a C++ function on traced tensors and returns the graph of the ops it called
// (SPEC.md section 3). Concrete tensors the function touches (module parameters and buffers,
// other constants) become extra graph inputs after the user inputs; their values come back in
// Captured::lifted. After tracing, unused pure nodes are removed, in subgraphs too; in pattern
// mode, `copy_` nodes with no users are dropped too (SPEC 3c step 4). The graph is verified
// before return.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "ir/graph.h"
#include "support/diagnostic.h"

namespace kiln {

namespace nn {
class Module;
}

// Marks dim `dim` of user input `input` as the symbol `symbol`: `{.dynamic = {{0, "B"}}}`.
struct DynamicDim {
  int64_t dim = 0;
  std::string symbol = {};
  int input = 0;
};

struct CaptureOptions {
  std::vector<DynamicDim> dynamic = {};
  // Pattern capture: also drop `copy_` nodes with no users (write-backs into inputs).
  bool for_pattern = false;
  std::string name = "main";
  // Names of the user inputs; missing ones are x0, x1, ...
  std::vector<std::string> input_names = {};
  // Its parameters and buffers become inputs with roles `param`/`buffer`, named by path.
  const nn::Module* module = nullptr;
};

struct Captured {
  std::unique_ptr<Graph> graph;
  // Values of the lifted inputs (params, buffers, constants), in graph-input order after
  // the user inputs.
  std::vector<Tensor> lifted;

  // Interprets the graph on `inputs` with the lifted values appended.
  Expected<std::vector<Tensor>> run(std::span<const Tensor> inputs) const;
};

using CaptureFn = std::function<std::vector<Tensor>(std::span<const Tensor>)>;
using CaptureFn1 = std::function<Tensor(std::span<const Tensor>)>;

// Errors raised inside `fn` (kiln::Error) come back as the Diagnostic.
Expected<Captured> capture(CaptureFn fn, std::vector<Tensor> example_inputs, const CaptureOptions& options = {});
// For functions with one output.
Expected<Captured> capture(CaptureFn1 fn, std::vector<Tensor> example_inputs, const CaptureOptions& options = {});

}  // namespace kiln
