// One training step of the autograd issue's transformer block (batch 8, sequence 128, width
// 256, 4 heads, float32) compiled by kiln's CPU backend, against PyTorch eager and
// torch.compile (Inductor's C++/OpenMP backend) measured in the same run by
// bench/torch_train_step.py with the same thread count (docs/PERF.md records the results):
//   - step time: median forward + backward over `runs` steps, the best of several rounds on each
//     side (kiln: one round before the PyTorch process and two after it; PyTorch: three rounds
//     of eager and torch.compile, interleaved), so that a slow window of a noisy machine that
//     hits one side's round does not decide the ratio; every round's median is printed;
//   - memory: kiln's planned peak of a step (the larger of the forward's and the backward's:
//     outputs, saved values, gradients and the temporaries' arena; parameters and the input
//     excluded) against the growth of PyTorch's peak RSS over one eager step;
//   - compile latency: capture to generated C++ (capture, joint graph, joint-graph passes,
//     partition, decompose, lower, schedule, emit); cold compile to the first step's end with
//     an empty kernel cache; the same with the warm cache; torch.compile's cold first step;
//   - the matmul library's share: the step with every matmul in OpenBLAS against the default
//     (oneDNN's brgemm where it has one), both run by hand in the same process.
//
//     build/bench/kiln_bench_cpu_train_step [runs] [python]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "autograd/joint_graph.h"
#include "autograd/partition.h"
#include "backend/compile_graph.h"
#include "bench_util.h"
#include "codegen/cpp/cpp_emitter.h"
#include "lower/loop_text.h"
#include "ops/op_info.h"
#include "patterns/joint_graph_passes.h"
#include "runtime/cpu/cpu_backend.h"
#include "runtime/cpu/process.h"
#include "train/grad_function.h"
#include "transformer_block.h"

