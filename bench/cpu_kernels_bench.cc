// The CPU backend's generated kernels against a plain copy and kiln's eager execution, side
// by side in one run (docs/PERF.md records the results):
//   - a chain of 8 pointwise ops over 16M float32 elements (one fused kernel) vs a copy kernel
//     over the same elements compiled with the same flags (STREAM-style: read 4 B, write 4 B per
//     element) and vs the interpreter running the same graph op by op (kiln's eager);
//   - row-wise softmax and layer_norm over [8192, 1024] float32, forward and backward (the
//     backward graphs are kiln's own: joint graph, then the default partition), compiled vs
//     interpreted; "GB/s" counts each input byte read once and each output byte written once,
//     and "of copy" compares that with the copy kernel's bandwidth.
// Beside them, PyTorch eager on the same machine in the same run (bench/torch_kernels.py with
// the project's .venv: its vectorized ATen kernels, the same thread count), when present.
// Medians of N runs after one warm-up; threads as OpenMP and OpenBLAS choose (OMP_NUM_THREADS).
//
//     build/bench/kiln_bench_cpu_kernels [runs] [python]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "autograd/joint_graph.h"
#include "autograd/partition.h"
#include "backend/compile_graph.h"
#include "bench_util.h"
#include "interp/interpreter.h"
#include "ir/parser.h"
#include "runtime/cpu/cpu_backend.h"
#include "runtime/cpu/process.h"

