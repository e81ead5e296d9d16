// fuse-attention (patterns/attention_fusion.h): each hand-written attention variant, captured
// from C++, becomes exactly one scaled_dot_product_attention with no matmul or softmax left,
// and computes the same numbers on the interpreter in float64; the joint graph of the fused
// forward gives the same outputs and gradients as the joint graph of the unfused one; the
// near misses (a tensor scale, an integer mask, another softmax dim, ...) stay unfused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "autograd/joint_graph.h"
#include "frontend/capture.h"
#include "frontend/functional.h"
#include "interp/interpreter.h"
#include "ir/printer.h"
#include "ops/rng_state.h"
#include "passes/pattern_text.h"
#include "patterns/attention_fusion.h"
#include "patterns/pattern_sets.h"
#include "support/check.h"

namespace kiln {
namespace {

constexpr int64_t B = 2, H = 3, T = 5, E = 4, N = 8;  // N: the causal buffer's capacity
const double kInf = std::numeric_limits<double>::infinity();

Tensor rnd(std::vector<int64_t> sizes, uint64_t seed) { return Tensor::randn(sizes, seed, DType::F64); }
std::vector<Tensor> qkv() { return {rnd({B, H, T, E}, 1), rnd({B, H, T, E}, 2), rnd({B, H, T, E}, 3)}; }
std::vector<Tensor> qkv_and(Tensor extra) {
  std::vector<Tensor> in = qkv();
  in.push_back(std::move(extra));
  return in;
}
// A bool mask with some true entries in every row (true: masked out) and none fully true.
Tensor padding_mask() {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < T; ++i)
    for (int64_t j = 0; j < T; ++j) v.push_back((i + 2 * j) % 3 == 0 && j != i ? 1 : 0);
  return Tensor::from_ints(v, {T, T}, DType::I64).to(DType::Bool);
}
Tensor ones_buffer() { return tril(Tensor::full({N, N}, 1.0, DType::F64)).view({1, 1, N, N}); }

const PatternSet& attention_set() {
  static const std::shared_ptr<const PatternSet> set = [] {
    auto s = make_pattern_set(kAttentionFusionSet, attention_fusion_replacements());
    KILN_CHECK(s.has_value()) << s.error().to_string();
    return *s;
  }();
  return *set;
}

int count(const Graph& g, OpKind op) {
  int n = 0;
  for (const Node* node : g.nodes()) n += node->op() == op;
  return n;
}

void expect_close(const std::vector<Tensor>& a, const std::vector<Tensor>& b, double tol, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].sizes(), b[i].sizes()) << what << " output " << i;
    for (int64_t e = 0; e < a[i].numel(); ++e)
      ASSERT_NEAR(a[i].item_double(e), b[i].item_double(e), tol) << what << " output " << i << " element " << e;
  }
}

std::vector<Tensor> run(const Graph& g, const std::vector<Tensor>& inputs) {
  auto r = interpret(g, inputs);
  EXPECT_TRUE(r) << r.error().to_string() << "\n" << print_graph(g);
  return r ? *r : std::vector<Tensor>{};
}

struct Variant {
  std::string name;
  CaptureFn fn;
  std::vector<Tensor> inputs;
  // Checks on the fused node beyond the op counts ("is_causal=true", "scale=0.5", ...).
  std::vector<std::string> fused_contains = {};
};

std::unique_ptr<Graph> captured(const Variant& v) {
  auto c = capture(v.fn, v.inputs);
  EXPECT_TRUE(c) << v.name << ": " << c.error().to_string();
  if (!c) return nullptr;
  EXPECT_TRUE(c->lifted.empty()) << v.name << " reads tensors that are not its inputs";
  return std::move(c->graph);
}

Tensor scores_of(std::span<const Tensor> t) { return matmul(t[0], t[1].transpose(-2, -1)); }
const double kRootE = std::sqrt(static_cast<double>(E));

