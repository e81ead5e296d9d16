// compile_train_step: its gradients are the reference's, it reads the module's parameters as
// an optimizer leaves them, it rejects batches it was not compiled for, and the demo's
// training runs are deterministic and learn.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "autograd/value_and_grad.h"
#include "cpu_backend_util.h"
#include "demo/train_demo.h"
#include "frontend/capture.h"
#include "frontend/control_flow.h"
#include "frontend/functional.h"
#include "frontend/nn/batch_norm2d.h"
#include "frontend/nn/conv2d.h"
#include "frontend/nn/dropout.h"
#include "frontend/nn/linear.h"
#include "train/sgd.h"
#include "train/train_step.h"

namespace kiln {
namespace {

const TrainStepOptions kDefaultPartition{
    .compile = {.execution = Execution::Interpreter, .partition = PartitionKind::Default}};

struct Mlp : nn::Module {
  nn::Linear fc1{3, 8, true, 5};
  nn::Linear fc2{8, 2, true, 7};
  nn::Linear unused{2, 2, true, 9};  // never called: it gets no gradient
  Mlp() {
    register_module("fc1", fc1);
    register_module("fc2", fc2);
    register_module("unused", unused);
  }
  Tensor forward(const Tensor& x) { return fc2(tanh(fc1(x))); }
};

Tensor mlp_loss(Mlp& m, std::span<const Tensor> batch) { return mse_loss(m.forward(batch[0]), batch[1]); }

std::vector<Tensor> batch_of(uint64_t seed) { return {Tensor::randn({4, 3}, seed), Tensor::randn({4, 2}, seed + 1)}; }

struct ConvBn : nn::Module {
  nn::Conv2d conv{2, 3, 3, {.padding = {1, 1}}};
  nn::BatchNorm2d bn{3};
  ConvBn() {
    register_module("conv", conv);
    register_module("bn", bn);
  }
};

Tensor conv_bn_loss(ConvBn& m, std::span<const Tensor> batch) { return mean(relu(m.bn(m.conv(batch[0])))); }

// BatchNorm2d in training mode writes its running statistics back with copy_: the step
// functionalizes the graph, and the buffers are updated as an eager forward updates them.
TEST(TrainStep, MutatedBuffersAreWrittenBackAsEagerDoes) {
  ConvBn compiled, eager;
  const std::vector<Tensor> batch = {Tensor::randn({2, 2, 5, 5}, 3)};
  TrainStep step =
      compile_train_step(compiled, conv_bn_loss, batch, CompileOptions{.execution = Execution::Interpreter});
  for (int i = 0; i < 2; ++i) {  // twice: the second step reads the first one's statistics
    StepResult r = step(batch);
    Tensor want = conv_bn_loss(eager, batch);
    EXPECT_TRUE(r.loss.equal(want)) << "step " << i;
    EXPECT_TRUE(compiled.bn.running_mean.equal(eager.bn.running_mean)) << "step " << i;
    EXPECT_TRUE(compiled.bn.running_var.equal(eager.bn.running_var)) << "step " << i;
  }
  EXPECT_FALSE(compiled.bn.running_mean.equal(Tensor::zeros({3})));
  ASSERT_EQ(step.grad_function().joint().write_back_inputs.size(), 2u);
}

TEST(TrainStep, GradientsAreTheReferencesNamedLikeTheParameters) {
  Mlp model;
  TrainStep step = compile_train_step(model, mlp_loss, batch_of(1), kDefaultPartition);
  const std::vector<Tensor> batch = batch_of(10);
  StepResult r = step(batch);

  auto c = capture(CaptureFn1([&](std::span<const Tensor> b) { return mlp_loss(model, b); }), batch_of(1),
                   {.module = &model});
  ASSERT_TRUE(c) << c.error().to_string();
  std::vector<Tensor> inputs = batch;
  inputs.insert(inputs.end(), c->lifted.begin(), c->lifted.end());
  auto want = value_and_grad(*c->graph, inputs, {}, {.wrt = {"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"}});
  ASSERT_TRUE(want) << want.error().to_string();

  EXPECT_TRUE(r.loss.equal(want->values[0]));
  ASSERT_EQ(r.grads.size(), 4u);
  const char* names[] = {"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"};
  for (size_t k = 0; k < 4; ++k) {
    EXPECT_EQ(r.grads[k].first, names[k]);
    EXPECT_TRUE(r.grads[k].second.equal(want->grads[k])) << names[k];
  }
}

TEST(TrainStep, LiftedParametersShareTheModulesStorage) {
  Mlp model;
  auto c = capture(CaptureFn1([&](std::span<const Tensor> b) { return mlp_loss(model, b); }), batch_of(1),
                   {.module = &model});
  ASSERT_TRUE(c) << c.error().to_string();
  const auto params = model.named_parameters();
  int shared = 0;
  for (size_t k = 0; k < c->lifted.size(); ++k) {
    const std::string& name = c->graph->input(static_cast<int>(2 + k))->name();
    for (const auto& [n, t] : params)
      if (n == name) shared += c->lifted[k].storage() == t.storage() ? 1 : 0;
  }
  EXPECT_EQ(shared, 4);
}

// `got`'s loss and gradients equal `want`'s within float32 rounding (1e-5 relative), each
// gradient under the same name; `when` labels the step in failures.
void expect_same_step(const StepResult& got, const StepResult& want, const std::string& when) {
  EXPECT_NEAR(got.loss.item_double(0), want.loss.item_double(0), 1e-5 * (1 + std::fabs(want.loss.item_double(0))))
      << when;
  ASSERT_EQ(got.grads.size(), want.grads.size()) << when;
  for (size_t g = 0; g < want.grads.size(); ++g) {
    EXPECT_EQ(got.grads[g].first, want.grads[g].first) << when;
    const Tensor& w = want.grads[g].second;
    for (int64_t i = 0; i < w.numel(); ++i)
      EXPECT_NEAR(got.grads[g].second.item_double(i), w.item_double(i), 1e-5 * (1 + std::fabs(w.item_double(i))))
          << want.grads[g].first << " element " << i << ", " << when;
  }
}

// An SGD update in place changes the next step's loss to the loss of the updated module.
// CompileOptions{.device = Device::cpu()} compiles the forward and backward graphs to C++
// kernels; loss and gradients match the interpreter's (Execution::Interpreter, one option away)
// within float32 rounding (float math and the matmul library's summation order).
TEST(TrainStep, CpuBackendMatchesTheInterpreter) {
  Mlp a, b;
  TrainStep interpreted =
      compile_train_step(a, mlp_loss, batch_of(1), CompileOptions{.execution = Execution::Interpreter});
  TrainStep compiled = compile_train_step(b, mlp_loss, batch_of(1), CompileOptions{.device = Device::cpu()});
  for (uint64_t seed : {1, 5}) {
    expect_same_step(compiled(batch_of(seed)), interpreted(batch_of(seed)), "seed " + std::to_string(seed));
  }
}

struct DropoutMlp : nn::Module {
  nn::Linear fc1{3, 32, true, 5};
  nn::Dropout drop{0.25, 11};
  nn::Linear fc2{32, 2, true, 7};
  DropoutMlp() {
    register_module("fc1", fc1);
    register_module("drop", drop);
    register_module("fc2", fc2);
  }
};

Tensor dropout_mlp_loss(DropoutMlp& m, std::span<const Tensor> batch) {
  return mse_loss(m.fc2(m.drop(tanh(m.fc1(batch[0])))), batch[1]);
}

// A step with dropout compiled by the CPU backend: the mask is drawn inside the forward's
// kernels and drawn again in the backward's (the replay reads the step's rng_state), and loss
// and gradients are the interpreter's within float32 rounding, step after step (each step
// draws a fresh mask).
TEST(TrainStep, CpuBackendWithDropoutMatchesTheInterpreter) {
  DropoutMlp a, b;
  TrainStep interpreted =
      compile_train_step(a, dropout_mlp_loss, batch_of(1), CompileOptions{.execution = Execution::Interpreter});
  TrainStep compiled = compile_train_step(b, dropout_mlp_loss, batch_of(1), CompileOptions{.device = Device::cpu()});
  std::vector<double> losses;
  for (int step = 0; step < 3; ++step) {
    const StepResult want = interpreted(batch_of(3));
    losses.push_back(want.loss.item_double(0));
    expect_same_step(compiled(batch_of(3)), want, "step " + std::to_string(step));
  }
  EXPECT_NE(losses[0], losses[1]) << "each step draws a fresh mask";
}

// A data-dependent branch: fc2 of the hidden layer where its sum is positive, else half of
// fc2 of its relu. The captured loss has a cond whose branches read fc2's parameters; its
// backward has another. The compiled CPU backend compiles both to control kernels: loss and
// gradients match the interpreter's on batches that take either branch.
struct GatedMlp : Mlp {
  Tensor forward(const Tensor& x) {
    const Tensor h = tanh(fc1(x));
    return cond(
        gt(sum(h), 0.0), [&](std::span<const Tensor> a) { return std::vector<Tensor>{fc2(a[0])}; },
        [&](std::span<const Tensor> a) { return std::vector<Tensor>{mul(fc2(relu(a[0])), 0.5)}; }, {h})[0];
  }
};

Tensor gated_loss(GatedMlp& m, std::span<const Tensor> batch) { return mse_loss(m.forward(batch[0]), batch[1]); }

TEST(TrainStep, CpuBackendCompilesCondAndMatchesTheInterpreter) {
  GatedMlp a, b, eager;
  TrainStep interpreted =
      compile_train_step(a, gated_loss, batch_of(1), CompileOptions{.execution = Execution::Interpreter});
  TrainStep compiled = compile_train_step(b, gated_loss, batch_of(1), CompileOptions{.device = Device::cpu()});
  int taken[2] = {0, 0};
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    const std::vector<Tensor> batch = batch_of(seed);
    ++taken[sum(tanh(eager.fc1(batch[0]))).item_double(0) > 0 ? 0 : 1];
    expect_same_step(compiled(batch), interpreted(batch), "seed " + std::to_string(seed));
  }
  EXPECT_GT(taken[0], 0);  // both branches ran
  EXPECT_GT(taken[1], 0);
}

// report_dir writes the step's compile report: the training stages, the partition, both
// compiled programs and the phase times, which the step keeps either way.
TEST(TrainStep, ReportDirWritesTheCompileReport) {
  Mlp m;
  TempDir dir("kiln-train-report");
  TrainStepOptions options;
  options.compile.report_dir = dir.path() + "/step";
  TrainStep step = compile_train_step(m, mlp_loss, batch_of(1), options);
  std::ifstream in(options.compile.report_dir + "/index.html");
  std::stringstream html;
  html << in.rdbuf();
  for (const char* part : {"<h3>captured</h3>", "<h3>joint</h3>", "<h3>forward</h3>", "<h3>backward</h3>",
                           "The forward saves", "<tr><td>capture</td>", "<tr><td>partition</td>"})
    EXPECT_NE(html.str().find(part), std::string::npos) << part;
  EXPECT_TRUE(std::filesystem::exists(options.compile.report_dir + "/programs/2-backward.cpp"));
  EXPECT_TRUE(step.phase_times().seconds(Phase::Capture));
  EXPECT_TRUE(step.phase_times().seconds(Phase::Compile));
}

TEST(TrainStep, AnUnwritableReportDirThrowsNamingIt) {
  Mlp m;
  TempDir dir("kiln-train-report");
  const std::string file = dir.path() + "/a-file";
  std::ofstream(file) << "x";
  TrainStepOptions options;
  options.compile.report_dir = file + "/step";
  try {
    compile_train_step(m, mlp_loss, batch_of(1), options);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(e.diagnostic().to_string().find("report: cannot create directory '" + options.compile.report_dir + "'"),
              std::string::npos)
        << e.diagnostic().to_string();
  }
}

TEST(TrainStep, ReadsParametersAsTheOptimizerLeavesThem) {
  Mlp model;
  TrainStep step = compile_train_step(model, mlp_loss, batch_of(1), kDefaultPartition);
  optim::SGD sgd(model.named_parameters(), {.lr = 0.1});
  const std::vector<Tensor> batch = batch_of(20);
  StepResult first = step(batch);
  const Tensor unused_before = model.unused.weight.clone();
  sgd.step(first.grads);
  StepResult second = step(batch);
  EXPECT_LT(second.loss.item_double(), first.loss.item_double());
  const Tensor eager = mlp_loss(model, batch);
  EXPECT_TRUE(second.loss.equal(eager));
  EXPECT_TRUE(model.unused.weight.equal(unused_before));
}

TEST(TrainStep, ABatchOfOtherShapesIsAnError) {
  Mlp model;
  TrainStep step = compile_train_step(model, mlp_loss, batch_of(1), kDefaultPartition);
  try {
    step({Tensor::randn({5, 3}, 1), Tensor::randn({5, 2}, 2)});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("batch tensor 0 is f32[5,3], the step was compiled for f32[4,3]"),
              std::string::npos)
        << e.what();
  }
  try {
    step({Tensor::randn({4, 3}, 1)});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("compiled for a batch of 2 tensors, given 1"), std::string::npos) << e.what();
  }
}

