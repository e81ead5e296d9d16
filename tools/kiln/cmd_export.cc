// kiln export FILE -o model.onnx [--opset N] [--dynamic] [--training]
//                  [--keep-initializers-as-inputs] [--input-names a,b] [--output-names y]
// Exports the first graph of FILE to ONNX (docs/ONNX.md); the model passes ONNX's checker and
// shape inference before it is written. Prints one line: the model's inputs and outputs.
#include <cstdio>
#include <limits>
#include <string>

#include "command_line.h"
#include "commands.h"
#include "ir/parser.h"
#include "onnx/export.h"

namespace kiln::cli {

namespace {

constexpr const char* kExportUsage =
    "usage: kiln export FILE -o model.onnx [--opset N] [--dynamic] [--training]\n"
    "                   [--keep-initializers-as-inputs] [--input-names a,b] [--output-names y,z]\n";

}  // namespace

int cmd_export(const Args& args) {
  CommandLine cl("export", kExportUsage);
  cl.option("-o", "a file name").option("--opset").option("--input-names").option("--output-names");
  cl.flag("--dynamic").flag("--training").flag("--keep-initializers-as-inputs");
  if (std::optional<int> rc = cl.parse(args)) return *rc;
  const std::string file = cl.positionals()[0];
  const std::string out = cl.value("-o").value_or("");
  onnx::ExportOptions o;
  o.opset = static_cast<int>(cl.integer("--opset", 1, std::numeric_limits<int>::max()).value_or(o.opset));
  o.input_names = cl.list("--input-names");
  o.output_names = cl.list("--output-names");
  o.dynamic_batch = cl.has("--dynamic");
  o.training = cl.has("--training");
  o.keep_initializers_as_inputs = cl.has("--keep-initializers-as-inputs");
  if (cl.failed()) return 2;
  if (out.empty()) return cl.usage_error("missing -o model.onnx");
  std::string text;
  if (!read_file(file, text)) return 1;
  Expected<std::vector<std::unique_ptr<Graph>>> graphs = parse_graphs(text, file);
  if (!graphs) return fail(graphs.error());
  const Graph& g = *graphs->front();
  Expected<onnx::ExportedModel> m = onnx::export_graph(g, {}, o);
  if (!m) return fail(m.error());
  Status saved = m->save(out, o.external_data_threshold);
  if (!saved) return fail(saved.error());
  std::string ins, outs;
  for (const std::string& n : m->input_names()) ins += (ins.empty() ? "" : ", ") + n;
  for (const std::string& n : m->output_names()) outs += (outs.empty() ? "" : ", ") + n;
  std::printf("exported @%s to %s (opset %d): inputs %s; outputs %s\n", g.name().c_str(), out.c_str(), o.opset,
              ins.c_str(), outs.c_str());
  return 0;
}

}  // namespace kiln::cli
