// The CUDA backend's generated kernels against a device-to-device copy and PyTorch on the same
// card, in one run (issue 19's acceptance figures; docs/PERF.md records them):
//   - a chain of 8 pointwise ops over 64M bf16 elements (one fused kernel); softmax and
//     layer_norm forward over [16384,1024] and [8192,50257] bf16; column sums over [65536,1024]
//     bf16 (run again and compared bitwise: deterministic); a ResNet stage's 3x3 conv2d in bf16
//     (decomposed: im2col and one cuBLASLt matmul); the CPU backend's golden kernels
//     (tests/unit/test_cpp_emitter.cc's graphs) at GPU-sized shapes, in f32 as there;
//   - each compiled by the CUDA backend (compile_graph), timed with its inputs resident on the
//     device (CudaProgram::time_resident: CUDA events around each run, median of N after
//     warm-up, no host copy or wait between runs); "GB/s" counts each input byte read once and
//     each output byte written once, and "of copy" divides it by the bandwidth of a
//     cuMemcpyDtoDAsync moving as many bytes (half read, half written) in the same run;
//   - cold compile per kernel (NVRTC into an empty cache directory, chunks compiled in parallel on
//     every core), warm load per kernel (the same program loaded again: cache lookups, modules,
//     arena, launches), and the host's cost per launch while enqueuing the timed runs;
//   - beside each, PyTorch eager and torch.compile (default mode) on the same shapes
//     (bench/torch_cuda_kernels.py, CUDA events, median of N), when the GPU machine has torch.
// Kernels counts launches per run. Launch sizes are chosen for the device the benchmark runs
// on, as `kiln run --device=cuda` chooses them.
//
//     kiln_bench_cuda_kernels [--runs N] [--only TEXT] [--python PATH] [--torch-script PATH | --torch-json FILE]
//                             [--nvrtc-fast-compile min|mid|max]
//
// --nvrtc-fast-compile measures each case a second time compiled with NVRTC's --Ofast-compile at
// that level (CudaRunOptions::fast_compile, off by default), its row named "<case> fc=<level>":
// kernel time and cold compile of both in one run.
// --only measures the cases whose name contains TEXT (and asks the torch script for those).
// --torch-json reads the script's output saved by a run of its own (a time limit of its own:
// torch.compile's cold compiles can be slow) instead of running it.
//
// Without a CUDA device it prints why and exits 77.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "backend/compile_graph.h"
#include "bench_util.h"
#include "cuda_copy_baseline.h"
#include "cuda_workloads.h"
#include "runtime/cpu/process.h"
#include "runtime/cuda/cubin_chunks.h"
#include "runtime/cuda/cuda_backend.h"

namespace {

using namespace kiln;
using bench::cuda_workloads;
using bench::json_number;
using bench::json_string;
using bench::or_die;
using bench::Workload;

int64_t io_bytes(const Graph& g) {
  int64_t b = 0;
  for (int i = 0; i < g.num_inputs(); ++i) b += g.input(i)->type().shape.numel() * dtype_size(g.input(i)->type().dtype);
  for (const Value* v : g.outputs()) b += v->type().shape.numel() * dtype_size(v->type().dtype);
  return b;
}

// Random normal inputs: a block of 4M values repeated (drawing a whole [8192,50257] takes seconds).
std::vector<Tensor> inputs_of(const Graph& g) {
  std::vector<Tensor> in;
  for (int i = 0; i < g.num_inputs(); ++i) {
    const TensorType& type = g.input(i)->type();
    Tensor t = Tensor::empty(type.shape.sizes(), type.dtype);
    const int64_t n = t.numel(), block = std::min<int64_t>(n, int64_t{1} << 22);
    const Tensor values = Tensor::randn({block}, 11 + static_cast<uint64_t>(i), type.dtype);
    const size_t element = static_cast<size_t>(dtype_size(type.dtype));
    for (int64_t at = 0; at < n; at += block)
      std::memcpy(t.data_bytes() + static_cast<size_t>(at) * element, values.data_bytes(),
                  static_cast<size_t>(std::min(block, n - at)) * element);
    in.push_back(std::move(t));
  }
  return in;
}

bool bitwise_equal(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const size_t bytes = static_cast<size_t>(a[i].numel() * dtype_size(a[i].dtype()));
    if (a[i].sizes() != b[i].sizes() || std::memcmp(a[i].data_bytes(), b[i].data_bytes(), bytes) != 0) return false;
  }
  return true;
}

