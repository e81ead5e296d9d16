// kiln run FILE [--inputs a.npy,b.npy | --random-inputs SEED [--dim B=4]] [--outputs DIR]
//               [--check-capture] [--device=interpreter|cpu|cuda[:N] [--check]]
// Parses FILE (the first graph when it holds several) or, for a FILE ending in .pt2, imports
// the torch.export archive (import/import_pt2.h): its weights come from the archive and
// --inputs gives the user inputs alone. Reads or makes its inputs, runs it,
// prints one summary line per output and, with --outputs, writes DIR/out0.npy, DIR/out1.npy,
// ... The reference interpreter runs it by default (--device=interpreter); --device=cpu lowers
// it to loop IR (specialized to the inputs' sizes when it has symbolic dims) and runs it
// compiled by the CPU backend (kernels cached in $KILN_CACHE_DIR, default ~/.cache/kiln; the
// compiler is $CXX or c++), --device=cuda[:N] compiled by the CUDA backend on that GPU (cubins
// cached there too), and --check then also runs the
// interpreter and fails (exit 1) naming the worst element of an output that differs beyond its
// dtype's tolerance. With --check-capture the graph is also replayed through the frontend,
// eagerly and captured-then-interpreted, and every output must agree exactly.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend/compile_graph.h"
#include "command_line.h"
#include "commands.h"
#include "core/npy.h"
#include "core/random.h"
#include "core/symbol_bindings.h"
#include "device_option.h"
#include "frontend/replay.h"
#include "import/import_pt2.h"
#include "interp/interpreter.h"
#include "ir/parser.h"
#include "lower/lower.h"
#include "passes/specialize_shapes.h"
#include "support/check.h"

