// kiln build FILE --emit=loops [--no-fuse | --no-schedule] [--check [--seed=N]]
// kiln build FILE --device=cpu --emit=cpp
// kiln build FILE --device=cuda --emit=cuda
// kiln build FILE --device=cpu|cuda --report DIR [--emit=cpp|cuda]
// kiln build FILE --parse-loops
// Lowers each graph of FILE to the loop IR and prints it (--no-fuse: one kernel per node, no
// inlining of elementwise producers; --no-schedule: inlining, but no kernel merging). --check
// also runs the loop-IR evaluator and the reference interpreter on the same seeded random inputs and fails (exit 1)
// naming the output and its worst element when they differ beyond the dtype's tolerance.
// --emit=cpp prints the C++ the CPU backend generates from the loop IR instead (one unit per
// graph, every kernel; docs/CODEGEN.md); `kiln run --device=cpu` compiles and runs it.
// --emit=cuda prints the CUDA C++ the CUDA backend generates (one NVRTC source per graph:
// the prelude and every kernel, each with its launch; docs/CUDA_CODEGEN.md).
// --report DIR compiles each graph with the device's backend and writes a compile report to DIR
// (docs/REPORT.md: graphs, kernels, planned memory, time per phase; `capture` is parsing FILE).
// Where the device's backend cannot run here (Backend::available: CUDA without a GPU), each
// graph is reported as the backend describes it without loading (the CUDA kernels compiled to
// cubins with NVRTC for ptxas's register figures), and a line says why it is not loaded; where
// it can, a graph that fails to compile is the command's error.
// --parse-loops reads FILE as loop IR (one or more programs) and prints it back (the round-trip test).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "backend/compile_graph.h"
#include "command_line.h"
#include "commands.h"
#include "core/random.h"
#include "device_option.h"
#include "interp/interpreter.h"
#include "ir/parser.h"
#include "lower/loop_eval.h"
#include "lower/loop_text.h"
#include "lower/lower.h"
#include "report/compile_report.h"

