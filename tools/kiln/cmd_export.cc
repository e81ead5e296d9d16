// kiln export FILE -o model.onnx [--opset N] [--dynamic] [--training]
//                  [--keep-initializers-as-inputs] [--input-names a,b] [--output-names y]
// Exports the first graph of FILE to ONNX (docs/ONNX.md); the model passes ONNX's checker and
// shape inference before it is written. Prints one line: the model's inputs and outputs.
#include <cstdio>
#include <string>

#include "commands.h"
#include "ir/parser.h"
#include "onnx/export.h"

namespace kiln::cli {

namespace {

constexpr const char* kExportUsage =
    "usage: kiln export FILE -o model.onnx [--opset N] [--dynamic] [--training]\n"
    "                   [--keep-initializers-as-inputs] [--input-names a,b] [--output-names y,z]\n";

int usage_error(const std::string& msg) {
  std::fprintf(stderr, "kiln export: %s\n%s", msg.c_str(), kExportUsage);
  return 2;
}

}  // namespace

int cmd_export(const Args& args) {
  std::string file, out;
  onnx::ExportOptions o;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    std::string value;
    const size_t eq = a.find('=');
    const bool takes_value = a == "-o" || a.rfind("--opset", 0) == 0 || a.rfind("--input-names", 0) == 0 ||
                             a.rfind("--output-names", 0) == 0;
    if (takes_value) {
      if (eq != std::string::npos) {
        value = a.substr(eq + 1);
        a = a.substr(0, eq);
      } else if (i + 1 < args.size()) {
        value = args[++i];
      } else {
        return usage_error(a + " needs a value");
      }
    }
    if (a == "-o") {
      out = value;
    } else if (a == "--opset") {
      const std::optional<int64_t> n = parse_int(value);
      if (!n) return usage_error("--opset needs an integer, not '" + value + "'");
      o.opset = static_cast<int>(*n);
    } else if (a == "--input-names") {
      o.input_names = split(value, ',');
    } else if (a == "--output-names") {
      o.output_names = split(value, ',');
    } else if (a == "--dynamic") {
      o.dynamic_batch = true;
    } else if (a == "--training") {
      o.training = true;
    } else if (a == "--keep-initializers-as-inputs") {
      o.keep_initializers_as_inputs = true;
    } else if (!a.empty() && a[0] == '-') {
      return usage_error("unknown option " + a);
    } else if (file.empty()) {
      file = a;
    } else {
      return usage_error("one FILE only");
    }
  }
  if (file.empty()) return usage_error("missing FILE");
  if (out.empty()) return usage_error("missing -o model.onnx");
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
