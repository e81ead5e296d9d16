// Training compiled for CUDA (CompileOptions{.device = Device::cuda()}) on a real GPU, over the
// models the CPU backend trains (tests/model's MLP and CNN with batch norm in training mode, the
// transformer block, the demo's GPT): value_and_grad's loss and gradients against the
// interpreter's and the CPU backend's, then three compile_train_step steps with SGD against the
// same steps on both (each step's loss, then every parameter and buffer). Each comparison prints
// its largest difference and the tolerance; each model prints the ops its CUDA programs run on the
// host. Compiled CUDA programs take host tensors (docs/CUDA.md): a device tensor given to
// value_and_grad or compile is an error naming the input. Built in the whole tree's build only.
// Where there is no driver or device it prints "no CUDA device: ..." and exits 77.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backend/compile_graph.h"
#include "demo/gpt.h"
#include "frontend/capture.h"
#include "frontend/functional.h"
#include "gpu_checks.h"
#include "model_suite.h"
#include "ops/op_info.h"
#include "runtime/cuda/cuda_backend.h"
#include "runtime/cuda/cuda_program.h"
#include "support/error.h"
#include "train/compile_options.h"
#include "train/compiled_function.h"
#include "train/sgd.h"
#include "train/train_step.h"
#include "train/value_and_grad_fn.h"
#include "transformer_block.h"

namespace kiln {
namespace {

using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

// Every comparison's relative tolerance, against the largest magnitude compared (at least 1 for
// losses, parameters and buffers): the CPU backend's model gradients are held to it
// (tests/unit/test_cpu_model_gradients.cc): float kernels against the interpreter's double
// arithmetic, and each matmul library's own order of summation.
constexpr double kRtol = 1e-4;

std::string sci(double v, int digits = 3) {
  char text[40];
  std::snprintf(text, sizeof text, "%.*g", digits, v);
  return text;
}

// The largest |got - want| over the tensors of `want`, where it is, and the largest |want|.
struct Difference {
  double largest = -1;  // -1: no element compared
  std::string where = "no element";
  double scale = 0;
};

Difference difference(const NamedTensors& got, const NamedTensors& want) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (got.size() != want.size())
    return {kInf, std::to_string(got.size()) + " tensors, want " + std::to_string(want.size()), 0};
  Difference d;
  for (size_t k = 0; k < want.size(); ++k) {
    const auto& [name, w] = want[k];
    const Tensor& g = got[k].second;
    if (got[k].first != name || g.type() != w.type())
      return {kInf, got[k].first + " is " + g.type().to_string() + ", want " + name + " " + w.type().to_string(), 0};
    for (int64_t i = 0; i < w.numel(); ++i) {
      const double gv = g.item_double(i), wv = w.item_double(i);
      const bool both_nan = std::isnan(gv) && std::isnan(wv);
      const double e = both_nan ? 0 : std::isnan(gv - wv) ? kInf : std::fabs(gv - wv);
      d.scale = std::max(d.scale, std::fabs(wv));
      if (e > d.largest) {
        d.largest = e;
        d.where = name + "[" + std::to_string(i) + "] is " + sci(gv, 9) + ", want " + sci(wv, 9);
      }
    }
  }
  d.largest = std::max(d.largest, 0.0);
  return d;
}

// Passes when every element of `got` is within kRtol * max(floor, largest |want|) of `want`;
// prints the largest difference against that tolerance either way.
void expect_close(Checks& checks, const std::string& name, const NamedTensors& got, const NamedTensors& want,
                  double floor) {
  const Difference d = difference(got, want);
  const double tolerance = kRtol * std::max(floor, d.scale);
  checks.expect(d.largest <= tolerance, name,
                "largest difference " + sci(d.largest) + " (" + d.where + "), tolerance " + sci(tolerance) + " = " +
                    sci(kRtol) + " * " + sci(std::max(floor, d.scale)));
}

// Where a model runs: the interpreter, the CPU backend and CUDA, CUDA last; kernels cached in
// `cache_dir`.
struct Target {
  std::string name;
  CompileOptions options;
};

std::vector<Target> targets(const std::string& cache_dir) {
  CompileOptions cpu{.device = Device::cpu()}, cuda{.device = Device::cuda()};
  cpu.backends.cpu.compile.cache_dir = cache_dir + "/cpu";
  cuda.backends.cuda.run.cache_dir = cache_dir + "/cuda";
  return {{"the interpreter", {.execution = Execution::Interpreter}}, {"the CPU backend", cpu}, {"CUDA", cuda}};
}

// The message of the kiln::Error `f` throws, or "no error".
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.diagnostic().message();
  }
  return "no error";
}

