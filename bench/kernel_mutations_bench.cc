// kiln_bench_kernel_mutations [RUNS] [PYTHON]: the time kiln's kernel-mutation analysis takes
// per kernel on the corpora (tests/kernels/ttir/*.ttir, tests/kernels/cuda/*.ptx): reading the
// text and analyzing it, uncached (the registry caches it; this measures the first request),
// the median of RUNS per kernel. Beside it, in the same run, PyTorch's own analysis of the same
// Triton kernels (bench/torch_kernel_mutations.py): generating the TTIR from Python (a step kiln
// does not have: it is given the TTIR) and the analysis of the TTIR. The acceptance line: under
// 5 ms per kernel.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bench_util.h"
#include "kernels/ptx_mutation.h"
#include "kernels/ptx_reader.h"
#include "kernels/ttir_mutation.h"
#include "runtime/cpu/process.h"

using namespace kiln;
using kiln::bench::json_number;
using kiln::bench::json_string;
using kiln::bench::or_die;

namespace {

struct Row {
  std::string name, kind;
  size_t lines = 0;
  double ms = 0;
  int written = 0;
};

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

template <typename F>
double median_ms(int runs, F f) {
  std::vector<double> t;
  for (int i = 0; i < runs; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

std::vector<std::filesystem::path> files(const std::string& dir, const std::string& ext) {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ext) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

Row time_kernel(const std::filesystem::path& p, int runs) {
  const std::string text = read_text(p);
  Row r{p.stem().string(), p.extension() == ".ttir" ? "ttir" : "ptx", 0, 0, 0};
  r.lines = static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
  kernels::MutationAnalysis last;
  r.ms = median_ms(runs, [&] {
    if (r.kind == "ttir") {
      last = or_die(kernels::analyze_ttir_text(text, p.string()), "analyze_ttir");
    } else {
      kernels::PtxModule m = or_die(kernels::read_ptx(text, p.string()), "read_ptx");
      last = or_die(kernels::analyze_ptx(m), "analyze_ptx");
    }
  });
  r.written = static_cast<int>(last.written_names().size());
  return r;
}

void summary(const char* what, std::vector<double> ms) {
  if (ms.empty()) return;
  std::sort(ms.begin(), ms.end());
  std::printf("%-44s median %7.3f ms   max %7.3f ms   (%zu kernels)\n", what, ms[ms.size() / 2], ms.back(), ms.size());
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 21;
  const std::string python = argc > 2 ? argv[2] : std::string(KILN_SOURCE_DIR) + "/.venv/bin/python";
  const std::string root = std::string(KILN_SOURCE_DIR) + "/tests/kernels/";
  std::vector<Row> rows;
  for (const auto& p : files(root + "ttir", ".ttir")) rows.push_back(time_kernel(p, runs));
  for (const auto& p : files(root + "cuda", ".ptx")) rows.push_back(time_kernel(p, runs));

  Expected<ProcessResult> torch =
      run_process({python, std::string(KILN_SOURCE_DIR) + "/bench/torch_kernel_mutations.py", "--runs",
                   std::to_string(std::min(runs, 5))});
  const std::string out = torch && torch->ok() ? torch->output : "";
  if (out.empty())
    std::fprintf(stderr, "PyTorch side failed: %s\n",
                 torch ? torch->output.c_str() : torch.error().to_string().c_str());

  std::printf(
      "kernel-mutation analysis per kernel: kiln reads the IR text and analyzes it (median of %d, uncached); "
      "PyTorch generates the TTIR from Python, then analyzes it (median of %d)\n",
      runs, std::min(runs, 5));
  std::printf("%-30s %-5s %6s %8s %10s %14s %14s %12s\n", "kernel", "kind", "lines", "written", "kiln ms",
              "torch gen ms", "torch anl ms", "anl / kiln");
  std::vector<double> ttir, ptx, torch_gen, torch_anl;
  for (const Row& r : rows) {
    const double gen = json_number(out, r.name + ".generate_ms"), anl = json_number(out, r.name + ".analyze_ms");
    (r.kind == "ttir" ? ttir : ptx).push_back(r.ms);
    if (r.kind == "ttir" && anl >= 0) {
      torch_gen.push_back(gen);
      torch_anl.push_back(anl);
      std::printf("%-30s %-5s %6zu %8d %10.3f %14.2f %14.3f %11.1fx\n", r.name.c_str(), r.kind.c_str(), r.lines,
                  r.written, r.ms, gen, anl, anl / r.ms);
    } else {
      std::printf("%-30s %-5s %6zu %8d %10.3f\n", r.name.c_str(), r.kind.c_str(), r.lines, r.written, r.ms);
    }
  }
  std::printf("\n");
  summary("kiln, TTIR (read + analyze)", ttir);
  summary("kiln, PTX (read + analyze)", ptx);
  summary("PyTorch, generate_ttir", torch_gen);
  summary("PyTorch, TTIR analysis (to functions + walk)", torch_anl);
  if (!out.empty())
    std::printf("PyTorch %s, Triton %s\n", json_string(out, "torch").c_str(), json_string(out, "triton").c_str());
  return 0;
}
