// The CUDA program runtime (runtime/cuda/cuda_program.h) on a real GPU, over the hand-written
// cases of cuda_program_cases.h: each runs through CudaProgram and is compared with the loop-IR
// evaluator on the same inputs (a pointwise add staged through 64 KiB of shared memory, an
// in-place write, a sum in two launches through the scratch workspace, a cond whose else branch
// runs an addmm on the host, a while loop, an index out of range; the matmul family through
// cuBLASLt in f32, bf16 and f16; an output copied back through staging), and a second load of a
// program finds its cubins in the cache; timing with resident inputs gives run()'s outputs. Built
// in the whole tree's build only (it runs loop IR).
// Where there is no driver or device it prints "no CUDA device: ..." and exits 77.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "cuda_program_cases.h"
#include "gpu_checks.h"
#include "lower/loop_eval.h"
#include "lower/loop_text.h"
#include "runtime/cuda/cuda_program.h"

namespace kiln {
namespace {

using namespace cuda_cases;

// "" when `got` matches `want` within a relative `tolerance`, else the first difference.
std::string difference(const Tensor& got, const Tensor& want, double tolerance = 1e-5) {
  if (got.sizes() != want.sizes() || got.dtype() != want.dtype())
    return "type " + buffer_type_string(got.dtype(), got.sizes()) + ", want " +
           buffer_type_string(want.dtype(), want.sizes());
  for (int64_t i = 0; i < got.numel(); ++i) {
    const double g = got.item_double(i), w = want.item_double(i);
    if (std::abs(g - w) > tolerance * std::max(1.0, std::abs(w)))
      return "element " + std::to_string(i) + " is " + std::to_string(g) + ", want " + std::to_string(w);
  }
  return "";
}

std::vector<Tensor> clones(const std::vector<Tensor>& inputs) {
  std::vector<Tensor> out;
  for (const Tensor& t : inputs) out.push_back(t.clone());
  return out;
}

struct Loaded {
  LoopProgram program;
  std::unique_ptr<Executable> executable;
};

std::optional<Loaded> load(Checks& checks, const Case& c, const std::string& cache_dir) {
  auto p = parse_loops(c.loops);
  if (!checks.expect_ok(p, c.name + ": parses")) return std::nullopt;
  CudaRunOptions options;
  options.cache_dir = cache_dir;
  auto executable = CudaProgram::load(*p, c.source, options);
  if (!checks.expect(static_cast<bool>(executable), c.name + ": loads",
                     executable ? "" : executable.error().to_string()))
    return std::nullopt;
  return Loaded{std::move(*p), std::move(*executable)};
}

// Runs `inputs` through the GPU and the evaluator (each on its own copies) and compares the
// outputs and the inputs afterwards (a program may write its inputs in place).
void check_against_evaluator(Checks& checks, const Loaded& loaded, const std::string& name,
                             const std::vector<Tensor>& inputs, double tolerance = 1e-5) {
  std::vector<Tensor> gpu_inputs = clones(inputs), eval_inputs = clones(inputs);
  auto want = eval_loops(loaded.program, eval_inputs);
  if (!checks.expect_ok(want, name + ": the evaluator runs it")) return;
  auto got = loaded.executable->run(gpu_inputs);
  if (!checks.expect(static_cast<bool>(got), name + ": runs", got ? "" : got.error().to_string())) return;
  for (size_t i = 0; i < want->size(); ++i)
    checks.expect(difference((*got)[i], (*want)[i], tolerance).empty(), name + ": output " + std::to_string(i),
                  difference((*got)[i], (*want)[i], tolerance));
  for (size_t i = 0; i < inputs.size(); ++i)
    checks.expect(difference(gpu_inputs[i], eval_inputs[i]).empty(), name + ": input " + std::to_string(i) + " after",
                  difference(gpu_inputs[i], eval_inputs[i]));
}

void check_cases(Checks& checks, const std::string& cache_dir) {
  if (auto add = load(checks, pointwise_add(), cache_dir))
    check_against_evaluator(checks, *add, "pointwise_add",
                            {Tensor::rand({1000}, 1, DType::F32), Tensor::rand({1000}, 2, DType::F32)});
  if (auto bump = load(checks, in_place(), cache_dir))
    check_against_evaluator(checks, *bump, "in_place", {Tensor::rand({8}, 3, DType::F32)});
  if (auto tr = load(checks, transposed_output(), cache_dir))
    check_against_evaluator(checks, *tr, "transposed_output", {Tensor::rand({2, 3}, 9, DType::F32)});
  if (auto sum = load(checks, split_sum(), cache_dir))
    check_against_evaluator(checks, *sum, "split_sum", {Tensor::rand({1024}, 4, DType::F32)});
  if (auto choose = load(checks, cond_with_host_addmm(), cache_dir)) {
    const Tensor x = Tensor::rand({2, 2}, 5, DType::F32);
    check_against_evaluator(checks, *choose, "cond then", {Tensor::scalar(true, DType::Bool), x});
    check_against_evaluator(checks, *choose, "cond else (addmm on the host)", {Tensor::scalar(false, DType::Bool), x});
    check_against_evaluator(checks, *choose, "cond else, x transposed (staged)",
                            {Tensor::scalar(false, DType::Bool), x.t()});
    const auto& ops = dynamic_cast<const CudaProgram&>(*choose->executable).host_copied_ops();
    checks.expect(ops == std::vector<OpKind>{OpKind::Addmm}, "cond: the addmm is listed as run on the host");
  }
  if (auto count = load(checks, count_up(), cache_dir)) {
    check_against_evaluator(checks, *count, "while, 6 trips", {Tensor::scalar(5.5, DType::F32)});
    check_against_evaluator(checks, *count, "while, 3 trips", {Tensor::scalar(3.0, DType::F32)});
    check_against_evaluator(checks, *count, "while, no trip", {Tensor::scalar(-1.0, DType::F32)});
  }
  if (auto pick = load(checks, checked_gather(), cache_dir)) {
    const Tensor x = Tensor::rand({4}, 6, DType::F32);
    check_against_evaluator(checks, *pick, "gather in range", {x, Tensor::from_ints({1, -2}, {2})});
    const std::vector<Tensor> bad{x, Tensor::from_ints({1, 7}, {2})};
    auto want = eval_loops(pick->program, clones(bad));
    auto got = pick->executable->run(bad);
    if (checks.expect(!want && !got, "gather out of range: an error on both",
                      got ? "the GPU run succeeded" : got.error().to_string()))
      checks.expect(got.error().to_string() == want.error().to_string(), "gather out of range: the evaluator's error",
                    got.error().to_string() + " | want " + want.error().to_string());
    check_against_evaluator(checks, *pick, "gather in range after an error", {x, Tensor::from_ints({3, 0}, {2})});
  }
  if (auto alarm = load(checks, false_alarm(), cache_dir)) {
    auto got = alarm->executable->run(
        std::vector<Tensor>{Tensor::rand({1000}, 7, DType::F32), Tensor::rand({1000}, 8, DType::F32)});
    checks.expect(!got && got.error().message() ==
                              "a kernel of loops @add reported an index out of range on the GPU, but the loop-IR "
                              "evaluator finds every index in range",
                  "an error slot set without a bad index says so", got ? "the run succeeded" : got.error().to_string());
  }
}

// cuBLASLt against the reference kernels: f32 with f32 FMA (TF32 off), bf16 and f16 with f32
// accumulation rounded once. The reference rounds addmm's and baddbmm's product to the dtype
// before adding beta * self, so they may differ by two of its ulps (bf16: 2^-7 relative).
void check_matmuls(Checks& checks, const std::string& cache_dir) {
  for (const auto& [dtype_text, dtype, tolerance] :
       {std::tuple{"f32", DType::F32, 1e-5}, std::tuple{"bf16", DType::BF16, 2e-2},
        std::tuple{"f16", DType::F16, 1e-2}}) {
    auto loaded = load(checks, matmuls(dtype_text), cache_dir);
    if (!loaded) continue;
    const std::string name = std::string("matmuls ") + dtype_text;
    checks.expect(dynamic_cast<const CudaProgram&>(*loaded->executable).host_copied_ops().empty(),
                  name + ": none runs on the host");
    std::vector<Tensor> inputs;
    uint64_t seed = 10;
    for (int b : loaded->program.inputs)
      inputs.push_back(Tensor::randn(loaded->program.buffers[static_cast<size_t>(b)].sizes, seed++, dtype));
    check_against_evaluator(checks, *loaded, name, inputs, tolerance);
  }
}

// Timing with resident inputs (CudaProgram::time_resident): each timed run takes some time, the
// host's enqueue cost is measured, and the outputs after the timed runs are run()'s exactly.
void check_resident_timing(Checks& checks, const std::string& cache_dir) {
  for (const Case& c : {pointwise_add(), split_sum()}) {
    auto loaded = load(checks, c, cache_dir);
    if (!loaded) continue;
    std::vector<Tensor> inputs;
    uint64_t seed = 20;
    for (int b : loaded->program.inputs)
      inputs.push_back(Tensor::rand(loaded->program.buffers[static_cast<size_t>(b)].sizes, seed++, DType::F32));
    auto want = loaded->executable->run(inputs);
    auto timing = dynamic_cast<const CudaProgram&>(*loaded->executable).time_resident(inputs, {2, 7});
    if (!checks.expect_ok(want, c.name + ": runs") || !checks.expect_ok(timing, c.name + ": timed resident")) continue;
    checks.expect(timing->min_seconds > 0 && timing->min_seconds <= timing->median_seconds,
                  c.name + ": each timed run takes time", std::to_string(timing->median_seconds));
    checks.expect(timing->host_seconds_per_launch > 0 &&
                      timing->launches_per_run == static_cast<int>(c.source.launches[0].size()),
                  c.name + ": the host's cost per launch", std::to_string(timing->launches_per_run) + " launches");
    for (size_t i = 0; i < want->size(); ++i)
      checks.expect(difference(timing->outputs[i], (*want)[i], 0).empty(),
                    c.name + ": output " + std::to_string(i) + " after the timed runs is run()'s",
                    difference(timing->outputs[i], (*want)[i], 0));
  }
}

// Prints what loading took (BackendTimes: NVRTC through the cache, then modules, arena, launches).
void print_times(const std::string& what, const Executable& e) {
  std::printf("%s: compile %.1f ms, load %.1f ms\n", what.c_str(), 1e3 * e.times().compile, 1e3 * e.times().load);
}

void check_cache_hit(Checks& checks, const std::string& cache_dir) {
  const std::string fresh = cache_dir + "/fresh";
  auto first = load(checks, pointwise_add(), fresh);
  auto second = load(checks, pointwise_add(), fresh);
  if (!first || !second) return;
  print_times("pointwise_add, first load (NVRTC)", *first->executable);
  print_times("pointwise_add, second load (cache hit)", *second->executable);
  const CubinCompileStats& stats = dynamic_cast<const CudaProgram&>(*second->executable).compile_stats();
  checks.expect(stats.chunks.size() == 1 && stats.hits() == 1, "a second load finds its cubin in the cache",
                std::to_string(stats.hits()) + " hits of " + std::to_string(stats.chunks.size()));
  // The hit's report is the one NVRTC gave the miss (read back from the entry's log). NVRTC
  // 13.0.88 on the lent H200 machine mostly leaves its log empty, so there it may be empty too.
  auto report = [](const Executable& e) {
    std::string text;
    for (const CubinChunkStats& chunk : dynamic_cast<const CudaProgram&>(e).compile_stats().chunks)
      for (const KernelResources& k : chunk.resources)
        text += k.name + ": " + std::to_string(k.registers) + " registers; ";
    return text;
  };
  const std::string miss = report(*first->executable), hit = report(*second->executable);
  checks.expect(hit == miss, "a hit keeps ptxas's report", "hit: " + hit + " miss: " + miss);
  if (miss.empty()) std::printf("note: NVRTC gave no ptxas report for pointwise_add\n");
}

int run() {
  Checks checks;
  if (!find_test_gpu(checks)) return checks.finish();
  const std::string cache_dir =
      (std::filesystem::temp_directory_path() / ("kiln-cuda-program-gpu-" + std::to_string(::getpid()))).string();
  check_cases(checks, cache_dir);
  check_matmuls(checks, cache_dir);
  check_resident_timing(checks, cache_dir);
  check_cache_hit(checks, cache_dir);
  std::filesystem::remove_all(cache_dir);
  return checks.finish();
}

}  // namespace
}  // namespace kiln

int main() { return kiln::run(); }