// `run` under every target's options, in order; where it throws, `what` fails on that target,
// which gives nothing (the other targets are still compared).
template <typename R>
std::vector<std::optional<R>> run_on(Checks& checks, const std::vector<Target>& on, const std::string& what,
                                     const std::function<R(const CompileOptions&)>& run) {
  std::vector<std::optional<R>> results;
  for (const Target& t : on) {
    try {
      results.emplace_back(run(t.options));
    } catch (const Error& e) {
      checks.expect(false, what + " on " + t.name, e.diagnostic().to_string());
      results.emplace_back();
    }
  }
  return results;
}

// ---- value_and_grad ----

// What a model's value_and_grad gave on one target: outputs, gradients (named by the input they
// differentiate), the module's buffers afterwards, and for CUDA the ops its programs run on the host.
struct GradResult {
  NamedTensors values, grads, buffers;
  std::string host_copied;
};

// "forward: conv2d; backward: none": the extern ops the forward and backward programs of `fn`
// run on the host when compiled for CUDA (each costs copies of its operands to the host and back).
std::string host_copied_ops(const GradFunction& fn, const CompileOptions& cuda) {
  const CudaBackend backend(cuda.device, cuda.backends.cuda);
  std::string text;
  for (const auto& [label, graph] :
       {std::pair{"forward", fn.partition().forward.get()}, std::pair{"backward", fn.partition().backward.get()}}) {
    CompiledGraph compiled = value_or_throw(compile_graph(*graph, backend));
    std::string ops;
    for (OpKind op : dynamic_cast<const CudaProgram&>(compiled.executable()).host_copied_ops())
      ops += (ops.empty() ? "" : ", ") + std::string(op_info(op).name());
    text += (text.empty() ? "" : "; ") + std::string(label) + ": " + (ops.empty() ? "none" : ops);
  }
  return text;
}

GradResult run_gradients(const GradFunction& fn, const std::vector<Tensor>& batch, const nn::Module& module,
                         const CompileOptions& options) {
  ValueAndGrad r = value_or_throw(fn(batch));
  GradResult out;
  for (size_t k = 0; k < r.values.size(); ++k) out.values.emplace_back("output " + std::to_string(k), r.values[k]);
  const JointGraph& joint = fn.joint();
  for (size_t k = 0; k < r.grads.size(); ++k)
    out.grads.emplace_back("the gradient of %" + joint.graph->input(joint.wrt_inputs[k])->name(), r.grads[k]);
  for (const auto& [name, t] : module.named_buffers()) out.buffers.emplace_back(name, t.clone());
  if (options.execution == Execution::Compiled && options.device.is_cuda())
    out.host_copied = host_copied_ops(fn, options);
  return out;
}

GradResult mlp_gradients(const CompileOptions& options) {
  test_models::Mlp mlp;
  const ValueAndGradFn fn =
      value_and_grad([&](std::span<const Tensor> in) { return mse_loss(mlp.forward(in[0]), in[1]); },
                     {Tensor::randn({7, 16}, 3), Tensor::randn({7, 4}, 4)},
                     {.input_names = {"x", "y"}, .module = &mlp, .compile = options});
  return run_gradients(fn.grad_function(), {Tensor::randn({7, 16}, 5), Tensor::randn({7, 4}, 6)}, mlp, options);
}

// Batch statistics in the loss; the running statistics written back (compared as buffers).
GradResult cnn_gradients(const CompileOptions& options) {
  test_models::SmallCnn cnn;
  cnn.train(true);
  const ValueAndGradFn fn =
      value_and_grad([&](std::span<const Tensor> in) { return sum(mul(cnn.forward(in[0]), in[1])); },
                     {Tensor::randn({2, 3, 8, 8}, 11), Tensor::randn({2, 10}, 12)},
                     {.input_names = {"x", "w"}, .module = &cnn, .compile = options});
  return run_gradients(fn.grad_function(), {Tensor::randn({2, 3, 8, 8}, 13), Tensor::randn({2, 10}, 14)}, cnn, options);
}