std::vector<Variant> positive_variants() {
  std::vector<Variant> out;
  auto one = [](std::function<Tensor(std::span<const Tensor>)> f) {
    return CaptureFn([f](std::span<const Tensor> t) { return std::vector<Tensor>{f(t)}; });
  };
  out.push_back({"div_by_sqrt_d",
                 one([](auto t) { return matmul(softmax(scores_of(t) / kRootE, -1), t[2]); }),
                 qkv(),
                 {"scale=0.5"}});
  out.push_back({"mul_by_inverse_sqrt_d",
                 one([](auto t) { return matmul(softmax(scores_of(t) * (1 / kRootE), -1), t[2]); }),
                 qkv(),
                 {"scale=0.5"}});
  out.push_back({"transpose_positive_dims_softmax_dim3",
                 one([](auto t) { return matmul(softmax(matmul(t[0], t[1].transpose(2, 3)) / kRootE, 3), t[2]); }),
                 qkv()});
  out.push_back({"transpose_reversed_dims",
                 one([](auto t) { return matmul(softmax(matmul(t[0], t[1].transpose(-1, -2)) * 0.3, -1), t[2]); }),
                 qkv(),
                 {"scale=0.3"}});
  out.push_back({"key_permuted", one([](auto t) {
                   return matmul(softmax(matmul(t[0], t[1].permute({0, 1, 3, 2})) / kRootE, -1), t[2]);
                 }),
                 qkv()});
  out.push_back({"query_prescaled_mul",
                 one([](auto t) { return matmul(softmax(matmul(t[0] * 0.25, t[1].transpose(-2, -1)), -1), t[2]); }),
                 qkv(),
                 {"scale=0.25"}});
  out.push_back({"query_prescaled_div",
                 one([](auto t) { return matmul(softmax(matmul(t[0] / kRootE, t[1].transpose(-2, -1)), -1), t[2]); }),
                 qkv(),
                 {"scale=0.5"}});
  out.push_back({"key_prescaled_mul",
                 one([](auto t) { return matmul(softmax(matmul(t[0], (t[1] * 0.7).transpose(-2, -1)), -1), t[2]); }),
                 qkv(),
                 {"scale=0.7"}});
  out.push_back(
      {"unscaled", one([](auto t) { return matmul(softmax(scores_of(t), -1), t[2]); }), qkv(), {"scale=1.0"}});
  out.push_back({"additive_mask_after_scores",
                 one([](auto t) { return matmul(softmax(scores_of(t) / kRootE + t[3], -1), t[2]); }),
                 qkv_and(rnd({T, T}, 4))});
  // The reference misses this operand order.
  out.push_back({"additive_mask_before_scores",
                 one([](auto t) { return matmul(softmax(t[3] + scores_of(t) / kRootE, -1), t[2]); }),
                 qkv_and(rnd({T, T}, 4))});
  out.push_back({"bert_padding_mask_broadcast",
                 one([](auto t) { return matmul(softmax(t[3] + scores_of(t) / kRootE, -1), t[2]); }),
                 qkv_and(rnd({B, 1, 1, T}, 5))});
  out.push_back({"bool_mask_masked_fill",
                 one([](auto t) { return matmul(softmax(masked_fill(scores_of(t) / kRootE, t[3], -kInf), -1), t[2]); }),
                 qkv_and(padding_mask()),
                 {"logical_not"}});
  out.push_back({"keep_mask_masked_fill_of_not", one([](auto t) {
                   return matmul(softmax(masked_fill(scores_of(t) * 0.5, logical_not(t[3]), -kInf), -1), t[2]);
                 }),
                 qkv_and(logical_not(padding_mask()))});
  out.push_back({"causal_tril_ones_in_graph",
                 one([](auto t) {
                   Tensor keep = tril(ones({T, T}, DType::F64));
                   return matmul(softmax(masked_fill(scores_of(t) / kRootE, eq(keep, 0), -kInf), -1), t[2]);
                 }),
                 qkv(),
                 {"is_causal=true"}});
  // GPT-2 / nanoGPT: bias = tril(ones(N, N)).view(1, 1, N, N); bias[:, :, :T, :T] == 0.
  out.push_back({"gpt2_bias_slice_computed_in_graph",
                 one([](auto t) {
                   Tensor bias = tril(ones({N, N}, DType::F64)).view({1, 1, N, N});
                   bias = slice(slice(bias, 2, 0, t[0].size(-2)), 3, 0, t[1].size(-2));
                   return matmul(softmax(masked_fill(scores_of(t) / kRootE, eq(bias, 0), -kInf), -1), t[2]);
                 }),
                 qkv(),
                 {"is_causal=true"}});
  // The same with the bias a module buffer (a graph input): its values are not in the graph,
  // so it stays an explicit mask.
  out.push_back({"gpt2_bias_slice_of_buffer",
                 one([](auto t) {
                   Tensor bias = slice(slice(t[3], 2, 0, t[0].size(-2)), 3, 0, t[1].size(-2));
                   return matmul(softmax(masked_fill(scores_of(t) / kRootE, eq(bias, 0), -kInf), -1), t[2]);
                 }),
                 qkv_and(ones_buffer()),
                 {"ne("}});
  out.push_back({"bthd_layout_transposed_in_and_out",
                 one([](auto t) {
                   Tensor q = t[0].transpose(1, 2), k = t[1].transpose(1, 2), v = t[2].transpose(1, 2);
                   Tensor y = matmul(softmax(matmul(q, k.transpose(-2, -1)) / kRootE, -1), v);
                   return y.transpose(1, 2).reshape({B, T, H * E});
                 }),
                 {rnd({B, T, H, E}, 1), rnd({B, T, H, E}, 2), rnd({B, T, H, E}, 3)}});
  out.push_back({"nanogpt_block_causal",
                 one([](auto t) {
                   std::vector<Tensor> parts = split(t[0], H * E, -1);
                   auto heads = [](const Tensor& x) { return x.view({B, T, H, E}).transpose(1, 2); };
                   Tensor q = heads(parts[0]), k = heads(parts[1]), v = heads(parts[2]);
                   Tensor att = matmul(q, k.transpose(-2, -1)) * (1.0 / kRootE);
                   Tensor bias = tril(ones({N, N}, DType::F64)).view({1, 1, N, N});
                   bias = slice(slice(bias, 2, 0, T), 3, 0, T);
                   att = softmax(masked_fill(att, eq(bias, 0), -kInf), -1);
                   return contiguous(matmul(att, v).transpose(1, 2)).view({B, T, H * E});
                 }),
                 {rnd({B, T, 3 * H * E}, 7)},
                 {"is_causal=true"}});
  // kiln's nn::CausalSelfAttention: the future masked with triu(ones(bool), 1).
  out.push_back({"causal_triu_of_bool_ones",
                 one([](auto t) {
                   Tensor future = triu(ones({T, T}, DType::Bool), 1);
                   return matmul(softmax(masked_fill(scores_of(t) * (1.0 / kRootE), future, -kInf), -1), t[2]);
                 }),
                 qkv(),
                 {"is_causal=true", "scale=0.5"}});
  out.push_back({"rank3_batched_heads",
                 one([](auto t) { return matmul(softmax(matmul(t[0], t[1].transpose(1, 2)) / kRootE, -1), t[2]); }),
                 {rnd({B * H, T, E}, 1), rnd({B * H, T, E}, 2), rnd({B * H, T, E}, 3)}});
  out.push_back({"cross_attention_other_key_length",
                 one([](auto t) { return matmul(softmax(scores_of(t) / kRootE + t[3], -1), t[2]); }),
                 {rnd({B, H, T, E}, 1), rnd({B, H, 7, E}, 2), rnd({B, H, 7, E}, 3), rnd({T, 7}, 4)}});
  out.push_back({"dropout_in_training",
                 one([](auto t) { return matmul(dropout(softmax(scores_of(t) / kRootE, -1), 0.25, true, 7), t[2]); }),
                 qkv(),
                 {"dropout_p=0.25", "seed=7"}});
  out.push_back({"dropout_p0_with_mask", one([](auto t) {
                   return matmul(dropout(softmax(scores_of(t) / kRootE + t[3], -1), 0.0, true, 3), t[2]);
                 }),
                 qkv_and(rnd({B, 1, 1, T}, 5))});
  out.push_back({"bert_training_query_div_mask_dropout",
                 one([](auto t) {
                   Tensor s = matmul(t[0] / kRootE, t[1].transpose(-2, -1));
                   return matmul(dropout(softmax(t[3] + s, 3), 0.5, true, 11), t[2]);
                 }),
                 qkv_and(rnd({B, 1, 1, T}, 5)),
                 {"dropout_p=0.5"}});
  return out;
}

