#include "demo/train_demo.h"

#include <cmath>

#include "frontend/functional.h"
#include "frontend/nn/linear.h"
#include "train/adamw.h"
#include "train/train_step.h"

namespace kiln::demo {

namespace {

struct RegressionMlp : nn::Module {
  nn::Linear fc1;
  nn::Linear fc2;
  RegressionMlp(int64_t hidden, uint64_t seed) : fc1(4, hidden, true, seed), fc2(hidden, 1, true, seed + 2) {
    register_module("fc1", fc1);
    register_module("fc2", fc2);
  }
  Tensor forward(const Tensor& x) { return fc2(gelu(fc1(x), "tanh")); }
};

int64_t count_elements(const nn::Module& m) {
  int64_t n = 0;
  for (const Tensor& p : m.parameters()) n += p.numel();
  return n;
}

// The demo's step: default partition until the min-cut partitioner is the default.
TrainStepOptions step_options(std::vector<std::string> batch_names, const TrainOptions& o) {
  return {.name = "train_step",
          .batch_names = std::move(batch_names),
          .compile = {.execution = o.execution, .partition = PartitionKind::Default, .report_dir = o.report_dir}};
}

TrainReport run(nn::Module& model, const TrainStep& step, double lr, int64_t steps,
                const std::function<std::vector<Tensor>(int64_t)>& batch_at) {
  TrainReport report;
  report.num_parameters = count_elements(model);
  report.saved_bytes = step.grad_function().partition().saved_bytes;
  report.compile_times = step.phase_times();
  optim::AdamW optimizer(model.named_parameters(), {.lr = lr, .weight_decay = 0.0});
  for (int64_t s = 0; s < steps; ++s) {
    StepResult r = step(batch_at(s));
    report.losses.push_back(r.loss.item_double());
    optimizer.step(r.grads);
  }
  return report;
}

}  // namespace

std::pair<Tensor, Tensor> arithmetic_sequences(int64_t batch, int64_t length, int64_t vocab_size, uint64_t seed) {
  const Tensor starts = Tensor::randint(0, vocab_size, {batch}, seed);
  const Tensor steps = Tensor::randint(1, 4, {batch}, seed + 1);
  std::vector<int64_t> tokens, targets;
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < length; ++i) {
      tokens.push_back((starts.item_int(b) + steps.item_int(b) * i) % vocab_size);
      targets.push_back((starts.item_int(b) + steps.item_int(b) * (i + 1)) % vocab_size);
    }
  return {Tensor::from_ints(tokens, {batch, length}), Tensor::from_ints(targets, {batch, length})};
}

TrainReport train_mlp_regression(const MlpTask& task) {
  const Tensor x = Tensor::randn({task.points, 4}, task.seed + 100);
  std::vector<double> y;
  for (int64_t i = 0; i < task.points; ++i) {
    const double x0 = x.item_double(4 * i), x1 = x.item_double(4 * i + 1), x2 = x.item_double(4 * i + 2),
                 x3 = x.item_double(4 * i + 3);
    y.push_back(std::sin(2 * x0) * x1 + x2 * x2 / 2 - x3);
  }
  const Tensor target = Tensor::from_doubles(y, {task.points, 1});
  RegressionMlp model(task.hidden, task.seed);
  auto loss = [](RegressionMlp& m, std::span<const Tensor> b) { return mse_loss(m.forward(b[0]), b[1]); };
  TrainStep step = compile_train_step(model, loss, {x, target}, step_options({"x", "y"}, task.train));
  return run(model, step, task.lr, task.steps, [&](int64_t) { return std::vector<Tensor>{x, target}; });
}

TrainReport train_gpt(const GptTask& task) {
  const GptConfig& c = task.model;
  Gpt model(c);
  auto batch_at = [&](int64_t s) {
    auto [tokens, targets] = arithmetic_sequences(task.batch, c.context, c.vocab_size, task.seed + 2 * s);
    return std::vector<Tensor>{tokens, targets};
  };
  auto loss = [](Gpt& m, std::span<const Tensor> b) { return m.loss(b[0], b[1]); };
  TrainStep step = compile_train_step(model, loss, batch_at(0), step_options({"tokens", "targets"}, task.train));
  TrainReport report = run(model, step, task.lr, task.steps, batch_at);
  if (task.on_trained) task.on_trained(model);
  return report;
}

}  // namespace kiln::demo
