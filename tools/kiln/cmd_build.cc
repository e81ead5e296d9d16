// kiln build FILE --emit=loops [--no-fuse | --no-schedule] [--check [--seed=N]]
// kiln build FILE --device=cpu --emit=cpp
// kiln build FILE --parse-loops
// Lowers each graph of FILE to the loop IR and prints it (--no-fuse: one kernel per node, no
// inlining of elementwise producers; --no-schedule: inlining, but no kernel merging). --check
// also runs the loop-IR evaluator and the reference interpreter on the same seeded random inputs and fails (exit 1)
// naming the output and its worst element when they differ beyond the dtype's tolerance.
// --emit=cpp prints the C++ the CPU backend generates from the loop IR instead (one unit per
// graph, every kernel; docs/CODEGEN.md); `kiln run --device=cpu` compiles and runs it.
// --parse-loops reads FILE as loop IR (one or more programs) and prints it back (the round-trip test).
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "codegen/cpp/cpp_emitter.h"
#include "commands.h"
#include "core/random.h"
#include "interp/interpreter.h"
#include "ir/parser.h"
#include "lower/loop_eval.h"
#include "lower/loop_text.h"
#include "lower/lower.h"
#include "runtime/cpu/compile_graph.h"

namespace kiln::cli {

namespace {

constexpr const char* kBuildUsage =
    "usage: kiln build FILE --emit=loops [--no-fuse | --no-schedule] [--check] [--seed=N]\n"
    "       kiln build FILE --device=cpu --emit=cpp [--no-fuse | --no-schedule]\n"
    "       kiln build FILE --parse-loops\n";

int usage_error(const std::string& msg) {
  std::fprintf(stderr, "kiln build: %s\n%s", msg.c_str(), kBuildUsage);
  return 2;
}

int fail(const Diagnostic& d) {
  std::fprintf(stderr, "%s\n", d.to_string().c_str());
  return 1;
}

std::vector<Tensor> random_inputs(const LoopProgram& p, uint64_t seed) {
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    const Buffer& b = p.buffers[static_cast<size_t>(p.inputs[i])];
    const uint64_t s = random_u64(RandomStream{seed, 0}, static_cast<uint64_t>(i));
    if (is_floating(b.dtype)) inputs.push_back(Tensor::randn(b.sizes, s, b.dtype));
    else if (b.dtype == DType::Bool) inputs.push_back(Tensor::randint(0, 2, b.sizes, s, DType::I64).to(DType::Bool));
    else inputs.push_back(Tensor::randint(is_signed(b.dtype) ? -8 : 0, is_signed(b.dtype) ? 8 : 16, b.sizes, s, b.dtype));
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

}  // namespace

int cmd_build(const Args& args) {
  std::string file, emit, device;
  bool do_check = false, parse_only = false;
  uint64_t seed = 0;
  LowerOptions lower_options;
  for (const std::string& a : args) {
    if (a.rfind("--emit=", 0) == 0) {
      emit = a.substr(7);
      if (emit != "loops" && emit != "cpp") return usage_error("unknown --emit value '" + emit + "' (loops or cpp)");
    } else if (a.rfind("--device=", 0) == 0) {
      device = a.substr(9);
      if (device != "cpu" && device != "interpreter")
        return usage_error("unknown --device '" + device + "' (cpu or interpreter)");
    } else if (a == "--check") {
      do_check = true;
    } else if (a == "--no-fuse") {
      lower_options.fuse = false;
    } else if (a == "--no-schedule") {
      lower_options.schedule.merge_pointwise = false;
      lower_options.schedule.fuse_rows = false;
    } else if (a == "--parse-loops") {
      parse_only = true;
    } else if (a.rfind("--seed=", 0) == 0) {
      try {
        seed = std::stoull(a.substr(7));
      } catch (...) {
        return usage_error("--seed needs a non-negative integer");
      }
    } else if (a == "--help" || a == "-h") {
      std::fputs(kBuildUsage, stdout);
      return 0;
    } else if (a.rfind("-", 0) == 0) {
      return usage_error("unknown option '" + a + "'");
    } else if (file.empty()) {
      file = a;
    } else {
      return usage_error("more than one FILE");
    }
  }
  if (file.empty()) return usage_error("no FILE given");
  if (parse_only && (do_check || !emit.empty() || !device.empty())) return usage_error("--parse-loops takes no other options");
  if (!parse_only && emit.empty()) return usage_error("give --emit=loops, --emit=cpp or --parse-loops");
  if (emit == "cpp" && device != "cpu") return usage_error("--emit=cpp is the CPU backend's: give --device=cpu");
  if (emit == "cpp" && do_check)
    return usage_error("--check runs the loop-IR evaluator; to check compiled code use kiln run --device=cpu --check");
  std::string text;
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
  for (const auto& g : *graphs) {
    // The CPU backend decomposes composite ops first (runtime/cpu/compile_graph.h).
    Expected<LoopProgram> p =
        device == "cpu" ? lower_graph_cpu(*g, CpuGraphOptions{.lower = lower_options}) : lower_graph(*g, lower_options);
    if (!p) return fail(p.error());
    if (emit == "cpp") {
      std::fputs(emit_cpp(*p).c_str(), stdout);
      continue;
    }
    std::fputs(print_loops(*p).c_str(), stdout);
    if (do_check)
      if (int status = check(*g, *p, seed)) return status;
  }
  return 0;
}

}  // namespace kiln::cli