struct Row {
  std::string key;
  std::string fast_compile;  // NVRTC's --Ofast-compile level the case compiled with; "": off
  int launches = 0;
  int64_t bytes = 0;
  double kiln = 0, copy = 0;  // seconds per run; copy: the same bytes through cuMemcpyDtoDAsync
  double cold_compile_per_kernel = 0, warm_load_per_kernel = 0, host_per_launch = 0;
  std::string note;  // a check that failed: not one kernel, not deterministic, outputs differ
};

Row measure(const Workload& w, const CudaContext& context, const std::string& cache_root, int runs,
            const std::string& fast_compile) {
  Row r;
  r.key = w.key;
  r.fast_compile = fast_compile;
  r.bytes = io_bytes(*w.graph);
  CudaBackendOptions options;
  options.run.cache_dir = cache_root + "/" + w.key + "-fc" + fast_compile;
  options.run.fast_compile = fast_compile;
  options.run.jobs = static_cast<int>(std::thread::hardware_concurrency());
  const CudaBackend backend(Device::cuda(), options);
  const std::vector<Tensor> in = inputs_of(*w.graph);
  {
    CompiledGraph cold = or_die(compile_graph(*w.graph, backend), "compile");
    const auto& program = dynamic_cast<const CudaProgram&>(cold.executable());
    const ResidentTiming t = or_die(program.time_resident(in, {.warmup_runs = 3, .timed_runs = runs}), "time");
    r.launches = t.launches_per_run;
    r.kiln = t.median_seconds;
    r.host_per_launch = t.host_seconds_per_launch;
    r.cold_compile_per_kernel = cold.times().backend.compile / r.launches;
    const std::vector<Tensor> once = or_die(cold.run(in), "run"), twice = or_die(cold.run(in), "run");
    if (!bitwise_equal(once, twice)) r.note += " two runs differ;";
    if (!bitwise_equal(once, t.outputs)) r.note += " timed runs' outputs differ from run()'s;";
  }
  {
    CompiledGraph warm = or_die(compile_graph(*w.graph, backend), "compile again");
    const auto& program = dynamic_cast<const CudaProgram&>(warm.executable());
    if (program.compile_stats().compiled() != 0) r.note += " the second load compiled;";
    r.warm_load_per_kernel = (warm.times().backend.compile + warm.times().backend.load) / r.launches;
  }
  r.copy = or_die(bench::device_copy_seconds(context, static_cast<size_t>(r.bytes / 2), runs), "copy");
  return r;
}

// The last complete JSON object of torch_cuda_kernels.py's output (each line holds every figure
// so far); "{}" when there is none.
std::string last_json_object(const std::string& output) {
  const size_t end = output.rfind('}');
  const size_t begin = end == std::string::npos ? std::string::npos : output.rfind('{', end);
  return begin == std::string::npos ? "{}" : output.substr(begin, end + 1 - begin);
}

// torch_cuda_kernels.py's figures: from `json_file` when given (its output, saved by a run of
// its own), else by running it; "{}" after saying why when Python or torch is missing.
std::string torch_timings(const std::string& json_file, const std::string& python, const std::string& script, int runs,
                          const std::string& only) {
  if (!json_file.empty()) {
    std::ifstream in(json_file);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.find('}') == std::string::npos)
      std::fprintf(stderr, "torch side not measured: %s has no figures\n", json_file.c_str());
    return last_json_object(text);
  }
  Expected<ProcessResult> r =
      run_process({resolve_program(python), script, "--runs", std::to_string(runs), "--only", only});
  if (r && r->ok()) return last_json_object(r->output);
  std::fprintf(stderr, "torch side not measured: %s\n", r ? r->output.c_str() : r.error().to_string().c_str());
  return "{}";
}

