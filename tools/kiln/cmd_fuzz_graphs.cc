// kiln fuzz-graphs [--seed S] [--count N | --seconds T] [--emit-dir DIR] [--batch K]
//                  [--max-nodes M] [--grad] [--print] [FILE]
// The random-graph differential fuzzer (src/fuzz/, docs/FUZZING.md): graph i is drawn from
// seed S+i and run in the interpreter and compiled for the CPU on inputs drawn from the same
// seed; each mismatch prints one line "seed N: what differs" and, with --emit-dir, the graph
// as DIR/seed-N.kir and its inputs as DIR/seed-N.in<k>.npy, which `kiln run --device=cpu
// --check --inputs ...` runs again. Exit status 1 when any graph disagrees. --grad draws
// differentiable graphs (f64 inputs, ops with derivative rules) and checks their gradients
// against finite differences and their joint graphs compiled against the interpreter. --seconds keeps
// drawing graphs until that much time has passed (the long run); --print only prints the
// graphs. With FILE, its first graph is checked instead, on the inputs of seed S (a graph
// emitted by an earlier run, edited to find the node at fault). Kernels compile into a
// private cache directory, removed at exit.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>

#include "command_line.h"
#include "commands.h"
#include "core/npy.h"
#include "fuzz/choices.h"
#include "fuzz/differential.h"
#include "fuzz/fuzz_inputs.h"
#include "fuzz/gradient_check.h"
#include "fuzz/graph_generator.h"
#include "ir/parser.h"
#include "ir/printer.h"

