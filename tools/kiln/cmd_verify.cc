// kiln verify FILE [model.onnx] [--inputs a.npy,... | --random-inputs SEED [--dim B=4,...]]
//              [--rtol R] [--atol A] [--acceptable-error-percentage P] [--intermediates]
//              [--backend=ort|reference] [--opset N] [--dynamic]
// Exports the first graph of FILE (or takes model.onnx, exported by kiln from it), runs the
// model in ONNX Runtime (or ONNX's reference evaluator) and the graph in kiln's interpreter on
// the same inputs, and prints the comparison as a table (docs/ONNX.md). Exit status 1 when an
// output (or, with --intermediates, an intermediate value) differs beyond tolerance.
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "command_line.h"
#include "commands.h"
#include "ir/parser.h"
#include "onnx/verify.h"

namespace kiln::cli {

namespace {

constexpr const char* kVerifyUsage =
    "usage: kiln verify FILE [model.onnx] [--inputs a.npy,... | --random-inputs SEED [--dim B=4,...]]\n"
    "                   [--rtol R] [--atol A] [--acceptable-error-percentage P] [--intermediates]\n"
    "                   [--backend=ort|reference] [--opset N] [--dynamic]\n";

}  // namespace

int cmd_verify(const Args& args) {
  CommandLine cl("verify", kVerifyUsage);
  declare_input_options(cl);
  for (const char* o : {"--rtol", "--atol", "--acceptable-error-percentage", "--backend", "--opset"}) cl.option(o);
  cl.flag("--intermediates").flag("--dynamic");
  cl.files(1, 2, "FILE [model.onnx]");
  if (std::optional<int> rc = cl.parse(args)) return *rc;
  const std::string file = cl.positionals()[0];
  onnx::VerifyOptions o;
  if (cl.positionals().size() > 1) o.model_path = cl.positionals()[1];
  const InputSource source = input_source(cl);
  o.rtol = cl.number("--rtol", 0, INFINITY).value_or(o.rtol);
  o.atol = cl.number("--atol", 0, INFINITY).value_or(o.atol);
  o.acceptable_error_percentage = cl.number("--acceptable-error-percentage", 0, 1);
  if (std::optional<std::string> backend = cl.value("--backend")) {
    if (*backend != "ort" && *backend != "reference")
      return cl.usage_error("--backend is ort or reference, not '" + *backend + "'");
    o.backend = *backend == "ort" ? onnx::OnnxBackend::OnnxRuntimeCpu : onnx::OnnxBackend::Reference;
  }
  o.export_options.opset =
      static_cast<int>(cl.integer("--opset", 1, std::numeric_limits<int>::max()).value_or(o.export_options.opset));
  o.compare_intermediates = cl.has("--intermediates");
  o.export_options.dynamic_batch = cl.has("--dynamic");
  if (cl.failed()) return 2;
  std::string text;
  if (!read_file(file, text) || (!o.model_path.empty() && !readable_file(o.model_path))) return 1;
  Expected<std::vector<std::unique_ptr<Graph>>> graphs = parse_graphs(text, file);
  if (!graphs) return fail(graphs.error());
  const Graph& g = *graphs->front();
  if (!source.given() && g.num_inputs() > 0) return no_inputs_given(cl, g);
  Expected<std::vector<Tensor>> inputs = graph_inputs(g, source);
  if (!inputs) return fail(inputs.error());
  Expected<onnx::VerifyReport> report = onnx::verify(g, *inputs, o);
  if (!report) return fail(report.error());
  std::printf("%s", report->to_table().c_str());
  return report->passed ? 0 : 1;
}

}  // namespace kiln::cli