// "12.34" or "-" for a figure not measured.
std::string figure(double value, const char* format) {
  if (value <= 0) return "-";
  char text[32];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

void print_table(const std::vector<Row>& rows, const std::string& torch) {
  std::printf("%-27s %4s %9s %7s %6s | %9s %6s | %9s %6s %8s %7s | %8s %8s %8s\n", "case", "lnch", "kiln ms", "GB/s",
              "ofcopy", "eager ms", "ofcopy", "tcomp ms", "ofcopy", "tcomp/k", "tc cs", "cold ms", "warm ms",
              "host us");
  for (const Row& r : rows) {
    const double copy_bw = static_cast<double>(r.bytes) / r.copy;
    const double eager = json_number(torch, r.key + "_eager_ms") / 1e3;
    const double compiled = json_number(torch, r.key + "_compile_ms") / 1e3;
    auto of_copy = [&](double seconds) {
      return seconds <= 0 ? std::string("-")
                          : figure(100.0 * static_cast<double>(r.bytes) / seconds / copy_bw, "%.0f%%");
    };
    const std::string name = r.fast_compile.empty() ? r.key : r.key + " fc=" + r.fast_compile;
    std::printf("%-27s %4d %9.3f %7.0f %6s | %9s %6s | %9s %6s %8s %7s | %8.1f %8.2f %8.2f%s\n", name.c_str(),
                r.launches, 1e3 * r.kiln, static_cast<double>(r.bytes) / r.kiln / 1e9, of_copy(r.kiln).c_str(),
                figure(1e3 * eager, "%.3f").c_str(), of_copy(eager).c_str(), figure(1e3 * compiled, "%.3f").c_str(),
                of_copy(compiled).c_str(), figure(compiled / r.kiln, "%.2fx").c_str(),
                figure(json_number(torch, r.key + "_compile_s"), "%.1f").c_str(), 1e3 * r.cold_compile_per_kernel,
                1e3 * r.warm_load_per_kernel, 1e6 * r.host_per_launch, r.note.empty() ? "" : ("  !" + r.note).c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 20;
  std::string python = "python3", script = std::string(KILN_SOURCE_DIR) + "/bench/torch_cuda_kernels.py", json, only;
  std::string fast_compile;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--runs")
      runs = std::max(1, std::atoi(argv[i + 1]));
    else if (flag == "--python")
      python = argv[i + 1];
    else if (flag == "--torch-script")
      script = argv[i + 1];
    else if (flag == "--torch-json")
      json = argv[i + 1];
    else if (flag == "--only")
      only = argv[i + 1];
    else if (flag == "--nvrtc-fast-compile")
      fast_compile = argv[i + 1];
    else
      return std::fprintf(stderr, "unknown option %s\n", flag.c_str()), 2;
  }
  CubinChunkOptions chosen;
  chosen.fast_compile = fast_compile;
  or_die(chunk_nvrtc_options(chosen), "--nvrtc-fast-compile");
  Expected<const CudaDriver*> driver = CudaDriver::get();
  Expected<CudaDeviceProperties> device =
      driver ? query_cuda_device(**driver) : Expected<CudaDeviceProperties>(driver.error());
  if (!device) return std::printf("no CUDA device: %s\n", device.error().to_string().c_str()), 77;
  const CudaContext context = or_die(CudaContext::open(**driver), "context");

  const std::string torch = torch_timings(json, python, script, runs, only);
  const std::string cache_root =
      (std::filesystem::temp_directory_path() / ("kiln-cuda-bench-" + std::to_string(::getpid()))).string();
  const double copy_64m = or_die(bench::device_copy_seconds(context, size_t{64} << 21, runs), "copy");
  std::vector<Row> rows;
  for (const Workload& w : cuda_workloads()) {
    if (w.key.find(only) == std::string::npos) continue;
    rows.push_back(measure(w, context, cache_root, runs, ""));
    if (w.key == "chain8" && rows.back().launches != 1) rows.back().note += " not one fused kernel;";
    if (!fast_compile.empty()) rows.push_back(measure(w, context, cache_root, runs, fast_compile));
    std::fprintf(stderr, "measured %s\n", w.key.c_str());
  }
  std::filesystem::remove_all(cache_root);

  std::printf("device: %s; torch: %s on %s; %d timed runs after 3 warm-up, medians\n", device->name.c_str(),
              json_string(torch, "torch_version").empty() ? "missing" : json_string(torch, "torch_version").c_str(),
              json_string(torch, "device").c_str(), runs);
  std::printf("copy baseline: 64M bf16 (128 MiB) device to device in %.3f ms, %.0f GB/s (read + write)\n",
              1e3 * copy_64m, 2.0 * (64 << 21) / copy_64m / 1e9);
  std::printf(
      "ofcopy: GB/s over a copy of the case's bytes in the same run; tcomp/k: torch.compile's time over "
      "kiln's (above 1: kiln faster); tc cs: torch.compile's first call (s); cold/warm: ms per kernel\n");
  print_table(rows, torch);
  return 0;
}