TEST(TrainStep, ALossThatIsNotAScalarIsAnError) {
  Mlp model;
  auto not_scalar = [](Mlp& m, std::span<const Tensor> b) { return m.forward(b[0]); };
  try {
    compile_train_step(model, not_scalar, batch_of(1), kDefaultPartition);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("must return a scalar floating tensor, not f32[4,2]"), std::string::npos)
        << e.what();
  }
}

TEST(TrainStep, ALossThatReadsNoParameterIsAnError) {
  Mlp model;
  auto no_params = [](Mlp&, std::span<const Tensor> b) { return mean(b[0]); };
  try {
    compile_train_step(model, no_params, batch_of(1), kDefaultPartition);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("reads no floating parameter of the module"), std::string::npos) << e.what();
  }
}

TEST(TrainStep, ATracedBatchTensorIsAnError) {
  Mlp model;
  TrainStep step = compile_train_step(model, mlp_loss, batch_of(1), kDefaultPartition);
  EXPECT_THROW(step({Tensor(), Tensor::randn({4, 2}, 2)}), Error);
}

// The untemplated form, for a loss written against nn::Module.
TEST(TrainStep, ALossFnOverTheBaseModuleWorks) {
  nn::Module model;
  model.register_parameter("w", Tensor::from_doubles({1.0, 2.0, 3.0}, {3}));
  auto loss = [](nn::Module& m, std::span<const Tensor> b) { return sum(mul(m.parameters()[0], b[0])); };
  TrainStep step = compile_train_step(model, LossFn(loss), {Tensor::randn({3}, 2)}, kDefaultPartition);
  const Tensor x = Tensor::from_doubles({4.0, 5.0, 6.0}, {3});
  StepResult r = step({x});
  EXPECT_EQ(r.loss.item_double(), 32.0);
  ASSERT_EQ(r.grads.size(), 1u);
  EXPECT_EQ(r.grads[0].first, "w");
  EXPECT_TRUE(r.grads[0].second.equal(x));
}

