// The training half of `kiln demo`: two tasks on generated data, each trained with
// compile_train_step and AdamW, on the reference interpreter or compiled for the CPU
// (TrainOptions::execution; `kiln demo` compiles). Deterministic: the data, the
// initialization and the arithmetic depend only on the options, so two runs with the same
// options give bit-identical losses (tests/unit/test_train_step.cc checks it).
#pragma once

#include <functional>

#include <cstdint>
#include <utility>
#include <vector>

#include <string>

#include "core/tensor.h"
#include "demo/gpt.h"
#include "report/phase_times.h"
#include "train/graph_runner.h"

namespace kiln::demo {

struct TrainReport {
  std::vector<double> losses;  // the loss of every step, before that step's update
  int64_t num_parameters = 0;  // elements
  int64_t saved_bytes = 0;     // what the forward graph saves for the backward, per step
  PhaseTimes compile_times;    // compiling the train step (TrainStep::phase_times)
};

// How a task's train step is compiled (CompileOptions::execution, report_dir).
struct TrainOptions {
  Execution execution = Execution::Interpreter;
  std::string report_dir = {};  // "": no compile report
};

// Regression with an MLP (4 -> hidden -> 1, tanh-GELU): y = sin(2 x0) x1 + x2^2 / 2 - x3 on a
// fixed set of standard normal points, mean squared error, full batch.
struct MlpTask {
  int64_t steps = 200;
  int64_t points = 64;
  int64_t hidden = 32;
  double lr = 1e-2;
  uint64_t seed = 0;
  TrainOptions train = {};
};
TrainReport train_mlp_regression(const MlpTask& task);

// Next-token prediction with the GPT on arithmetic sequences modulo the vocabulary size:
// token i is (start + step * i) mod V, with start uniform in [0, V) and step in {1, 2, 3};
// a fresh batch every training step. Only the second token is ambiguous (its step is
// unknown), so the loss can fall close to ln(3) / T.
struct GptTask {
  GptConfig model = {};
  int64_t steps = 300;
  int64_t batch = 8;
  double lr = 3e-3;
  uint64_t seed = 0;
  TrainOptions train = {};
  // Called with the trained model after the last step (the demo exports it to ONNX).
  std::function<void(Gpt& trained)> on_trained = {};
};
TrainReport train_gpt(const GptTask& task);

// Tokens [batch, length] and their next tokens [batch, length] (i64), drawn from `seed`.
std::pair<Tensor, Tensor> arithmetic_sequences(int64_t batch, int64_t length, int64_t vocab_size, uint64_t seed);

}  // namespace kiln::demo
