// Cold compile of the CUDA benchmark's programs (bench/cuda_workloads.h) with NVRTC, no GPU
// needed: each graph lowered and emitted for the CUDA backend (an H100's launch sizes), then
// compiled as CudaProgram::load compiles it (compile_cubin_chunks into an empty cache directory,
// the chunks at once, one thread each), best of N. Beside that wall time, each chunk compiled
// alone, one after another: the slowest of them is the wall time on a machine with a free core
// per chunk (the GPU machine's 16), which a loaded 2-core machine cannot show directly.
//
//     kiln_bench_cuda_compile [--runs N] [--only TEXT] [--jobs J] [--min-kernels-per-chunk K]
//                             [--fast-compile min|mid|max]
//
// --fast-compile passes NVRTC's --Ofast-compile (CubinChunkOptions::fast_compile; off unless given).
// Exits 77 where NVRTC is not installed.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "backend/compile_graph.h"
#include "bench_util.h"
#include "cuda_workloads.h"
#include "runtime/cuda/cubin_chunks.h"
#include "runtime/cuda/cuda_backend.h"

namespace {

using namespace kiln;
using bench::or_die;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct Row {
  std::string key;
  int launches = 0, kernels = 0, chunks = 0;
  double wall = 1e30;           // compile_cubin_chunks into an empty cache, best of the runs
  double slowest_alone = 1e30;  // the slowest chunk compiled alone, best of the runs
  double all_alone = 0;         // every chunk compiled alone, one after another (that best run's sum)
};

Row measure(const bench::Workload& w, const CubinChunkOptions& options, const std::string& cache_root, int runs) {
  const LoopProgram p = or_die(lower_graph_for(*w.graph, CudaBackend()), "lower");
  const CudaProgramSource source = emit_cuda_program(p);
  Row r;
  r.key = w.key;
  for (const std::vector<CudaLaunch>& launches : source.launches) r.launches += static_cast<int>(launches.size());
  for (const std::string& text : source.kernel_text) r.kernels += text.empty() ? 0 : 1;
  for (int run = 0; run < runs; ++run) {
    CubinChunkOptions cold = options;
    cold.cache_dir = cache_root + "/" + w.key + "-" + std::to_string(run);
    const auto t0 = std::chrono::steady_clock::now();
    const CubinChunks chunks = or_die(compile_cubin_chunks(source, cold), "compile");
    r.wall = std::min(r.wall, seconds_since(t0));
    r.chunks = static_cast<int>(chunks.kernels.size());
    double slowest = 0, sum = 0;
    for (const std::vector<int>& kernels : chunks.kernels) {
      const auto c0 = std::chrono::steady_clock::now();
      or_die(
          compile_cuda_to_cubin(cubin_chunk_source(source, kernels), or_die(chunk_nvrtc_options(options), "options")),
          "alone");
      const double s = seconds_since(c0);
      slowest = std::max(slowest, s);
      sum += s;
    }
    if (slowest < r.slowest_alone) r.slowest_alone = slowest, r.all_alone = sum;
  }
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 3;
  std::string only;
  CubinChunkOptions options;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--runs")
      runs = std::max(1, std::atoi(argv[i + 1]));
    else if (flag == "--only")
      only = argv[i + 1];
    else if (flag == "--jobs")
      options.jobs = std::atoi(argv[i + 1]);
    else if (flag == "--min-kernels-per-chunk")
      options.min_kernels_per_chunk = std::max(1, std::atoi(argv[i + 1]));
    else if (flag == "--fast-compile")
      options.fast_compile = argv[i + 1];
    else
      return std::fprintf(stderr, "unknown option %s\n", flag.c_str()), 2;
  }
  const Expected<std::string> version = nvrtc_version();
  if (!version) return std::printf("skipped: %s\n", version.error().message().c_str()), 77;
  const std::string cache_root =
      (std::filesystem::temp_directory_path() / ("kiln-cuda-compile-bench-" + std::to_string(::getpid()))).string();
  or_die(chunk_nvrtc_options(options), "--fast-compile");
  std::printf(
      "NVRTC %s, %s, jobs %d (0: every core), at least %d kernels a chunk, fast-compile %s; best of %d cold "
      "compiles\n",
      version->c_str(), options.arch.c_str(), options.jobs, options.min_kernels_per_chunk,
      options.fast_compile.empty() ? "off" : options.fast_compile.c_str(), runs);
  std::printf("%-27s %4s %4s %6s | %8s %8s | %9s %9s %9s\n", "case", "lnch", "krnl", "chunks", "wall ms", "ms/lnch",
              "alone max", "ms/lnch", "alone sum");
  for (const bench::Workload& w : bench::cuda_workloads()) {
    if (w.key.find(only) == std::string::npos) continue;
    const Row r = measure(w, options, cache_root, runs);
    std::printf("%-27s %4d %4d %6d | %8.1f %8.1f | %9.1f %9.1f %9.1f\n", r.key.c_str(), r.launches, r.kernels, r.chunks,
                1e3 * r.wall, 1e3 * r.wall / r.launches, 1e3 * r.slowest_alone, 1e3 * r.slowest_alone / r.launches,
                1e3 * r.all_alone);
    std::fflush(stdout);
  }
  std::filesystem::remove_all(cache_root);
  return 0;
}