// The block's module type is private to the model suite: its captured loss goes through
// compile_gradients, the step value_and_grad takes after capturing.
GradResult transformer_block_gradients(const CompileOptions& options) {
  const test_models::TransformerBlockConfig config{.batch = 2, .seq = 16, .width = 32, .heads = 4, .seed = 1};
  const std::unique_ptr<nn::Module> block = test_models::make_transformer_block(config);
  const Tensor x = test_models::transformer_block_input(config);
  Captured c = value_or_throw(test_models::capture_transformer_block(*block, x));
  const GradFunction fn =
      value_or_throw(compile_gradients(*c.graph, std::move(c.lifted), {}, options, "transformer block", {}));
  return run_gradients(fn, {x}, *block, options);
}

// Embeddings (an index whose gradient scatters), causal attention, layer norms, cross-entropy.
GradResult gpt_gradients(const CompileOptions& options) {
  demo::Gpt gpt(demo::GptConfig{});
  const ValueAndGradFn fn = value_and_grad([&](std::span<const Tensor> in) { return gpt.loss(in[0], in[1]); },
                                           {Tensor::randint(0, 16, {2, 16}, 5), Tensor::randint(0, 16, {2, 16}, 6)},
                                           {.input_names = {"tokens", "targets"}, .module = &gpt, .compile = options});
  return run_gradients(fn.grad_function(), {Tensor::randint(0, 16, {2, 16}, 7), Tensor::randint(0, 16, {2, 16}, 8)},
                       gpt, options);
}

void check_gradients(Checks& checks, const std::vector<Target>& on, const std::string& model,
                     const std::function<GradResult(const CompileOptions&)>& gradients) {
  const std::vector<std::optional<GradResult>> results = run_on(checks, on, model + ": value_and_grad", gradients);
  if (!results.back()) return;
  const GradResult& cuda = *results.back();
  std::printf("note %s: ops its CUDA programs run on the host: %s\n", model.c_str(), cuda.host_copied.c_str());
  for (size_t k = 0; k + 1 < results.size(); ++k) {
    if (!results[k]) continue;
    const std::string against = model + ": CUDA against " + on[k].name + ", ";
    expect_close(checks, against + "outputs", cuda.values, results[k]->values, 1);
    expect_close(checks, against + std::to_string(cuda.grads.size()) + " gradients", cuda.grads, results[k]->grads, 0);
    if (!cuda.buffers.empty()) expect_close(checks, against + "buffers after", cuda.buffers, results[k]->buffers, 1);
  }
}

// ---- compile_train_step ----

// Each step's loss, then every parameter and buffer after the last step.
struct Trained {
  NamedTensors losses, state;
};

// `steps` SGD steps of `model` on `batches[0]`, `batches[1]`, ... through compile_train_step.
template <typename M, typename F>
Trained train(M& model, F loss, const std::vector<std::vector<Tensor>>& batches, double lr,
              const CompileOptions& options) {
  const TrainStep step = compile_train_step(model, loss, batches[0], options);
  optim::SGD sgd(model.named_parameters(), {.lr = lr});
  Trained out;
  for (size_t s = 0; s < batches.size(); ++s) {
    StepResult r = step(batches[s]);
    out.losses.emplace_back("the loss of step " + std::to_string(s + 1), r.loss);
    sgd.step(r.grads);
  }
  for (const auto& [name, t] : model.named_parameters()) out.state.emplace_back(name, t.clone());
  for (const auto& [name, t] : model.named_buffers()) out.state.emplace_back(name, t.clone());
  return out;
}

std::vector<std::vector<Tensor>> batches(const std::function<std::vector<Tensor>(uint64_t)>& batch) {
  return {batch(21), batch(23), batch(25)};
}

Trained mlp_steps(const CompileOptions& options) {
  test_models::Mlp mlp;
  auto loss = [](test_models::Mlp& m, std::span<const Tensor> b) { return mse_loss(m.forward(b[0]), b[1]); };
  return train(mlp, loss, batches([](uint64_t s) {
                 return std::vector{Tensor::randn({7, 16}, s), Tensor::randn({7, 4}, s + 1)};
               }),
               0.1, options);
}

