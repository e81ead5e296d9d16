// Fine-tunes a PyTorch model from C++: imports a torch.export archive (export_gpt2.py writes a
// small GPT-2), wraps its graph as a module whose weights are trainable parameters, compiles
// one training step (forward, backward, the CPU backend's kernels), runs AdamW on a toy
// next-token task and prints the loss; then exports the fine-tuned model to ONNX and verifies
// it in ONNX Runtime against kiln's interpreter.
//
//   finetune_pt2 gpt2.pt2 [STEPS] [model.onnx]
//
// Exits 0 when the loss fell to under half its first value and the ONNX model verified.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <kiln/kiln.h>

using namespace kiln;

namespace {

// A batch of the toy task: rows of a counting sequence modulo `vocab` with a stride per row;
// the targets are each token's successor.
std::vector<Tensor> counting_batch(int64_t rows, int64_t length, int64_t vocab, int64_t start) {
  std::vector<int64_t> tokens, targets;
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t stride = 1 + r % 3;
    for (int64_t t = 0; t < length; ++t) {
      tokens.push_back((start + r + t * stride) % vocab);
      targets.push_back((start + r + (t + 1) * stride) % vocab);
    }
  }
  return {Tensor::from_ints(tokens, {rows, length}), Tensor::from_ints(targets, {rows, length})};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: finetune_pt2 MODEL.pt2 [STEPS] [model.onnx]\n");
    return 2;
  }
  const int steps = argc > 2 ? std::atoi(argv[2]) : 40;
  try {
    ImportedProgram imported = value_or_throw(import_pt2(argv[1]));
    std::printf("imported @%s: %zu weights, %zu user input(s)\n", imported.graph->name().c_str(),
                imported.weights.size(), imported.user_inputs.size());
    nn::GraphModule model(std::move(imported.graph), imported.weights);
    const TensorType logits_type = model.graph().outputs()[0]->type();
    const int64_t rows = logits_type.shape[0].value(), length = logits_type.shape[1].value();
    const int64_t vocab = logits_type.shape[2].value();

    auto loss = [vocab](nn::GraphModule& m, std::span<const Tensor> batch) {
      Tensor logits = m.forward(batch.subspan(0, 1))[0];
      return cross_entropy(reshape(logits, {-1, vocab}), reshape(batch[1], {-1}));
    };
    TrainStep step =
        compile_train_step(model, loss, counting_batch(rows, length, vocab, 0), {.batch_names = {"tokens", "targets"}});
    optim::AdamW optimizer(model.named_parameters(), {.lr = 1e-2, .weight_decay = 0.0});
    double first = 0, last = 0;
    for (int s = 0; s < steps; ++s) {
      StepResult r = step(counting_batch(rows, length, vocab, s % 7));
      optimizer.step(r.grads);
      last = r.loss.item_double(0);
      if (s == 0) first = last;
      if (s % 10 == 0 || s == steps - 1) std::printf("step %3d  loss %.4f\n", s, last);
    }
    const bool fell = last < 0.5 * first;
    std::printf("loss %.4f -> %.4f: %s\n", first, last, fell ? "fell below half" : "did not fall below half");

    // The fine-tuned model (its parameters now hold the trained values) to ONNX, checked
    // in ONNX Runtime against kiln's interpreter on a batch of the task.
    Tensor tokens = counting_batch(rows, length, vocab, 3)[0];
    Captured forward =
        value_or_throw(capture(CaptureFn1([&](std::span<const Tensor> in) { return model.forward(in)[0]; }), {tokens},
                               {.name = model.graph().name(), .input_names = {"input_ids"}, .module = &model}));
    if (argc > 3) {
      onnx::ExportedModel exported = value_or_throw(onnx::export_graph(*forward.graph, forward.lifted));
      Status saved = exported.save(argv[3]);
      if (!saved) throw Error(saved.error());
      std::printf("wrote %s\n", argv[3]);
    }
    onnx::VerifyReport report = value_or_throw(onnx::verify(forward, std::vector<Tensor>{tokens}));
    std::printf("%s", report.to_table().c_str());
    return fell && report.passed ? 0 : 1;
  } catch (const Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
