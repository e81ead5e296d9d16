// joint_graph_passes on GPT-2-small-sized joint graphs (width 768, 12 heads, vocab 50257,
// sequence 128, batch 1, float32) of 1, 6 and 12 layers: the joint graph's size, the median
// time of the passes (on a fresh copy each run; copying is not timed) and the pattern
// matcher's node comparisons (node_visits, summed over the pattern sets), which must grow
// linearly with the graph. The acceptance line: 12 layers under 200 ms.
//
// Two forms of each model: kiln's composite ops as captured, and with layer_norm, gelu,
// linear and cross_entropy decomposed into core ops before differentiation (the granularity
// of the reference's ATen-level joint graph, about 3,000 nodes at 12 layers). Attention fuses
// in both (one match per layer). 24 layers shows a joint graph past 3,000 nodes.
//
//     build/bench/kiln_bench_joint_graph_passes [runs]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "autograd/joint_graph.h"
#include "frontend/capture.h"
#include "frontend/functional.h"
#include "frontend/nn/causal_self_attention.h"
#include "frontend/nn/embedding.h"
#include "frontend/nn/layer_norm.h"
#include "frontend/nn/linear.h"
#include "frontend/nn/module.h"
#include "frontend/nn/module_list.h"
#include "passes/decompose.h"
#include "patterns/joint_graph_passes.h"

namespace {

using Clock = std::chrono::steady_clock;
using namespace kiln;

constexpr int64_t kWidth = 768, kHeads = 12, kVocab = 50257, kSeq = 128, kPositions = 1024;

class Block : public nn::UnaryModule {
 public:
  explicit Block(uint64_t seed)
      : ln1_({kWidth}),
        attn_(kWidth, kHeads, seed),
        ln2_({kWidth}),
        fc_(kWidth, 4 * kWidth, true, seed + 1),
        proj_(4 * kWidth, kWidth, true, seed + 2) {
    register_module("ln_1", ln1_);
    register_module("attn", attn_);
    register_module("ln_2", ln2_);
    register_module("mlp.c_fc", fc_);
    register_module("mlp.c_proj", proj_);
  }
  Tensor forward(const Tensor& x, CallSite = CallSite::current()) override {
    const Tensor h = add(x, attn_(ln1_(x)));
    return add(h, proj_(gelu(fc_(ln2_(h)), "tanh")));
  }

 private:
  nn::LayerNorm ln1_;
  nn::CausalSelfAttention attn_;
  nn::LayerNorm ln2_;
  nn::Linear fc_, proj_;
};

class Gpt2 : public nn::Module {
 public:
  explicit Gpt2(int layers)
      : wte_(kVocab, kWidth, -1, 1),
        wpe_(kPositions, kWidth, -1, 2),
        ln_f_({kWidth}),
        lm_head_(kWidth, kVocab, false, 3) {
    register_module("wte", wte_);
    register_module("wpe", wpe_);
    for (int i = 0; i < layers; ++i) blocks_.push_back(std::make_shared<Block>(10 + 3 * static_cast<uint64_t>(i)));
    register_module("h", blocks_);
    register_module("ln_f", ln_f_);
    register_module("lm_head", lm_head_);
  }
  Tensor loss(const Tensor& tokens, const Tensor& targets) {
    Tensor x = add(wte_(tokens), wpe_(arange(kSeq, DType::I64)));
    for (size_t i = 0; i < blocks_.size(); ++i) x = (*blocks_.at<Block>(i))(x);
    const Tensor logits = lm_head_(ln_f_(x));
    return cross_entropy(reshape(logits, {kSeq, kVocab}), reshape(targets, {kSeq}));
  }

 private:
  nn::Embedding wte_, wpe_;
  nn::ModuleList blocks_;
  nn::LayerNorm ln_f_;
  nn::Linear lm_head_;
};

struct Row {
  int layers = 0;
  size_t forward_nodes = 0, joint_nodes = 0, after_nodes = 0;
  double first_ms = 0, median_ms = 0;
  int64_t node_visits = 0, matches = 0;
};

void fail(const Diagnostic& d) {
  std::fprintf(stderr, "%s\n", d.to_string().c_str());
  std::exit(1);
}

Row measure(int layers, int runs, bool decomposed) {
  Gpt2 model(layers);
  const Tensor tokens = Tensor::randint(0, kVocab, {1, kSeq}, 5, DType::I64);
  const Tensor targets = Tensor::randint(0, kVocab, {1, kSeq}, 6, DType::I64);
  const CaptureFn1 fn = [&](std::span<const Tensor> in) { return model.loss(in[0], in[1]); };
  auto captured =
      capture(fn, {tokens, targets}, {.name = "gpt2", .input_names = {"tokens", "targets"}, .module = &model});
  if (!captured) fail(captured.error());
  if (decomposed) {
    auto d =
        decompose(*captured->graph, {.ops = {OpKind::LayerNorm, OpKind::Gelu, OpKind::Linear, OpKind::CrossEntropy}});
    if (!d) fail(d.error());
  }
  auto joint = joint_graph(*captured->graph);
  if (!joint) fail(joint.error());
  Row row{.layers = layers, .forward_nodes = captured->graph->num_nodes(), .joint_nodes = joint->graph->num_nodes()};
  std::vector<double> ms;
  for (int i = 0; i < runs + 1; ++i) {
    std::unique_ptr<Graph> g = joint->graph->clone();
    const auto start = Clock::now();
    auto r = joint_graph_passes(*g);
    const double t = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    if (!r) fail(r.error());
    if (i == 0) {
      row.first_ms = t;  // includes tracing the registry's sets once per process
      row.after_nodes = g->num_nodes();
      for (const auto& [name, value] : r->counters) {
        if (name.ends_with(".node_visits")) row.node_visits += value;
        if (name.ends_with(".matches")) row.matches += value;
      }
      continue;
    }
    ms.push_back(t);
  }
  std::ranges::sort(ms);
  row.median_ms = ms[ms.size() / 2];
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 11;
  std::printf("GPT-2 small shapes: width %lld, heads %lld, vocab %lld, seq %lld, batch 1, f32; %d runs\n",
              static_cast<long long>(kWidth), static_cast<long long>(kHeads), static_cast<long long>(kVocab),
              static_cast<long long>(kSeq), runs);
  std::printf("steps:");
  for (const std::string& s : joint_graph_pass_names()) std::printf(" %s", s.c_str());
  std::printf(" (canonicalize off by default)\n\n");
  std::printf("%6s %9s %9s %9s %10s %10s %9s %12s %10s %8s\n", "layers", "fwd nodes", "joint", "after", "first ms",
              "median ms", "us/node", "node_visits", "visits/node", "matches");
  for (bool decomposed : {false, true}) {
    std::printf("%s\n",
                decomposed ? "decomposed (layer_norm, gelu, linear, cross_entropy as core ops):" : "composite ops:");
    for (int layers : {1, 6, 12, 24}) {
      const Row r = measure(layers, runs, decomposed);
      std::printf("%6d %9zu %9zu %9zu %10.2f %10.2f %9.2f %12lld %10.3f %8lld\n", r.layers, r.forward_nodes,
                  r.joint_nodes, r.after_nodes, r.first_ms, r.median_ms,
                  1000.0 * r.median_ms / static_cast<double>(r.joint_nodes), static_cast<long long>(r.node_visits),
                  static_cast<double>(r.node_visits) / static_cast<double>(r.joint_nodes),
                  static_cast<long long>(r.matches));
    }
  }
  return 0;
}