namespace {

using namespace kiln;
using bench::json_number;
using bench::or_die;
using Clock = std::chrono::steady_clock;

double median_seconds(int runs, const std::function<void()>& f) {
  f();  // warm-up: page faults, caches, OpenMP threads
  std::vector<double> t;
  for (int i = 0; i < runs; ++i) {
    const auto t0 = Clock::now();
    f();
    t.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

std::unique_ptr<Graph> parse_or_die(const std::string& text) {
  auto g = parse_graph(text);
  if (!g) {
    std::fprintf(stderr, "%s\n", g.error().to_string().c_str());
    std::exit(1);
  }
  return std::move(*g);
}

std::vector<Tensor> random_inputs(const Graph& g) {
  std::vector<Tensor> in;
  for (int i = 0; i < g.num_inputs(); ++i) {
    const TensorType& t = g.input(i)->type();
    in.push_back(Tensor::randn(t.shape.sizes(), 11 + static_cast<uint64_t>(i), t.dtype));
  }
  return in;
}

int64_t io_bytes(const Graph& g) {
  int64_t b = 0;
  for (int i = 0; i < g.num_inputs(); ++i) {
    const TensorType& t = g.input(i)->type();
    b += t.shape.numel() * dtype_size(t.dtype);
  }
  for (const Value* v : g.outputs()) b += v->type().shape.numel() * dtype_size(v->type().dtype);
  return b;
}

// The backward graph of `forward` (default partition): saved values and output tangents in.
std::unique_ptr<Graph> backward_of(const Graph& forward) {
  JointGraph joint = or_die(joint_graph(forward), "joint graph");
  Partition p = or_die(partition(joint, PartitionOptions{.kind = PartitionKind::Default}), "partition");
  return std::move(p.backward);
}

struct Row {
  std::string name;
  int kernels = 0;
  double compiled = 0, interpreted = 0;
  int64_t bytes = 0;
  double torch = -1;  // seconds; -1: not measured
};

// PyTorch's timings of the same cases (bench/torch_kernels.py), as its JSON text; "{}" after
// saying why when Python or torch is missing.
std::string torch_timings(const std::string& python, int runs) {
  const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  Expected<ProcessResult> r = run_process({python, std::string(KILN_SOURCE_DIR) + "/bench/torch_kernels.py",
                                           "--threads", std::to_string(threads), "--runs", std::to_string(runs)});
  if (r && r->ok()) return r->output.substr(r->output.rfind('{'));
  std::fprintf(stderr, "torch side not measured: %s\n", r ? r->output.c_str() : r.error().to_string().c_str());
  return "{}";
}

Row measure(const std::string& name, const Graph& g, int runs, bool interpret_too) {
  CompiledGraph c = or_die(compile_graph(g, CpuBackend()), "compile");
  const std::vector<Tensor> in = random_inputs(g);
  Row r{name, static_cast<int>(c.executable().program().kernels.size()), 0, 0, io_bytes(g)};
  r.compiled = median_seconds(runs, [&] { (void)or_die(c.run(in), "run"); });
  if (interpret_too)
    r.interpreted = median_seconds(std::max(1, runs / 4), [&] { (void)or_die(interpret(g, in), "interpret"); });
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 11;
  const std::string python = argc > 2 ? argv[2] : std::string(KILN_SOURCE_DIR) + "/.venv/bin/python";
  const std::string n = "[4096,4096]";
  const auto copy = parse_or_die("graph @copy(%x: f32" + n + ") -> (f32" + n + ") {\n %0 = _to_copy(%x) : f32" + n +
                                 "\n return %0\n}");
  const auto chain =
      parse_or_die("graph @chain8(%x: f32" + n + ") -> (f32" + n + ") {\n %0 = mul(%x, 2.0) : f32" + n +
                   "\n %1 = add(%0, 1.0) : f32" + n + "\n %2 = relu(%1) : f32" + n + "\n %3 = sub(%2, 0.5) : f32" + n +
                   "\n %4 = mul(%3, %3) : f32" + n + "\n %5 = maximum(%4, %x) : f32" + n +
                   "\n %6 = div(%5, 3.0) : f32" + n + "\n %7 = neg(%6) : f32" + n + "\n return %7\n}");
  const std::string r = "[8192,1024]";
  const auto softmax = parse_or_die("graph @softmax(%x: f32" + r + ") -> (f32" + r +
                                    ") {\n %0 = softmax(%x) {dim=-1} : f32" + r + "\n return %0\n}");
  const auto layer_norm =
      parse_or_die("graph @layer_norm(%x: f32" + r + ", %w: f32[1024], %b: f32[1024]) -> (f32" + r +
                   ") {\n %0 = layer_norm(%x, %w, %b) {normalized_shape=[1024]} : f32" + r + "\n return %0\n}");
  const auto softmax_bwd = backward_of(*softmax);
  const auto layer_norm_bwd = backward_of(*layer_norm);

  std::vector<Row> rows;
  rows.push_back(measure("copy 16M f32", *copy, runs, false));
  rows.push_back(measure("8-op pointwise chain 16M f32", *chain, runs, true));
  rows.push_back(measure("softmax [8192,1024] forward", *softmax, runs, true));
  rows.push_back(measure("softmax [8192,1024] backward", *softmax_bwd, runs, true));
  rows.push_back(measure("layer_norm [8192,1024] forward", *layer_norm, runs, true));
  rows.push_back(measure("layer_norm [8192,1024] backward", *layer_norm_bwd, runs, true));

  const std::string torch = torch_timings(python, runs);
  const char* const torch_keys[] = {"copy_ms",        "chain8_ms",         "softmax_fwd_ms",
                                    "softmax_bwd_ms", "layer_norm_fwd_ms", "layer_norm_bwd_ms"};
  for (size_t i = 0; i < rows.size(); ++i) {
    const double ms = json_number(torch, torch_keys[i]);
    if (ms > 0) rows[i].torch = ms / 1e3;
  }

  const double copy_bw = static_cast<double>(rows[0].bytes) / rows[0].compiled;
  std::printf("%-34s %8s %11s %11s %9s %9s %8s %11s %11s\n", "case", "kernels", "kiln (ms)", "eager (ms)", "speedup",
              "GB/s", "of copy", "torch (ms)", "torch/kiln");
  for (const Row& row : rows) {
    const double bw = static_cast<double>(row.bytes) / row.compiled;
    std::printf("%-34s %8d %11.2f ", row.name.c_str(), row.kernels, 1e3 * row.compiled);
    if (row.interpreted > 0)
      std::printf("%11.1f %8.1fx ", 1e3 * row.interpreted, row.interpreted / row.compiled);
    else
      std::printf("%11s %9s ", "-", "-");
    std::printf("%9.2f %7.0f%% ", bw / 1e9, 100.0 * bw / copy_bw);
    if (row.torch > 0)
      std::printf("%11.2f %10.2fx\n", 1e3 * row.torch, row.torch / row.compiled);
    else
      std::printf("%11s %11s\n", "-", "-");
  }
  return 0;
}
