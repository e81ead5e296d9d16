// kiln verify FILE [model.onnx] [--inputs a.npy,... | --random-inputs SEED [--dim B=4,...]]
//              [--rtol R] [--atol A] [--acceptable-error-percentage P] [--intermediates]
//              [--backend=ort|reference] [--opset N] [--dynamic]
// Exports the first graph of FILE (or takes model.onnx, exported by kiln from it), runs the
// model in ONNX Runtime (or ONNX's reference evaluator) and the graph in kiln's interpreter on
// the same inputs, and prints the comparison as a table (docs/ONNX.md). Exit status 1 when an
// output (or, with --intermediates, an intermediate value) differs beyond tolerance.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "commands.h"
#include "ir/parser.h"
#include "onnx/verify.h"

namespace kiln::cli {

namespace {

constexpr const char* kVerifyUsage =
    "usage: kiln verify FILE [model.onnx] [--inputs a.npy,... | --random-inputs SEED [--dim B=4,...]]\n"
    "                   [--rtol R] [--atol A] [--acceptable-error-percentage P] [--intermediates]\n"
    "                   [--backend=ort|reference] [--opset N] [--dynamic]\n";

int usage_error(const std::string& msg) {
  std::fprintf(stderr, "kiln verify: %s\n%s", msg.c_str(), kVerifyUsage);
  return 2;
}

std::optional<double> parse_double(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

int cmd_verify(const Args& args) {
  std::string file;
  std::vector<std::string> input_files;
  std::optional<uint64_t> seed;
  std::map<std::string, int64_t> dims;
  onnx::VerifyOptions o;
  static const std::vector<std::string> kValued = {"--inputs", "--random-inputs", "--dim", "--rtol", "--atol",
                                                   "--acceptable-error-percentage", "--backend", "--opset"};
  for (size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i], value;
    const size_t eq = a.find('=');
    const std::string key = eq == std::string::npos ? a : a.substr(0, eq);
    if (std::find(kValued.begin(), kValued.end(), key) != kValued.end()) {
      if (eq != std::string::npos) {
        value = a.substr(eq + 1);
      } else if (i + 1 < args.size()) {
        value = args[++i];
      } else {
        return usage_error(key + " needs a value");
      }
      a = key;
    }
    if (a == "--inputs") {
      input_files = split(value, ',');
    } else if (a == "--random-inputs") {
      const std::optional<int64_t> s = parse_int(value);
      if (!s || *s < 0) return usage_error("--random-inputs needs a non-negative integer seed, not '" + value + "'");
      seed = static_cast<uint64_t>(*s);
    } else if (a == "--dim") {
      for (const std::string& kv : split(value, ',')) {
        const size_t e = kv.find('=');
        const std::optional<int64_t> n = e == std::string::npos ? std::nullopt : parse_int(kv.substr(e + 1));
        if (!n || *n < 0) return usage_error("--dim takes NAME=N, not '" + kv + "'");
        dims[kv.substr(0, e)] = *n;
      }
    } else if (a == "--rtol" || a == "--atol" || a == "--acceptable-error-percentage") {
      const std::optional<double> v = parse_double(value);
      if (!v || *v < 0) return usage_error(a + " needs a non-negative number, not '" + value + "'");
      if (a == "--rtol") o.rtol = *v;
      else if (a == "--atol") o.atol = *v;
      else o.acceptable_error_percentage = *v;
    } else if (a == "--backend") {
      if (value != "ort" && value != "reference") return usage_error("--backend is ort or reference, not '" + value + "'");
      o.backend = value == "ort" ? onnx::OnnxBackend::OnnxRuntimeCpu : onnx::OnnxBackend::Reference;
    } else if (a == "--opset") {
      const std::optional<int64_t> n = parse_int(value);
      if (!n) return usage_error("--opset needs an integer, not '" + value + "'");
      o.export_options.opset = static_cast<int>(*n);
    } else if (a == "--intermediates") {
      o.compare_intermediates = true;
    } else if (a == "--dynamic") {
      o.export_options.dynamic_batch = true;
    } else if (!a.empty() && a[0] == '-') {
      return usage_error("unknown option " + a);
    } else if (file.empty()) {
      file = a;
    } else if (o.model_path.empty()) {
      o.model_path = a;
    } else {
      return usage_error("at most FILE and one model.onnx");
    }
  }
  if (file.empty()) return usage_error("missing FILE");
  if (seed && !input_files.empty()) return usage_error("give --inputs or --random-inputs, not both");
  std::string text;
  if (!read_file(file, text)) return 1;
  Expected<std::vector<std::unique_ptr<Graph>>> graphs = parse_graphs(text, file);
  if (!graphs) return fail(graphs.error());
  const Graph& g = *graphs->front();
  if (!seed && input_files.empty() && g.num_inputs() > 0)
    return usage_error("graph @" + g.name() + " has inputs: give --inputs a.npy,... or --random-inputs SEED");
  Expected<std::vector<Tensor>> inputs = seed ? random_inputs(g, *seed, dims) : read_inputs(g, input_files);
  if (!inputs) return fail(inputs.error());
  Expected<onnx::VerifyReport> report = onnx::verify(g, *inputs, o);
  if (!report) return fail(report.error());
  std::printf("%s", report->to_table().c_str());
  return report->passed ? 0 : 1;
}

}  // namespace kiln::cli
