// kiln_bench_onnx_export [RUNS] [PYTHON]: exporting the demo's GPT at GPT-2-small size
// (12 layers, width 768, 12 heads, vocabulary 50257, context 1024; 124M parameters) to ONNX,
// beside torch.onnx.export of the same model in the same run (bench/torch_onnx_export.py).
// Rows, each the best of RUNS:
//   - kiln export without weights: graph -> checked ModelProto (export passes, every node,
//     ONNX's checker and shape inference), the weights as model inputs: the acceptance figure;
//   - kiln export with weights: the same with the weights copied in as initializers;
//   - kiln serialize: the ModelProto to bytes (weight serialization);
//   - torch.onnx.export with export_params=False and =True (to memory).
// Capture is not part of export and is timed on its own row.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "bench_util.h"
#include "demo/gpt.h"
#include "frontend/capture.h"
#include "onnx/export.h"
#include "runtime/cpu/process.h"

using namespace kiln;
using kiln::bench::json_number;
using kiln::bench::or_die;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

template <typename F>
double best_ms(int runs, F f) {
  double best = 1e30;
  for (int i = 0; i < runs; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best, 1e3 * seconds_since(t0));
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 3;
  const std::string python = argc > 2 ? argv[2] : std::string(KILN_SOURCE_DIR) + "/.venv/bin/python";
  const demo::GptConfig config{.vocab_size = 50257, .context = 1024, .width = 768, .num_heads = 12, .num_layers = 12};
  const int64_t seq = 128;

  auto t0 = std::chrono::steady_clock::now();
  demo::Gpt gpt(config);
  const double build_s = seconds_since(t0);
  const Tensor tokens = Tensor::randint(0, config.vocab_size, {1, seq}, 1);
  Captured c;
  const double capture_ms = best_ms(runs, [&] {
    c = or_die(capture([&](std::span<const Tensor> in) { return std::vector<Tensor>{gpt.forward(in[0])}; }, {tokens},
                       {.name = "gpt2_small", .input_names = {"tokens"}, .module = &gpt}),
               "capture");
  });
  int64_t params = 0;
  for (const Tensor& t : c.lifted) params += t.numel();

  onnx::ExportedModel with_weights;
  const double no_weights_ms = best_ms(runs, [&] { (void)or_die(onnx::export_graph(*c.graph), "export"); });
  const double weights_ms =
      best_ms(runs, [&] { with_weights = or_die(onnx::export_graph(*c.graph, c.lifted), "export"); });
  size_t bytes = 0;
  const double serialize_ms = best_ms(runs, [&] { bytes = with_weights.serialize().size(); });

  Expected<ProcessResult> r =
      run_process({python, std::string(KILN_SOURCE_DIR) + "/bench/torch_onnx_export.py", "--vocab",
                   std::to_string(config.vocab_size), "--context", std::to_string(config.context), "--width",
                   std::to_string(config.width), "--heads", std::to_string(config.num_heads), "--layers",
                   std::to_string(config.num_layers), "--seq", std::to_string(seq), "--runs", std::to_string(runs)});
  double torch_no_weights = -1, torch_weights = -1;
  if (r && r->ok()) {
    torch_no_weights = json_number(r->output, "without_weights_ms");
    torch_weights = json_number(r->output, "with_weights_ms");
  } else {
    std::fprintf(stderr, "PyTorch side failed: %s\n", r ? r->output.c_str() : r.error().to_string().c_str());
  }

  std::printf(
      "ONNX export of the demo GPT at GPT-2-small size: %d layers, width %lld, %lld heads, vocab %lld, "
      "%lld parameters (untied LM head), tokens [1,%lld], %zu graph nodes, %zu ONNX nodes, opset 17, best of %d\n",
      static_cast<int>(config.num_layers), static_cast<long long>(config.width),
      static_cast<long long>(config.num_heads), static_cast<long long>(config.vocab_size),
      static_cast<long long>(params), static_cast<long long>(seq), c.graph->num_nodes(), with_weights.num_nodes(),
      runs);
  std::printf("%-52s %10s %12s\n", "", "kiln (ms)", "torch / kiln");
  std::printf("%-52s %10.1f\n", "model construction, not timed below (s)", build_s);
  std::printf("%-52s %10.1f\n", "capture (not part of export)", capture_ms);
  auto row = [](const char* what, double kiln_ms, double torch_ms) {
    if (torch_ms > 0)
      std::printf("%-52s %10.1f %11.1fx   (torch %.1f ms)\n", what, kiln_ms, torch_ms / kiln_ms, torch_ms);
    else
      std::printf("%-52s %10.1f\n", what, kiln_ms);
  };
  row("export without weights (checked ModelProto)", no_weights_ms, torch_no_weights);
  row("export with weights as initializers", weights_ms, torch_weights);
  std::printf("%-52s %10.1f   (%.0f MB)\n", "serialize the model with weights", serialize_ms, bytes / 1e6);
  return 0;
}