namespace {

using namespace kiln;
using bench::json_number;
using bench::or_die;
using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

const test_models::TransformerBlockConfig kConfig{.batch = 8, .seq = 128, .width = 256, .heads = 4, .seed = 0};

// Capture through generated source, without compiling: the compile-latency budget's first
// part, by phase (seconds). The first call in a process also builds the pattern registry
// (joint-graph passes), a one-time cost; the bench reports the first and a second call.
struct SourcePhases {
  double capture = 0, joint = 0, passes = 0, partition = 0, lower_emit = 0;
  double total() const { return capture + joint + passes + partition + lower_emit; }
};

// The module is built (parameters drawn) beforehand: model construction is the user's code,
// not the compiler's; the bench reports its time separately.
SourcePhases capture_to_source(nn::Module& block, const Tensor& x) {
  SourcePhases t;
  auto t0 = Clock::now();
  Captured c = or_die(test_models::capture_transformer_block(block, x), "capture");
  t.capture = since(t0);
  t0 = Clock::now();
  JointGraph joint = or_die(joint_graph(*c.graph), "joint graph");
  t.joint = since(t0);
  t0 = Clock::now();
  (void)or_die(joint_graph_passes(*joint.graph), "joint graph passes");
  t.passes = since(t0);
  t0 = Clock::now();
  Partition p = or_die(partition(joint), "partition");
  t.partition = since(t0);
  t0 = Clock::now();
  size_t chars = 0;
  for (const Graph* g : {p.forward.get(), p.backward.get()})
    chars += emit_cpp(or_die(lower_graph_for(*g, CpuBackend()), "lower")).size();
  t.lower_emit = since(t0);
  if (chars == 0) std::exit(1);
  return t;
}

// GradFunction::create (compiles both graphs) and one step; seconds.
double compile_to_first_step(const Captured& c, const Tensor& x) {
  const auto t0 = Clock::now();
  GradFunction fn = or_die(
      GradFunction::create(*c.graph, c.lifted, GradOptions{.runner = {.execution = Execution::Compiled}}), "create");
  const std::vector<Tensor> in = {x};
  (void)or_die(fn(in), "first step");
  return since(t0);
}

int64_t planned_step_peak(const Captured& c) {
  JointGraph joint = or_die(joint_graph(*c.graph), "joint graph");
  (void)or_die(joint_graph_passes(*joint.graph), "joint graph passes");
  Partition p = or_die(partition(joint), "partition");
  const CompiledGraph fwd = or_die(compile_graph(*p.forward, CpuBackend()), "forward");
  const CompiledGraph bwd = or_die(compile_graph(*p.backward, CpuBackend()), "backward");
  const MemoryPlan& f = fwd.executable().memory_plan();
  const MemoryPlan& b = bwd.executable().memory_plan();
  // The backward's inputs are the saved values (and parameters, and the tangent); count the
  // saved ones only, as the forward's outputs already do.
  int64_t saved = 0;
  for (int i = 0; i < p.num_saved; ++i) {
    const TensorType& t = p.backward->input(i)->type();
    saved += t.shape.numel() * dtype_size(t.dtype);
  }
  return std::max(f.output_bytes + f.arena_bytes, saved + b.arena_bytes + b.output_bytes);
}

// The compiled forward and backward run by hand (as GradFunction runs them), with oneDNN's
// matmuls on or off (OpenBLAS only): the median of `runs` steps, in ms. The library's share
// of the step, measured in the same run.
double step_ms_with(const Captured& c, const Tensor& x, int runs, bool onednn_matmuls) {
  JointGraph joint = or_die(joint_graph(*c.graph), "joint graph");
  (void)or_die(joint_graph_passes(*joint.graph), "joint graph passes");
  Partition p = or_die(partition(joint), "partition");
  CpuBackendOptions o;
  o.compile.onednn_matmuls = onednn_matmuls;
  const CpuBackend backend(o);
  const CompiledGraph fwd = or_die(compile_graph(*p.forward, backend), "forward");
  const CompiledGraph bwd = or_die(compile_graph(*p.backward, backend), "backward");
  std::vector<Tensor> fwd_in = {x};
  fwd_in.insert(fwd_in.end(), c.lifted.begin(), c.lifted.end());
  std::vector<double> t;
  for (int i = 0; i <= runs; ++i) {  // the first is a warm-up
    const auto t0 = Clock::now();
    std::vector<Tensor> out = or_die(fwd.run(fwd_in), "forward");
    std::vector<Tensor> bwd_in(out.begin() + p.num_forward_outputs, out.end());
    for (size_t k = bwd_in.size(); k < p.backward->inputs().size(); ++k) {
      const TensorType& tt = p.backward->input(static_cast<int>(k))->type();
      bwd_in.push_back(Tensor::full(tt.shape.sizes(), Scalar(1.0), tt.dtype));
    }
    (void)or_die(bwd.run(bwd_in), "backward");
    if (i > 0) t.push_back(since(t0));
  }
  std::sort(t.begin(), t.end());
  return 1e3 * t[t.size() / 2];
}

// Per-kernel wall time of the compiled forward and backward over `runs` steps, the slowest
// first: where a step's time goes (`kiln_bench_cpu_train_step --profile [RUNS]`).
// With `dump_dir`, also writes each program's loop IR and C++ there (fwd.loops, fwd.cpp, ...).
void print_profile(const Captured& c, const Tensor& x, int runs, const std::string& dump_dir) {
  JointGraph joint = or_die(joint_graph(*c.graph), "joint graph");
  (void)or_die(joint_graph_passes(*joint.graph), "joint graph passes");
  Partition p = or_die(partition(joint), "partition");
  const CompiledGraph fwd = or_die(compile_graph(*p.forward, CpuBackend()), "forward");
  const CompiledGraph bwd = or_die(compile_graph(*p.backward, CpuBackend()), "backward");
  if (!dump_dir.empty()) {
    for (auto [name, prog] : {std::pair{"fwd", &cpu_program(fwd)}, std::pair{"bwd", &cpu_program(bwd)}}) {
      std::ofstream(dump_dir + "/" + name + ".loops") << print_loops(prog->program());
      std::ofstream(dump_dir + "/" + name + ".cpp") << emit_cpp(prog->program());
    }
  }
  std::vector<Tensor> fwd_in = {x};
  fwd_in.insert(fwd_in.end(), c.lifted.begin(), c.lifted.end());
  struct Row {
    double seconds;
    std::string where;
  };
  std::vector<Row> rows;
  std::vector<double> fs, bs;
  double total = 0;
  for (int i = 0; i < runs; ++i) {
    std::vector<Tensor> out = or_die(cpu_program(fwd).run_profiled(fwd_in, fs), "forward");
    std::vector<Tensor> bwd_in(out.begin() + p.num_forward_outputs, out.end());
    for (size_t k = bwd_in.size(); k < p.backward->inputs().size(); ++k) {
      const TensorType& t = p.backward->input(static_cast<int>(k))->type();
      bwd_in.push_back(Tensor::full(t.shape.sizes(), Scalar(1.0), t.dtype));
    }
    (void)or_die(cpu_program(bwd).run_profiled(bwd_in, bs), "backward");
  }
  for (auto [name, prog, secs] :
       {std::tuple{"fwd", &cpu_program(fwd), &fs}, std::tuple{"bwd", &cpu_program(bwd), &bs}}) {
    const LoopProgram& lp = prog->program();
    for (size_t k = 0; k < secs->size(); ++k) {
      const LoopKernel& kern = lp.kernels[k];
      static const char* const kKinds[] = {"pointwise", "reduction", "extern", "fused"};
      std::string what = kKinds[static_cast<int>(kern.kind)];
      if (kern.kind == KernelKind::Extern) {
        what += " " + std::string(op_info(kern.op).name());
        for (const ExternOperand& o : kern.operands) {
          what += " [";
          for (size_t d = 0; d < o.sizes.size(); ++d)
            what += (d ? "," : "") + std::to_string(o.sizes[d]) + ":" + std::to_string(o.strides[d]);
          what += "]";
        }
      }
      std::string loops;
      for (int64_t e : kern.loops) loops += (loops.empty() ? "" : "x") + std::to_string(e);
      rows.push_back({(*secs)[k] / runs, std::string(name) + " @" + kern.name + " " + what + " [" + loops + "]"});
      total += (*secs)[k] / runs;
    }
  }
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.seconds > b.seconds; });
  std::printf("per-kernel time per step, %d steps, total %.2f ms\n", runs, 1e3 * total);
  for (size_t i = 0; i < rows.size() && i < 40; ++i)
    std::printf("%8.3f ms %5.1f%%  %s\n", 1e3 * rows[i].seconds, 100 * rows[i].seconds / total, rows[i].where.c_str());
}