TEST(AttentionFusion, SetIsRegisteredByName) {
  auto sets = builtin_pattern_sets();
  ASSERT_TRUE(sets) << sets.error().to_string();
  bool found = false;
  for (const auto& s : *sets) found |= s->name() == "fuse-attention" && s->size() == attention_set().size();
  EXPECT_TRUE(found);
  PatternSet mine("mine");
  ASSERT_TRUE(register_attention_fusion(mine));
  EXPECT_EQ(mine.size(), attention_set().size());
}

TEST(AttentionFusion, EveryVariantFusesToOneNodeWithTheSameNumbers) {
  const std::vector<Variant> variants = positive_variants();
  ASSERT_GE(variants.size(), 20u);
  for (const Variant& v : variants) {
    SCOPED_TRACE(v.name);
    std::unique_ptr<Graph> g = captured(v);
    ASSERT_TRUE(g);
    ASSERT_GE(count(*g, OpKind::Softmax), 1);
    std::unique_ptr<Graph> fused = g->clone();
    auto r = apply_patterns(*fused, attention_set(), {.must_converge = true});
    ASSERT_TRUE(r) << r.error().to_string();
    EXPECT_EQ(count(*fused, OpKind::ScaledDotProductAttention), 1) << print_graph(*fused);
    EXPECT_EQ(count(*fused, OpKind::Matmul), 0) << print_graph(*fused);
    EXPECT_EQ(count(*fused, OpKind::Softmax), 0) << print_graph(*fused);
    EXPECT_EQ(count(*fused, OpKind::Dropout), 0) << print_graph(*fused);
    const std::string text = print_graph(*fused);
    for (const std::string& s : v.fused_contains) EXPECT_NE(text.find(s), std::string::npos) << s << "\n" << text;
    expect_close(run(*g, v.inputs), run(*fused, v.inputs), 1e-10, v.name);
  }
}

