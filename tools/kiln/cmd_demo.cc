// `kiln demo`: the end-to-end tour on built-in data. A small MLP with a softmax and a
// cross-entropy loss, written with the C++ API, is captured with a dynamic batch dim B, its
// graph printed, then run eagerly and through the reference interpreter on seeded random
// data of another batch size; the outputs must agree exactly.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "commands.h"
#include "kiln/kiln.h"

namespace kiln::cli {
namespace {

struct Mlp : nn::Module {
  nn::Linear fc1{16, 32, true, /*seed=*/1};
  nn::LayerNorm norm{{32}};
  nn::Linear fc2{32, 10, true, /*seed=*/3};

  Mlp() {
    register_module("fc1", fc1);
    register_module("norm", norm);
    register_module("fc2", fc2);
  }
  Tensor forward(const Tensor& x) { return fc2(norm(gelu(fc1(x)))); }
};

// Class probabilities and the mean loss against integer labels.
std::vector<Tensor> probabilities_and_loss(Mlp& model, const Tensor& x, const Tensor& labels) {
  Tensor logits = model.forward(x);
  return {softmax(logits, -1), cross_entropy(logits, labels)};
}

double max_abs_diff(const Tensor& a, const Tensor& b) {
  double worst = 0;
  for (int64_t i = 0; i < a.numel(); ++i) {
    const double x = a.item_double(i), y = b.item_double(i);
    if (std::isnan(x) != std::isnan(y)) return INFINITY;
    if (!std::isnan(x)) worst = std::max(worst, std::fabs(x - y));
  }
  return worst;
}

double mean_of(const Tensor& t) {
  double s = 0;
  for (int64_t i = 0; i < t.numel(); ++i) s += t.item_double(i);
  return t.numel() ? s / static_cast<double>(t.numel()) : 0.0;
}

}  // namespace

int cmd_demo(const Args& args) {
  if (!args.empty()) {
    std::fprintf(stderr, "usage: kiln demo\n");
    return 2;
  }
  Mlp model;
  auto fn = [&](std::span<const Tensor> in) { return probabilities_and_loss(model, in[0], in[1]); };
  CaptureOptions options{.dynamic = {{0, "B", 0}, {0, "B", 1}},
                         .name = "mlp",
                         .input_names = {"x", "labels"},
                         .module = &model};
  Expected<Captured> captured =
      capture(CaptureFn(fn), {Tensor::randn({4, 16}, 7), Tensor::randint(0, 10, {4}, 8)}, options);
  if (!captured) {
    std::fprintf(stderr, "%s\n", captured.error().to_string().c_str());
    return 1;
  }
  std::printf("captured graph (batch dim B is symbolic):\n%s\n", print_graph(*captured->graph).c_str());

  const Tensor x = Tensor::randn({8, 16}, 42);
  const Tensor labels = Tensor::randint(0, 10, {8}, 43);
  std::vector<Tensor> eager;
  try {
    eager = probabilities_and_loss(model, x, labels);
  } catch (const Error& e) {
    std::fprintf(stderr, "%s\n", e.diagnostic().to_string().c_str());
    return 1;
  }
  const std::vector<Tensor> inputs = {x, labels};
  Expected<std::vector<Tensor>> interpreted = captured->run(inputs);
  if (!interpreted) {
    std::fprintf(stderr, "%s\n", interpreted.error().to_string().c_str());
    return 1;
  }

  std::printf("run on B=8 (seeded random data):\n");
  std::printf("  %-8s %-10s %14s %14s %14s\n", "output", "type", "eager mean", "interp mean", "max |diff|");
  const char* names[] = {"probs", "loss"};
  bool agree = true;
  for (size_t i = 0; i < eager.size(); ++i) {
    const Tensor& e = eager[i];
    const Tensor& r = (*interpreted)[i];
    const bool same = e.equal(r);
    agree = agree && same;
    std::printf("  %-8s %-10s %14.8f %14.8f %14.3g\n", names[i], e.type().to_string().c_str(), mean_of(e), mean_of(r),
                same ? 0.0 : (e.type() == r.type() ? max_abs_diff(e, r) : INFINITY));
  }
  std::printf(agree ? "eager and interpreted outputs agree exactly\n" : "eager and interpreted outputs DISAGREE\n");
  return agree ? 0 : 1;
}

}  // namespace kiln::cli
