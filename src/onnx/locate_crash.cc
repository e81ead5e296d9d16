#include "onnx/locate_crash.h"

#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>

namespace kiln::onnx {

namespace {

namespace fs = std::filesystem;

// `m` with only its first `k` nodes, each of their results a graph output.
::onnx::ModelProto cut_after(const ::onnx::ModelProto& m, int k) {
  ::onnx::ModelProto cut = m;
  ::onnx::GraphProto& g = *cut.mutable_graph();
  g.mutable_node()->DeleteSubrange(k, g.node_size() - k);
  g.clear_output();
  for (const ::onnx::NodeProto& n : g.node())
    for (const std::string& o : n.output())
      if (!o.empty()) g.add_output()->set_name(o);
  return cut;
}

// Whether the weights live in a file beside `model` that a cut written to `dir` would not find.
bool external_data_elsewhere(const ::onnx::ModelProto& m, const std::string& model, const std::string& dir) {
  std::error_code ec;
  if (fs::equivalent(fs::absolute(model).parent_path(), dir, ec)) return false;
  for (const ::onnx::TensorProto& t : m.graph().initializer())
    if (t.data_location() == ::onnx::TensorProto::EXTERNAL) return true;
  return false;
}

}  // namespace

Expected<std::optional<CrashingNode>> locate_crashing_node(const OnnxRunner& runner, const std::string& model,
                                                           const std::string& input_paths, int signal,
                                                           const std::string& dir) {
  ::onnx::ModelProto m;
  {
    std::ifstream f(model, std::ios::binary);
    if (!f || !m.ParseFromIstream(&f)) return make_error("cannot read ", model, " to find the node that crashes");
  }
  const int n = m.graph().node_size();
  if (n == 0 || external_data_elsewhere(m, model, dir)) return std::optional<CrashingNode>();
  const std::string cut_path = dir + "/cut.onnx";
  auto dies = [&](int k) -> Expected<bool> {
    {
      std::ofstream f(cut_path, std::ios::binary);
      if (!f || !cut_after(m, k).SerializeToOstream(&f)) return make_error("cannot write ", cut_path);
    }
    KILN_ASSIGN_OR_RETURN(ProcessResult r, runner.run(cut_path, input_paths, dir + "/cut_out"));
    const std::optional<RunnerFailure> failure = runner_failure(r);
    return failure && failure->signal == signal;
  };
  // The cut after `lo` nodes runs; the cut after `hi` dies (for hi = n: checked at the end).
  int lo = 0, hi = n;
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    KILN_ASSIGN_OR_RETURN(const bool died, dies(mid));
    (died ? hi : lo) = mid;
  }
  if (hi == n) {
    KILN_ASSIGN_OR_RETURN(const bool died, dies(n));
    if (!died) return std::optional<CrashingNode>();
  }
  const ::onnx::NodeProto& node = m.graph().node(hi - 1);
  CrashingNode crashing{.index = hi - 1, .num_nodes = n, .name = node.name(), .op_type = node.op_type()};
  for (const std::string& o : node.output()) crashing.outputs.push_back(o);
  for (int i = hi; i < n; ++i)
    for (const std::string& o : m.graph().node(i).output()) crashing.later_outputs.push_back(o);
  return std::optional<CrashingNode>(std::move(crashing));
}

}  // namespace kiln::onnx