// The inputs of a joint graph: the forward's, the generator state if one was added, and a
// random tangent per forward output that has one (the k-th tangent seeded by k, so two joint
// graphs of one forward get the same tangents).
std::vector<Tensor> joint_inputs(const JointGraph& j, const std::vector<Tensor>& forward_inputs) {
  std::vector<Tensor> in = forward_inputs;
  uint64_t tangent = 0;
  for (int i = static_cast<int>(in.size()); i < j.graph->num_inputs(); ++i) {
    if (i == j.rng_state_input)
      in.push_back(make_rng_state(42, 3));
    else
      in.push_back(rnd(j.graph->input(i)->type().shape.sizes(), 100 + tangent++));
  }
  return in;
}

// Fusion runs on the forward graph, before differentiation (docs/PATTERNS.md): the joint graph
// of the fused forward differentiates the one sdpa node and matches the unfused joint graph.
TEST(AttentionFusion, JointGraphOfFusedForwardKeepsOutputsAndGradients) {
  for (const Variant& v : positive_variants()) {
    SCOPED_TRACE(v.name);
    std::unique_ptr<Graph> g = captured(v);
    ASSERT_TRUE(g);
    std::unique_ptr<Graph> fused = g->clone();
    ASSERT_TRUE(apply_patterns(*fused, attention_set()));
    auto plain = joint_graph(*g);
    auto joint = joint_graph(*fused);
    ASSERT_TRUE(plain) << plain.error().to_string();
    ASSERT_TRUE(joint) << joint.error().to_string();
    EXPECT_EQ(count(*joint->graph, OpKind::ScaledDotProductAttention), 1) << print_graph(*joint->graph);
    // A fused dropout of p = 0 draws nothing, so only the unfused joint graph may take a state.
    expect_close(run(*plain->graph, joint_inputs(*plain, v.inputs)), run(*joint->graph, joint_inputs(*joint, v.inputs)),
                 1e-9, v.name);
  }
}