namespace kiln::cli {

namespace {

constexpr const char* kBuildUsage =
    "usage: kiln build FILE --emit=loops [--no-fuse | --no-schedule] [--check] [--seed=N]\n"
    "       kiln build FILE --device=cpu --emit=cpp [--no-fuse | --no-schedule]\n"
    "       kiln build FILE --device=cuda --emit=cuda [--no-fuse | --no-schedule]\n"
    "       kiln build FILE --device=cpu --report DIR [--emit=cpp] [--no-fuse | --no-schedule]\n"
    "       kiln build FILE --device=cuda --report DIR [--emit=cuda] [--no-fuse | --no-schedule]\n"
    "       kiln build FILE --parse-loops\n";

std::vector<Tensor> random_inputs(const LoopProgram& p, uint64_t seed) {
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    const Buffer& b = p.buffers[static_cast<size_t>(p.inputs[i])];
    const uint64_t s = random_u64(RandomStream{seed, 0}, static_cast<uint64_t>(i));
    if (is_floating(b.dtype))
      inputs.push_back(Tensor::randn(b.sizes, s, b.dtype));
    else if (b.dtype == DType::Bool)
      inputs.push_back(Tensor::randint(0, 2, b.sizes, s, DType::I64).to(DType::Bool));
    else
      inputs.push_back(Tensor::randint(is_signed(b.dtype) ? -8 : 0, is_signed(b.dtype) ? 8 : 16, b.sizes, s, b.dtype));
  }
  return inputs;
}

// Compares every output; prints the worst element of the first that differs.
int check(const Graph& g, const LoopProgram& p, uint64_t seed) {
  // Each side gets its own copy of the inputs: a graph may write them (copy_, in-place ops).
  const std::vector<Tensor> inputs = random_inputs(p, seed);
  std::vector<Tensor> interpreted;
  for (const Tensor& t : inputs) interpreted.push_back(t.clone());
  Expected<std::vector<Tensor>> want = interpret(g, interpreted);
  if (!want) return fail(want.error());
  Expected<std::vector<Tensor>> got = eval_loops(p, inputs);
  if (!got) return fail(got.error());
  std::vector<std::string> names;
  for (int b : p.outputs) names.push_back(p.buffers[static_cast<size_t>(b)].name);
  if (!outputs_agree("build", "loops", *want, *got, names)) return 1;
  if (!written_inputs_agree("build", "loops", g, interpreted, inputs)) return 1;
  std::printf("// check: %zu output%s agree with the interpreter (seed %llu)\n", want->size(),
              want->size() == 1 ? "" : "s", static_cast<unsigned long long>(seed));
  return 0;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Adds `g` to the report as `backend` describes it without loading (Backend::describe), where
// the backend is not available here (`load_error`: no GPU, say): the report and a line on stdout
// say why it is not loaded. Errors: lowering's and describing's.
Status add_described(CompileReport& r, const Graph& g, const Backend& backend, const GraphCompileOptions& options,
                     const Diagnostic& load_error) {
  KILN_ASSIGN_OR_RETURN(LoopProgram p, lower_graph_for(g, backend, options));
  Expected<DescribedProgram> d = backend.describe(p);
  if (!d) return d.error().add_context("while describing @" + g.name() + " (not loaded: " + load_error.message() + ")");
  r.graphs.push_back(report_graph("@" + g.name() + " as parsed", g));
  r.programs.push_back(report_described_program("@" + g.name(), p, *d, backend, load_error.message()));
  if (d->target.compile) r.times.add(Phase::Compile, d->target.compile->seconds);
  std::printf("// @%s not loaded: %s\n", g.name().c_str(), load_error.message().c_str());
  for (const std::string& note : d->target.notes) std::printf("// %s\n", note.c_str());
  return Status::ok();
}

// Compiles every graph with `backend` and writes the report of all of them to `dir`.
int write_report(const std::string& file, const std::vector<std::unique_ptr<Graph>>& graphs, double parse_seconds,
                 const Backend& backend, const GraphCompileOptions& options, const std::string& dir) {
  CompileReport r{.title = file};
  r.times.add(Phase::Capture, parse_seconds);
  const Status available = backend.available();
  for (const auto& g : graphs) {
    if (!available) {
      if (Status s = add_described(r, *g, backend, options, available.error()); !s) return fail(s.error());
      continue;
    }
    Expected<CompiledGraph> c = compile_graph(*g, backend, options);
    if (!c) return fail(c.error());
    r.graphs.push_back(report_graph("@" + g->name() + " as parsed", *g));
    r.graphs.push_back(
        report_graph("@" + g->name() + " after the " + backend.name() + " backend's passes", c->graph()));
    r.programs.push_back(report_program("@" + g->name(), *c, backend));
    r.times.add(c->times());
  }
  if (Status s = write_compile_report(r, dir); !s) return fail(s.error());
  std::printf("// compile report: %s/index.html\n%s", dir.c_str(), r.times.to_text().c_str());
  return 0;
}

}  // namespace

int cmd_build(const Args& args) {
  CommandLine cl("build", kBuildUsage);
  cl.option("--report", "a directory").option("--emit").option("--device").option("--seed");
  cl.flag("--check").flag("--no-fuse").flag("--no-schedule").flag("--parse-loops");
  if (std::optional<int> rc = cl.parse(args)) return *rc;
  const std::string file = cl.positionals()[0];
  const std::string emit = cl.value("--emit").value_or("");
  const std::string report_dir = cl.nonempty("--report").value_or("");
  const bool do_check = cl.has("--check"), parse_only = cl.has("--parse-loops");
  const uint64_t seed = static_cast<uint64_t>(cl.integer("--seed", 0, std::numeric_limits<int64_t>::max()).value_or(0));
  const GraphCompileOptions graph_options{.fuse = !cl.has("--no-fuse"), .schedule = !cl.has("--no-schedule")};
  LowerOptions lower_options{.fuse = graph_options.fuse};
  lower_options.schedule.merge_pointwise = lower_options.schedule.fuse_rows = graph_options.schedule;
  std::unique_ptr<Backend> backend;  // null: lowering alone (--device=interpreter or none)
  if (std::optional<std::string> device = cl.value("--device")) {
    DeviceOption d = device_option(cl, *device, true, "cpu, cuda or interpreter");
    if (d.status) return *d.status;
    backend = std::move(d.backend);
  }
  if (cl.failed()) return 2;
  if (cl.has("--emit") && emit != "loops" && emit != "cpp" && emit != "cuda")
    return cl.usage_error("unknown --emit value '" + emit + "' (loops, cpp or cuda)");
  if (parse_only && (do_check || !emit.empty() || cl.has("--device") || !report_dir.empty()))
    return cl.usage_error("--parse-loops takes no other options");
  if (!report_dir.empty() && !backend) return cl.usage_error("--report compiles: give --device=cpu or --device=cuda");
  if (!report_dir.empty() && (do_check || emit == "loops"))
    return cl.usage_error("--report takes --emit=cpp or --emit=cuda only (the report holds the loop IR)");
  if (!parse_only && emit.empty() && report_dir.empty())
    return cl.usage_error("give --emit=loops, --emit=cpp, --emit=cuda, --report DIR or --parse-loops");
  if (emit == "cpp" && (!backend || backend->device().kind() != Device::Kind::Cpu))
    return cl.usage_error("--emit=cpp is the CPU backend's: give --device=cpu");
  if (emit == "cuda" && (!backend || backend->device().kind() != Device::Kind::Cuda))
    return cl.usage_error("--emit=cuda is the CUDA backend's: give --device=cuda");
  if ((emit == "cpp" || emit == "cuda") && do_check)
    return cl.usage_error(
        "--check runs the loop-IR evaluator; to check compiled code use kiln run --device=cpu --check");
  std::string text;
  const auto t0 = std::chrono::steady_clock::now();
  if (!read_file(file, text)) return 1;
  if (parse_only) {
    Expected<std::vector<LoopProgram>> programs = parse_loop_programs(text, file);
    if (!programs) return fail(programs.error());
    for (const LoopProgram& p : *programs) std::fputs(print_loops(p).c_str(), stdout);
    return 0;
  }
  auto graphs = parse_graphs(text, file);
  if (!graphs) return fail(graphs.error());
  if (graphs->empty()) return fail(make_error(file, " holds no graph"));
  const double parse_seconds = seconds_since(t0);
  for (const auto& g : *graphs) {
    if (emit.empty()) break;  // --report alone: write_report compiles them
    // A backend decomposes the composite ops it does not keep whole first (backend/compile_graph.h).
    Expected<LoopProgram> p = backend ? lower_graph_for(*g, *backend, graph_options) : lower_graph(*g, lower_options);
    if (!p) return fail(p.error());
    if (emit == "cpp" || emit == "cuda") {
      std::fputs(backend->emit(*p).c_str(), stdout);
      continue;
    }
    std::fputs(print_loops(*p).c_str(), stdout);
    if (do_check)
      if (int status = check(*g, *p, seed)) return status;
  }
  return report_dir.empty() ? 0 : write_report(file, *graphs, parse_seconds, *backend, graph_options, report_dir);
}

}  // namespace kiln::cli
