// Which node of an ONNX model kills the runner process. A native crash (a signal in ONNX
// Runtime's kernels) takes the process with it, so no process can report the node it was
// running; instead the model is cut after its first k nodes, every result of those nodes
// made a model output (so none is pruned), and each cut runs in a fresh process: the first
// node whose cut dies of the same signal is the one. A binary search over k needs about
// log2(nodes) + 1 runs (each starts Python and imports ONNX Runtime, ~0.5 s), and happens
// only after a crash.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "onnx/onnx_runner.h"

namespace kiln::onnx {

// A node of the model's main graph (a crash inside an If or Loop body names that node).
struct CrashingNode {
  int index = 0;  // in the graph's node list
  int num_nodes = 0;
  std::string name, op_type;
  std::vector<std::string> outputs = {};
  // The results of the nodes after it, in order: an op exported as several nodes names its
  // result at the last of them, so the first named value from here on is the op's.
  std::vector<std::string> later_outputs = {};
};

// The first node of `model` (a .onnx file) whose cut dies of `signal` when `runner` runs it
// on `input_paths`, writing the cuts to `dir`. nullopt when no cut dies so (the crash needs
// more than the model's nodes in order, e.g. an optimization the added outputs prevent), or
// when the model keeps weights in external data beside it outside `dir`.
Expected<std::optional<CrashingNode>> locate_crashing_node(const OnnxRunner& runner, const std::string& model,
                                                           const std::string& input_paths, int signal,
                                                           const std::string& dir);

}  // namespace kiln::onnx