TEST(TrainStep, CaptureErrorsThrow) {
  Mlp model;
  auto bad = [](Mlp& m, std::span<const Tensor> b) { return mean(m.forward(b[1])); };  // [4,2] into fc1 (3 in)
  EXPECT_THROW(compile_train_step(model, bad, batch_of(1), kDefaultPartition), Error);
}

// ---- the demo's training runs ----

demo::GptTask small_gpt_task() {
  demo::GptTask task;
  task.model = {.vocab_size = 8, .context = 8, .width = 16, .num_heads = 2, .num_layers = 2, .seed = 3};
  task.steps = 40;
  task.batch = 8;
  task.lr = 1e-2;
  return task;
}

TEST(DemoTraining, GptRunsAreBitIdenticalAndLearn) {
  const demo::TrainReport a = demo::train_gpt(small_gpt_task());
  const demo::TrainReport b = demo::train_gpt(small_gpt_task());
  ASSERT_EQ(a.losses.size(), 40u);
  EXPECT_EQ(a.losses, b.losses);  // exact: the same seed gives the same run
  EXPECT_GT(a.losses.front(), 1.5);
  EXPECT_LT(a.losses.back(), 0.8);  // from about ln(8) = 2.08 toward ln(3) / 8 = 0.14
}

TEST(DemoTraining, MlpRunsAreBitIdenticalAndLearn) {
  const demo::MlpTask task{.steps = 60};
  const demo::TrainReport a = demo::train_mlp_regression(task);
  const demo::TrainReport b = demo::train_mlp_regression(task);
  EXPECT_EQ(a.losses, b.losses);
  EXPECT_LT(a.losses.back(), 0.5 * a.losses.front());
}

TEST(DemoTraining, ArithmeticSequencesFollowTheirRule) {
  auto [tokens, targets] = demo::arithmetic_sequences(3, 5, 7, 42);
  for (int64_t b = 0; b < 3; ++b) {
    const int64_t step = (tokens.item_int(5 * b + 1) - tokens.item_int(5 * b) + 7) % 7;
    EXPECT_TRUE(step >= 1 && step <= 3);
    for (int64_t i = 0; i < 5; ++i) {
      EXPECT_EQ(targets.item_int(5 * b + i), (tokens.item_int(5 * b + i) + step) % 7);
      if (i > 0) {
        EXPECT_EQ(tokens.item_int(5 * b + i), targets.item_int(5 * b + i - 1));
      }
    }
  }
}

}  // namespace
}  // namespace kiln