namespace kiln::cli {

namespace {

constexpr const char* kUsage =
    "usage: kiln fuzz-graphs [--seed S] [--count N | --seconds T] [--emit-dir DIR] [--batch K]\n"
    "                        [--max-nodes M] [--grad] [--print] [FILE]\n";

struct FuzzArgs {
  uint64_t seed = 0;
  int64_t count = 100;
  double seconds = 0;  // > 0: run until this much time has passed, count ignored
  std::string emit_dir;
  int batch = 16;
  int max_nodes = 8;
  bool print = false;
  bool grad = false;
  std::string file;  // check this graph instead of drawing
};

// The exit status when the command ends here (2 after a usage error, 0 after --help), else
// nullopt with `o` filled in.
std::optional<int> parse_args(const Args& args, FuzzArgs& o) {
  CommandLine cl("fuzz-graphs", kUsage);
  cl.option("--seed", "an integer").option("--count", "an integer").option("--seconds", "an integer");
  cl.option("--batch", "an integer").option("--max-nodes", "an integer").option("--emit-dir", "a directory");
  cl.flag("--grad").flag("--print").files(0, 1, "[FILE]");
  if (std::optional<int> rc = cl.parse(args)) return rc;
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max(), kMaxInt = std::numeric_limits<int>::max();
  o.seed = static_cast<uint64_t>(cl.integer("--seed", 0, kMax).value_or(0));
  o.count = cl.integer("--count", 1, kMax).value_or(o.count);
  o.seconds = static_cast<double>(cl.integer("--seconds", 1, kMax).value_or(0));
  o.batch = static_cast<int>(cl.integer("--batch", 1, kMaxInt).value_or(o.batch));
  o.max_nodes = static_cast<int>(cl.integer("--max-nodes", 1, kMaxInt).value_or(o.max_nodes));
  o.emit_dir = cl.nonempty("--emit-dir").value_or("");
  o.grad = cl.has("--grad");
  o.print = cl.has("--print");
  if (!cl.positionals().empty()) o.file = cl.positionals()[0];
  return cl.failed() ? std::optional<int>(2) : std::nullopt;
}

// The graph and its inputs, for `kiln run DIR/seed-N.kir --device=cpu --check --inputs ...`.
bool emit(const FuzzArgs& o, uint64_t seed, const Graph& g, const std::string& what) {
  const std::filesystem::path stem = std::filesystem::path(o.emit_dir) / ("seed-" + std::to_string(seed));
  std::string inputs;
  const std::vector<Tensor> values = fuzz::fuzz_inputs(g, seed);
  for (size_t k = 0; k < values.size(); ++k) {
    const std::string file = stem.string() + ".in" + std::to_string(k) + ".npy";
    if (Status s = write_npy(file, values[k]); !s) return fail(s.error()) == 0;
    inputs += (k ? "," : "") + file;
  }
  std::ofstream out(stem.string() + ".kir");
  out << "// kiln fuzz-graphs --seed " << seed << (o.grad ? " --grad" : "") << " --count 1: " << what << "\n"
      << "// kiln run " << stem.string() << ".kir --device=cpu --check" << (inputs.empty() ? "" : " --inputs " + inputs)
      << "\n"
      << print_graph(g);
  if (!out) {
    std::fprintf(stderr, "kiln fuzz-graphs: cannot write %s.kir\n", stem.string().c_str());
    return false;
  }
  return true;
}

// A kernel cache of this run only: drawn graphs would fill the user's cache with kernels no
// one runs again.
class ScratchCache {
 public:
  ScratchCache() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/kiln-fuzz-XXXXXX";
    if (mkdtemp(pattern.data())) path_ = pattern;
  }
  ~ScratchCache() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace

int cmd_fuzz_graphs(const Args& args) {
  FuzzArgs o;
  if (std::optional<int> rc = parse_args(args, o)) return *rc;
  std::unique_ptr<Graph> given;
  if (!o.file.empty()) {
    std::string text;
    if (!read_file(o.file, text)) return 1;
    Expected<std::vector<std::unique_ptr<Graph>>> graphs = parse_graphs(text, o.file);
    if (!graphs) return fail(graphs.error());
    given = std::move(graphs->front());
    o.count = 1;
    o.seconds = 0;
  }
  fuzz::GeneratorOptions generator;
  generator.max_nodes = o.max_nodes;
  if (o.grad) generator = fuzz::differentiable_options(generator);
  if (!o.emit_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.emit_dir, ec);
    if (ec) return fail(make_error("fuzz-graphs: cannot create the directory ", o.emit_dir, ": ", ec.message()));
  }
  const ScratchCache cache;
  fuzz::DifferentialOptions differential;
  differential.batch = o.batch;
  differential.cpu.compile.cache_dir = cache.path();

  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  int64_t drawn = 0, mismatches = 0;
  uint64_t seed = o.seed;
  // Rounds of a few batches, so that findings print as they come.
  while (o.seconds > 0 ? elapsed() < o.seconds : drawn < o.count) {
    std::vector<fuzz::FuzzCase> cases;
    for (int64_t k = 0; k < 4 * o.batch && (o.seconds > 0 || drawn < o.count); ++k, ++drawn, ++seed) {
      fuzz::SeededChoices choices(seed);
      cases.push_back({seed, given ? given->clone() : fuzz::generate_graph(choices, generator)});
      if (o.print)
        std::printf("// seed %llu\n%s\n", static_cast<unsigned long long>(seed),
                    print_graph(*cases.back().graph).c_str());
    }
    if (o.print) continue;
    const std::vector<fuzz::Finding> findings =
        o.grad ? fuzz::check_gradient_cases(cases, differential) : fuzz::check_cases(cases, differential);
    for (const fuzz::Finding& f : findings) {
      ++mismatches;
      std::printf("seed %llu: %s\n", static_cast<unsigned long long>(f.seed), f.what.c_str());
      std::fflush(stdout);
      if (!o.emit_dir.empty()) {
        auto c = std::find_if(cases.begin(), cases.end(), [&](const fuzz::FuzzCase& x) { return x.seed == f.seed; });
        if (!emit(o, f.seed, f.graph ? *f.graph : *c->graph, f.what)) return 1;
      }
    }
  }
  if (o.print) return 0;
  std::printf("fuzz-graphs: %lld graphs (seeds %llu to %llu), %lld mismatch%s, %.0f s\n", static_cast<long long>(drawn),
              static_cast<unsigned long long>(o.seed), static_cast<unsigned long long>(seed - 1),
              static_cast<long long>(mismatches), mismatches == 1 ? "" : "es", elapsed());
  return mismatches ? 1 : 0;
}

}  // namespace kiln::cli