// The joint graph of the gradients of q, k and v, or of the one input they come from; a
// fourth input, the mask, is a constant even when it is floating.
Expected<JointGraph> joint_wrt_qkv(const Graph& g) {
  JointOptions options;
  for (int i = 0; i < std::min(3, g.num_inputs()); ++i) options.wrt.push_back(g.input(i)->name());
  return joint_graph(g, options);
}

// The variant captured and differentiated by joint_wrt_qkv; null (with a failure) on error.
std::unique_ptr<JointGraph> joint_of(const Variant& v) {
  std::unique_ptr<Graph> g = captured(v);
  if (!g) return nullptr;
  auto joint = joint_wrt_qkv(*g);
  EXPECT_TRUE(joint) << v.name << ": " << joint.error().to_string();
  return joint ? std::make_unique<JointGraph>(std::move(*joint)) : nullptr;
}

// In the joint graph of the unfused forward the backward reads the softmax output, so only the
// joint variants (patterns/joint_pattern.h), whose search graphs contain the backward, can
// match: the forward becomes one sdpa and the backward is sdpa's derivative rule, with the
// same outputs and gradients as before.
TEST(AttentionFusion, EveryVariantFusesInTheJointGraphWithTheSameGradients) {
  for (const Variant& v : positive_variants()) {
    SCOPED_TRACE(v.name);
    std::unique_ptr<JointGraph> joint = joint_of(v);
    ASSERT_TRUE(joint);
    std::unique_ptr<Graph> fused = joint->graph->clone();
    auto r = apply_patterns(*fused, attention_set(), {.must_converge = true});
    ASSERT_TRUE(r) << r.error().to_string();
    const std::string text = print_graph(*fused);
    EXPECT_EQ(count(*fused, OpKind::ScaledDotProductAttention), 1) << text;
    EXPECT_EQ(r->counters["matches"], 1) << text;
    for (const auto& [counter, value] : r->counters)
      if (counter.rfind("pattern.", 0) == 0) {
        EXPECT_NE(counter.find("_joint"), std::string::npos) << counter;
      }
    for (const std::string& s : v.fused_contains) EXPECT_NE(text.find(s), std::string::npos) << s << "\n" << text;
    const std::vector<Tensor> inputs = joint_inputs(*joint, v.inputs);
    expect_close(run(*joint->graph, inputs), run(*fused, inputs), 1e-9, v.name);
  }
}

// The set's text form (forward and joint variants, scalar_nodes included) parses back into a
// set that prints the same and rewrites a joint graph exactly as the traced set does.
TEST(AttentionFusion, SerializedSetLoadsBackAndRewritesAlike) {
  auto text = print_patterns(attention_set());
  ASSERT_TRUE(text) << text.error().to_string();
  EXPECT_NE(text->find("_joint wildcards=query,key,value,tangent0 ignore_literals=true"), std::string::npos);
  EXPECT_NE(text->find(" scalar_nodes="), std::string::npos);
  auto loaded = parse_patterns(*text, "fuse-attention.kpat");
  ASSERT_TRUE(loaded) << loaded.error().to_string();
  auto from_text = make_pattern_set(kAttentionFusionSet, attention_fusion_replacements(), &*loaded);
  ASSERT_TRUE(from_text) << from_text.error().to_string();
  EXPECT_EQ(*print_patterns(**from_text), *text);
  for (const Variant& v : positive_variants()) {
    SCOPED_TRACE(v.name);
    std::unique_ptr<JointGraph> joint = joint_of(v);
    ASSERT_TRUE(joint);
    std::unique_ptr<Graph> a = joint->graph->clone(), b = joint->graph->clone();
    ASSERT_TRUE(apply_patterns(*a, attention_set()));
    ASSERT_TRUE(apply_patterns(*b, **from_text));
    EXPECT_EQ(print_graph(*b), print_graph(*a));
  }
}