// Batch norm in training mode: each step writes the running statistics back, and the next reads them.
Trained cnn_steps(const CompileOptions& options) {
  test_models::SmallCnn cnn;
  cnn.train(true);
  auto loss = [](test_models::SmallCnn& m, std::span<const Tensor> b) { return mse_loss(m.forward(b[0]), b[1]); };
  return train(cnn, loss, batches([](uint64_t s) {
                 return std::vector{Tensor::randn({2, 3, 8, 8}, s), Tensor::randn({2, 10}, s + 1)};
               }),
               0.05, options);
}

Trained gpt_steps(const CompileOptions& options) {
  demo::Gpt gpt(demo::GptConfig{});
  auto loss = [](demo::Gpt& m, std::span<const Tensor> b) { return m.loss(b[0], b[1]); };
  return train(gpt, loss, batches([](uint64_t s) {
                 return std::vector{Tensor::randint(0, 16, {2, 16}, s), Tensor::randint(0, 16, {2, 16}, s + 1)};
               }),
               0.05, options);
}

void check_steps(Checks& checks, const std::vector<Target>& on, const std::string& model,
                 const std::function<Trained(const CompileOptions&)>& steps) {
  const std::vector<std::optional<Trained>> results = run_on(checks, on, model + ": train steps", steps);
  if (!results.back()) return;
  const Trained& cuda = *results.back();
  for (size_t k = 0; k + 1 < results.size(); ++k) {
    if (!results[k]) continue;
    const std::string against =
        model + ": " + std::to_string(cuda.losses.size()) + " SGD steps on CUDA against " + on[k].name + ", ";
    expect_close(checks, against + "each step's loss", cuda.losses, results[k]->losses, 1);
    expect_close(checks, against + "the " + std::to_string(cuda.state.size()) + " parameters and buffers after",
                 cuda.state, results[k]->state, 1);
  }
}

// ---- device tensors ----

// A compiled CUDA program copies its inputs in from host tensors (docs/CUDA.md): given one on
// the device, value_and_grad and compile fail naming it; the same tensor copied back runs.
void check_device_inputs(Checks& checks, const CompileOptions& cuda) {
  test_models::Mlp mlp;
  const std::vector<Tensor> batch = {Tensor::randn({7, 16}, 5), Tensor::randn({7, 4}, 6)};
  const std::string refused = "input %x is on cuda:0, and a compiled CUDA program's run reads host memory only";
  try {
    const ValueAndGradFn fn =
        value_and_grad([&](std::span<const Tensor> in) { return mse_loss(mlp.forward(in[0]), in[1]); }, batch,
                       {.input_names = {"x", "y"}, .module = &mlp, .compile = cuda});
    const Tensor on_device = batch[0].to(Device::cuda());
    checks.expect_message(error_of([&] {
                            fn({on_device, batch[1]});
                          }),
                          "value_and_grad for CUDA given %x on cuda:0", refused);
    const ValueAndGrad back = fn({on_device.to(Device::cpu()), batch[1]}), host = fn(batch);
    checks.expect(back.values[0].equal(host.values[0]), "value_and_grad for CUDA given %x copied back to the host");

    const CompiledFunction f = compile([&](std::span<const Tensor> in) { return mlp.forward(in[0]); }, {batch[0]}, cuda,
                                       {.input_names = {"x"}, .module = &mlp});
    checks.expect_message(error_of([&] { f({on_device}); }), "compile for CUDA given %x on cuda:0", refused);
  } catch (const Error& e) {
    checks.expect(false, "device inputs", e.diagnostic().to_string());
  }
}

int run() {
  Checks checks;
  if (!find_test_gpu(checks)) return checks.finish();
  const std::string cache_dir =
      (std::filesystem::temp_directory_path() / ("kiln-cuda-training-gpu-" + std::to_string(::getpid()))).string();
  const std::vector<Target> on = targets(cache_dir);
  check_gradients(checks, on, "mlp", mlp_gradients);
  check_gradients(checks, on, "small_cnn (training mode)", cnn_gradients);
  check_gradients(checks, on, "transformer_block", transformer_block_gradients);
  check_gradients(checks, on, "demo gpt", gpt_gradients);
  check_steps(checks, on, "mlp", mlp_steps);
  check_steps(checks, on, "small_cnn (training mode)", cnn_steps);
  check_steps(checks, on, "demo gpt", gpt_steps);
  check_device_inputs(checks, on.back().options);
  std::filesystem::remove_all(cache_dir);
  return checks.finish();
}

}  // namespace
}  // namespace kiln

int main() { return kiln::run(); }