namespace kiln::cli {

namespace {

constexpr const char* kRunUsage =
    "usage: kiln run FILE [--inputs a.npy,b.npy | --random-inputs SEED [--dim B=4,...]]\n"
    "                     [--outputs DIR] [--check-capture] [--device=interpreter|cpu|cuda[:N] [--check]]\n"
    "  FILE is graph text, or a torch.export archive (.pt2): then --inputs gives its user inputs only;\n"
    "  --device=cpu runs compiled code (cache: $KILN_CACHE_DIR or ~/.cache/kiln; compiler: $CXX or c++);\n"
    "  --device=cuda runs it compiled for the GPU (NVRTC, cubins cached in the same place);\n"
    "  --check compares it with the interpreter\n";

struct RunOptions {
  std::string file;
  InputSource inputs;
  std::string output_dir;
  std::unique_ptr<Backend> backend;  // --device=cpu; null: the interpreter
  bool check_capture = false;
  bool check = false;  // --device=cpu: compare with the interpreter
};

// The command line as RunOptions; the exit status when it ends the command (a usage error,
// --help), else nullopt.
std::optional<int> parse_args(CommandLine& cl, const Args& args, RunOptions& o) {
  declare_input_options(cl);
  cl.option("--outputs", "a directory").option("--device").flag("--check-capture").flag("--check");
  if (std::optional<int> rc = cl.parse(args)) return rc;
  o.file = cl.positionals()[0];
  o.inputs = input_source(cl);
  o.output_dir = cl.nonempty("--outputs").value_or("");
  if (std::optional<std::string> device = cl.value("--device")) {
    DeviceOption d = device_option(cl, *device, true, "cpu or interpreter");
    if (d.status) return d.status;
    o.backend = std::move(d.backend);
  }
  o.check_capture = cl.has("--check-capture");
  o.check = cl.has("--check");
  if (cl.failed()) return 2;
  if (o.check && !o.backend)
    return cl.usage_error("--check compares compiled code with the interpreter: give --device=cpu");
  if (o.check_capture && o.backend) return cl.usage_error("--check-capture is for --device=interpreter");
  return std::nullopt;
}

// "%.6g", with every NaN printed as "nan" (printf writes "-nan" for a NaN whose sign bit is set).
std::string format_number(double v) {
  if (std::isnan(v)) return "nan";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

// "out0: f32[3,4] min=-1.2 max=2.3 mean=0.1". min, max and mean are over the elements that
// are not NaN, infinities included (so the mean is inf or -inf with infinities of one sign,
// nan with both); then "nan=K" and "inf=K" count the NaN and the infinite elements when there
// are any. Only "nan=N" when every element is NaN; "(empty)" without elements; bool tensors
// count their true elements.
std::string summary(const std::string& name, const Tensor& t) {
  std::string s = name + ": " + t.type().to_string();
  const int64_t n = t.numel();
  if (n == 0) return s + " (empty)";
  if (t.dtype() == DType::Bool) {
    int64_t trues = 0;
    for (int64_t i = 0; i < n; ++i) trues += t.item_int(i) != 0;
    return s + " true=" + std::to_string(trues) + "/" + std::to_string(n);
  }
  double lo = INFINITY, hi = -INFINITY;
  long double sum = 0;  // wide enough that no sum of finite doubles overflows
  int64_t nans = 0, infs = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double v = t.item_double(i);
    if (std::isnan(v)) {
      ++nans;
      continue;
    }
    infs += std::isinf(v);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
  }
  if (nans == n) return s + " nan=" + std::to_string(nans);
  const double mean = static_cast<double>(sum / static_cast<long double>(n - nans));
  s += " min=" + format_number(lo) + " max=" + format_number(hi) + " mean=" + format_number(mean);
  if (nans) s += " nan=" + std::to_string(nans);
  if (infs) s += " inf=" + std::to_string(infs);
  return s;
}

std::string element_text(const Tensor& t, int64_t flat) {
  if (!is_floating(t.dtype())) return std::to_string(t.item_int(flat));
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.17g", t.item_double(flat));
  return buf;
}

// Why `got` (from `how`) is not exactly `want` (the interpreter's), or "" when they agree.
std::string difference(const Tensor& want, const Tensor& got) {
  if (want.equal(got)) return "";
  if (want.dtype() != got.dtype() || want.sizes() != got.sizes())
    return "the interpreter gives " + want.type().to_string() + ", this gives " + got.type().to_string();
  for (int64_t i = 0; i < want.numel(); ++i) {
    bool same;
    if (is_floating(want.dtype())) {  // as Tensor::equal: NaN equals NaN, otherwise bitwise
      double a = want.item_double(i), b = got.item_double(i);
      same = (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, sizeof a) == 0;
    } else {
      same = want.item_int(i) == got.item_int(i);
    }
    if (!same)
      return "first difference at " + index_text(want, i) + ": the interpreter gives " + element_text(want, i) +
             ", this gives " + element_text(got, i);
  }
  return "they differ";
}

// Eager replay and captured+interpreted replay must both equal the interpreter's outputs.
Status check_capture(const Graph& g, std::span<const Tensor> inputs, const std::vector<Tensor>& outputs) {
  auto compare = [&](const std::vector<Tensor>& got, const char* how) -> Status {
    if (got.size() != outputs.size())
      return make_error("--check-capture: ", how, " gives ", got.size(), " outputs, the interpreter ", outputs.size());
    for (size_t i = 0; i < got.size(); ++i) {
      std::string why = difference(outputs[i], got[i]);
      if (!why.empty()) return make_error("--check-capture: out", i, " of ", how, " differs: ", why);
    }
    return Status::ok();
  };
  Expected<std::vector<Tensor>> eager = replay_eager(g, inputs);
  if (!eager) return eager.error().add_context("in --check-capture (eager replay)");
  KILN_TRY(compare(*eager, "eager execution"));
  Expected<Captured> captured = replay_capture(g, inputs);
  if (!captured) return captured.error().add_context("in --check-capture (capture)");
  Expected<std::vector<Tensor>> replayed = captured->run(inputs);
  if (!replayed) return replayed.error().add_context("in --check-capture (interpreting the captured graph)");
  return compare(*replayed, "the captured graph");
}

// Compiles g with `backend` (backend/compile_graph.h: decompose, lower, schedule, emit, compile)
// and runs it; `names` gets the output buffers' names. A graph with symbolic input dims is
// specialized to the inputs' sizes first (passes/specialize_shapes.h), and says so.
Expected<std::vector<Tensor>> run_compiled(const Graph& g, const Backend& backend, std::span<const Tensor> inputs,
                                           std::vector<std::string>& names) {
  std::optional<Specialized> specialized;
  if (has_symbolic_inputs(g)) {
    KILN_ASSIGN_OR_RETURN(specialized, specialize_shapes(g, inputs));
    std::printf("specialized @%s to %s\n", g.name().c_str(), symbol_values_text(specialized->symbols).c_str());
  }
  KILN_ASSIGN_OR_RETURN(CompiledGraph compiled, compile_graph(specialized ? *specialized->graph : g, backend));
  const LoopProgram& p = compiled.executable().program();
  for (int b : p.outputs) names.push_back(p.buffers[static_cast<size_t>(b)].name);
  return compiled.run(inputs);
}

// Every input of an imported archive's graph: its weights, and the user inputs from --inputs
// (one file per user input) or --random-inputs. An archive without user inputs needs neither.
Expected<std::vector<Tensor>> archive_inputs(const ImportedProgram& m, const RunOptions& o) {
  const Graph& g = *m.graph;
  std::vector<int> user;
  for (int i = 0; i < g.num_inputs(); ++i)
    if (g.input(i)->role() == InputRole::Input) user.push_back(i);
  std::vector<Tensor> given;
  if (!user.empty()) {
    KILN_ASSIGN_OR_RETURN(given, graph_inputs(g, o.inputs, user, o.file + " (graph @" + g.name() + ")"));
  }
  return m.inputs_with(given);
}

}  // namespace

int cmd_run(const Args& args) {
  CommandLine cl("run", kRunUsage);
  RunOptions o;
  if (std::optional<int> rc = parse_args(cl, args, o)) return *rc;

  std::optional<ImportedProgram> imported;
  std::vector<std::unique_ptr<Graph>> graphs;
  if (o.file.ends_with(".pt2")) {
    if (!readable_file(o.file)) return 1;
    Expected<ImportedProgram> m = import_pt2(o.file);
    if (!m) return fail(m.error());
    imported = std::move(*m);
  } else {
    std::string text;
    if (!read_file(o.file, text)) return 1;
    Expected<std::vector<std::unique_ptr<Graph>>> parsed = parse_graphs(text, o.file);
    if (!parsed) return fail(parsed.error());
    KILN_CHECK(!parsed->empty()) << "parse_graphs accepted a file without graphs";
    graphs = std::move(*parsed);
  }
  const Graph& g = imported ? *imported->graph : *graphs.front();

  if (!o.inputs.given() && (imported ? !imported->user_inputs.empty() : g.num_inputs() > 0))
    return no_inputs_given(cl, g);
  Expected<std::vector<Tensor>> inputs = imported ? archive_inputs(*imported, o) : graph_inputs(g, o.inputs);
  if (!inputs) return fail(inputs.error());

  // --check runs the interpreter on the inputs as they were: a graph may write its inputs.
  std::vector<Tensor> pristine;
  if (o.check)
    for (const Tensor& t : *inputs) pristine.push_back(t.clone());
  std::vector<std::string> names;
  Expected<std::vector<Tensor>> outputs =
      o.backend ? run_compiled(g, *o.backend, *inputs, names) : interpret(g, *inputs);
  if (!outputs) return fail(outputs.error());

  if (!o.output_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.output_dir, ec);
    if (ec) return fail(make_error("cannot create the output directory ", o.output_dir, ": ", ec.message()));
  }
  for (size_t i = 0; i < outputs->size(); ++i) {
    std::string name = "out" + std::to_string(i);
    std::printf("%s\n", summary(name, (*outputs)[i]).c_str());
    if (!o.output_dir.empty()) {
      Status s = write_npy((std::filesystem::path(o.output_dir) / (name + ".npy")).string(), (*outputs)[i]);
      if (!s) return fail(s.error());
    }
  }
  if (o.check) {
    Expected<std::vector<Tensor>> want = interpret(g, pristine);
    if (!want) return fail(want.error());
    const std::string device = o.backend->device().to_string();
    if (!outputs_agree("run", device, *want, *outputs, names)) return 1;
    if (!written_inputs_agree("run", device, g, pristine, *inputs)) return 1;
    std::printf("check: %zu output%s of the %s backend agree with the interpreter\n", outputs->size(),
                outputs->size() == 1 ? "" : "s", device.c_str());
  }
  if (o.check_capture) {
    Status s = check_capture(g, *inputs, *outputs);
    if (!s) return fail(s.error());
    std::printf("check-capture: eager, captured and interpreted outputs agree exactly\n");
  }
  return 0;
}

}  // namespace kiln::cli