// Differentiating the mask too adds a gradient that reads the scores' gradient: no joint
// variant covers it, so the graph stays as it was and explain says why.
TEST(AttentionFusion, JointGraphWithAMaskGradientIsLeftAlone) {
  Variant v = positive_variants()[9];
  ASSERT_EQ(v.name, "additive_mask_after_scores");
  std::unique_ptr<Graph> g = captured(v);
  ASSERT_TRUE(g);
  auto joint = joint_graph(*g);
  ASSERT_TRUE(joint) << joint.error().to_string();
  const std::string before = print_graph(*joint->graph);
  ASSERT_TRUE(apply_patterns(*joint->graph, attention_set()));
  EXPECT_EQ(print_graph(*joint->graph), before);
  bool interior_reason = false;
  for (const std::string& line : explain_matches(*joint->graph, attention_set()))
    interior_reason |=
        line.find("pattern 'sdpa_transpose_scores_div_add_mask_joint' does not match") != std::string::npos &&
        line.find("has a user outside the match") != std::string::npos;
  EXPECT_TRUE(interior_reason);
}

std::vector<Variant> negative_variants() {
  std::vector<Variant> out;
  auto fn = [](std::function<std::vector<Tensor>(std::span<const Tensor>)> f) { return CaptureFn(f); };
  out.push_back({"tensor_valued_scale",
                 fn([](auto t) { return std::vector<Tensor>{matmul(softmax(scores_of(t) / t[3], -1), t[2])}; }),
                 qkv_and(Tensor::full({}, 2.0, DType::F64))});
  out.push_back({"integer_mask_added", fn([](auto t) {
                   return std::vector<Tensor>{matmul(softmax(scores_of(t) / kRootE + t[3], -1), t[2])};
                 }),
                 qkv_and(Tensor::randint(-2, 3, {T, T}, 1, DType::I64))});
  out.push_back({"softmax_over_queries",
                 fn([](auto t) { return std::vector<Tensor>{matmul(softmax(scores_of(t) / kRootE, -2), t[2])}; }),
                 qkv()});
  // A mask with an extra leading dim broadcasts the scores up: sdpa cannot take it.
  out.push_back({"mask_broadcasts_scores_up", fn([](auto t) {
                   return std::vector<Tensor>{matmul(softmax(scores_of(t) / kRootE + t[3], -1), t[2])};
                 }),
                 qkv_and(rnd({2, B, H, T, T}, 4))});
  out.push_back({"weights_also_returned", fn([](auto t) {
                   Tensor w = softmax(scores_of(t) / kRootE, -1);
                   return std::vector<Tensor>{matmul(w, t[2]), w};
                 }),
                 qkv()});
  // Only -inf is exact: a large negative fill gives a fully masked row uniform weights.
  out.push_back({"large_negative_fill", fn([](auto t) {
                   return std::vector<Tensor>{
                       matmul(softmax(masked_fill(scores_of(t) / kRootE, t[3], -1e9), -1), t[2])};
                 }),
                 qkv_and(padding_mask())});
  out.push_back({"key_transposed_on_batch_dims",
                 fn([](auto t) {
                   return std::vector<Tensor>{matmul(softmax(matmul(t[0], t[1].transpose(0, 1)) / kRootE, -1), t[2])};
                 }),
                 {rnd({T, T, T, T}, 1), rnd({T, T, T, T}, 2), rnd({T, T, T, T}, 3)}});
  // Dropout's draws follow the weights' shape; a value that broadcasts the batch would make
  // the fused kernel draw at other indices.
  out.push_back({"dropout_with_value_broadcasting_batch",
                 fn([](auto t) {
                   return std::vector<Tensor>{matmul(dropout(softmax(scores_of(t) / kRootE, -1), 0.5, true, 1), t[2])};
                 }),
                 {rnd({1, H, T, E}, 1), rnd({1, H, T, E}, 2), rnd({B, H, T, E}, 3)}});
  out.push_back({"dropout_in_eval_mode", fn([](auto t) {
                   return std::vector<Tensor>{matmul(dropout(softmax(scores_of(t) / kRootE, -1), 0.5, false, 1), t[2])};
                 }),
                 qkv()});
  return out;
}