std::string fixed(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--source") {  // capture to source only, twice
    std::unique_ptr<nn::Module> block = test_models::make_transformer_block(kConfig);
    const Tensor example = test_models::transformer_block_input(kConfig);
    for (const char* when : {"first", "again"}) {
      const SourcePhases t = capture_to_source(*block, example);
      std::printf("%s: total %.1f ms: capture %.1f, joint %.1f, passes %.1f, partition %.1f, lower+emit %.1f\n", when,
                  1e3 * t.total(), 1e3 * t.capture, 1e3 * t.joint, 1e3 * t.passes, 1e3 * t.partition,
                  1e3 * t.lower_emit);
    }
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "--profile") {
    Captured c = or_die(test_models::capture_transformer_block(kConfig), "capture");
    print_profile(c, test_models::transformer_block_input(kConfig), argc > 2 ? std::max(1, std::atoi(argv[2])) : 20,
                  argc > 3 ? argv[3] : "");
    return 0;
  }
  const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 11;
  const std::string python = argc > 2 ? argv[2] : std::string(KILN_SOURCE_DIR) + "/.venv/bin/python";
  const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const std::string cache = std::filesystem::temp_directory_path() / ("kiln-bench-cache-" + std::to_string(getpid()));
  std::filesystem::remove_all(cache);
  setenv("KILN_CACHE_DIR", cache.c_str(), 1);

  auto t0 = Clock::now();
  std::unique_ptr<nn::Module> block = test_models::make_transformer_block(kConfig);
  const Tensor example = test_models::transformer_block_input(kConfig);
  const double construct = since(t0);
  const SourcePhases first_source = capture_to_source(*block, example);
  const SourcePhases to_source = capture_to_source(*block, example);
  Captured c = or_die(test_models::capture_transformer_block(kConfig), "capture");
  const Tensor x = test_models::transformer_block_input(kConfig);
  const double cold = compile_to_first_step(c, x);
  const double warm = compile_to_first_step(c, x);

  GradFunction fn = or_die(
      GradFunction::create(*c.graph, c.lifted, GradOptions{.runner = {.execution = Execution::Compiled}}), "create");
  const std::vector<Tensor> in = {x};
  (void)or_die(fn(in), "warm-up");
  auto round_ms = [&] {  // the median of `runs` steps
    std::vector<double> t;
    for (int i = 0; i < runs; ++i) {
      const auto t0 = Clock::now();
      (void)or_die(fn(in), "step");
      t.push_back(since(t0));
    }
    std::sort(t.begin(), t.end());
    return 1e3 * t[t.size() / 2];
  };
  std::vector<double> kiln_rounds = {round_ms()};
  const int64_t peak = planned_step_peak(c);

  std::string torch = "{}";
  Expected<ProcessResult> r = run_process(
      {python, std::string(KILN_SOURCE_DIR) + "/bench/torch_train_step.py", "--batch", "8", "--seq", "128", "--width",
       "256", "--heads", "4", "--threads", std::to_string(threads), "--runs", std::to_string(runs), "--rounds", "3"});
  if (r && r->ok())
    torch = r->output.substr(r->output.rfind('{'));
  else
    std::fprintf(stderr, "torch side not measured: %s\n", r ? r->output.c_str() : r.error().to_string().c_str());
  kiln_rounds.push_back(round_ms());
  kiln_rounds.push_back(round_ms());
  const double by_hand_onednn = step_ms_with(c, x, runs, true), by_hand_openblas = step_ms_with(c, x, runs, false);
  std::filesystem::remove_all(cache);
  const double step_ms = *std::min_element(kiln_rounds.begin(), kiln_rounds.end());
  const double eager = json_number(torch, "eager_ms"), compiled = json_number(torch, "compiled_ms");
  const double torch_cold = json_number(torch, "compile_cold_s"), torch_peak = json_number(torch, "eager_peak_bytes");

  std::printf("transformer block train step, batch 8, seq 128, width 256, 4 heads, f32, %d threads\n", threads);
  std::printf("%-44s %12s %12s\n", "", "kiln", "ratio");
  std::printf("%-44s %12.2f\n", "kiln step (ms)", step_ms);
  std::printf("%-44s %12s\n", "  kiln rounds (ms)",
              (fixed(kiln_rounds[0]) + " " + fixed(kiln_rounds[1]) + " " + fixed(kiln_rounds[2])).c_str());
  const size_t eager_at = torch.find("\"eager_rounds_ms\""), compiled_at = torch.find("\"compiled_rounds_ms\"");
  if (eager_at != std::string::npos)
    std::printf("  torch rounds: %s\n", torch.substr(eager_at, torch.find(']', compiled_at) + 1 - eager_at).c_str());
  if (eager > 0) std::printf("%-44s %12.2f %11.2fx\n", "torch eager step (ms), eager / kiln", eager, eager / step_ms);
  if (compiled > 0)
    std::printf("%-44s %12.2f %11.2fx\n", "torch.compile step (ms), compiled / kiln", compiled, compiled / step_ms);
  std::printf("%-44s %12.2f %11.2fx\n", "kiln, OpenBLAS-only matmuls (ms), / kiln", by_hand_openblas,
              by_hand_openblas / by_hand_onednn);
  std::printf("%-44s %12.1f\n", "kiln planned step peak (MB)", peak / 1e6);
  if (torch_peak > 0)
    std::printf("%-44s %12.1f %11.2fx\n", "torch eager peak RSS growth (MB), torch / kiln", torch_peak / 1e6,
                torch_peak / static_cast<double>(peak));
  std::printf("%-44s %12.1f\n", "model construction, not compiled (ms)", 1e3 * construct);
  std::printf("%-44s %12.1f\n", "kiln capture to C++ source, first (ms)", 1e3 * first_source.total());
  std::printf("%-44s %12.1f\n", "kiln capture to C++ source, again (ms)", 1e3 * to_source.total());
  std::printf("%-44s %12s %12s\n", "  by phase (ms)", "first", "again");
  std::printf("%-44s %12.1f %12.1f\n", "  capture", 1e3 * first_source.capture, 1e3 * to_source.capture);
  std::printf("%-44s %12.1f %12.1f\n", "  joint graph", 1e3 * first_source.joint, 1e3 * to_source.joint);
  std::printf("%-44s %12.1f %12.1f\n", "  joint-graph passes", 1e3 * first_source.passes, 1e3 * to_source.passes);
  std::printf("%-44s %12.1f %12.1f\n", "  partition", 1e3 * first_source.partition, 1e3 * to_source.partition);
  std::printf("%-44s %12.1f %12.1f\n", "  decompose, lower, schedule, emit C++", 1e3 * first_source.lower_emit,
              1e3 * to_source.lower_emit);
  std::printf("%-44s %12.2f\n", "kiln cold compile to first step end (s)", cold);
  std::printf("%-44s %12.1f\n", "kiln warm compile to first step end (ms)", 1e3 * warm);
  if (torch_cold > 0)
    std::printf("%-44s %12.2f %11.1fx\n", "torch.compile cold first step (s), torch / kiln", torch_cold,
                torch_cold / cold);
  return 0;
}