TEST(AttentionFusion, NearMissesDoNotFuse) {
  for (const Variant& v : negative_variants()) {
    SCOPED_TRACE(v.name);
    std::unique_ptr<Graph> g = captured(v);
    ASSERT_TRUE(g);
    const std::string before = print_graph(*g);
    auto r = apply_patterns(*g, attention_set(), {.must_converge = true});
    ASSERT_TRUE(r) << r.error().to_string();
    EXPECT_EQ(count(*g, OpKind::ScaledDotProductAttention), 0) << print_graph(*g);
    EXPECT_EQ(print_graph(*g), before);
  }
}

TEST(AttentionFusion, NearMissesDoNotFuseInTheJointGraph) {
  for (const Variant& v : negative_variants()) {
    SCOPED_TRACE(v.name);
    std::unique_ptr<JointGraph> joint = joint_of(v);
    ASSERT_TRUE(joint);
    const std::string before = print_graph(*joint->graph);
    auto r = apply_patterns(*joint->graph, attention_set(), {.must_converge = true});
    ASSERT_TRUE(r) << r.error().to_string();
    EXPECT_EQ(count(*joint->graph, OpKind::ScaledDotProductAttention), 0) << print_graph(*joint->graph);
    EXPECT_EQ(print_graph(*joint->graph), before);
  }
}

// triu with diagonal 0 also hides the diagonal: not causal, so the triu stays, as an explicit
// mask. (Its first row has no key left: the unfused softmax gives NaN there, so only the
// structure is compared.)
TEST(AttentionFusion, TriuOfTheDiagonalIsNotCausal) {
  Variant v{"triu_diagonal_0", CaptureFn([](std::span<const Tensor> t) {
              Tensor s = scores_of(t) / kRootE;
              return std::vector<Tensor>{
                  matmul(softmax(masked_fill(s, triu(ones({T, T}, DType::Bool), 0), -kInf), -1), t[2])};
            }),
            qkv()};
  std::unique_ptr<Graph> g = captured(v);
  ASSERT_TRUE(g);
  ASSERT_TRUE(apply_patterns(*g, attention_set()));
  const std::string text = print_graph(*g);
  EXPECT_EQ(count(*g, OpKind::ScaledDotProductAttention), 1) << text;
  EXPECT_EQ(count(*g, OpKind::Triu), 1) << text;
  EXPECT_EQ(text.find("is_causal=true"), std::string::npos) << text;
}

// A tril of a graph input is not known to be causal; it stays an explicit mask.
TEST(AttentionFusion, TrilOfAnInputStaysAnExplicitMask) {
  Variant v{"tril_of_input", CaptureFn([](std::span<const Tensor> t) {
              Tensor s = scores_of(t) / kRootE;
              return std::vector<Tensor>{matmul(softmax(masked_fill(s, eq(tril(t[3]), 0), -kInf), -1), t[2])};
            }),
            qkv_and(rnd({T, T}, 9))};
  std::unique_ptr<Graph> g = captured(v);
  ASSERT_TRUE(g);
  std::unique_ptr<Graph> fused = g->clone();
  ASSERT_TRUE(apply_patterns(*fused, attention_set()));
  const std::string text = print_graph(*fused);
  EXPECT_EQ(count(*fused, OpKind::ScaledDotProductAttention), 1) << text;
  EXPECT_EQ(text.find("is_causal=true"), std::string::npos) << text;
  expect_close(run(*g, v.inputs), run(*fused, v.inputs), 1e-10, v.name);
}

}  // namespace
}  // namespace kiln
