// fuse-attention: the attention variants as traced patterns, generated from independent
// choices (key layout x scale site x mask x dropout), and the checks that make each rewrite
// exact: the dims the scalar parameters found, mask dtypes, the causal buffer's provenance and
// the dropout draw order.
#include "patterns/attention_fusion.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "core/dtype.h"
#include "core/shape.h"
#include "frontend/functional.h"
#include "patterns/joint_pattern.h"

namespace kiln {

namespace {

enum class KeyLayout {
  Transpose,  // k.transpose(d0, d1) with {d0, d1} the last two dims in any spelling
  Permute,    // k.permute({0, 1, 3, 2}) on [B, H, S, E]
};
enum class ScaleSite { None, ScoresMul, ScoresDiv, QueryMul, QueryDiv, KeyMul };
enum class MaskKind {
  None,
  AddFloat,         // scores + mask (either order: add is commutative)
  FillBool,         // masked_fill(scores, m, -inf): m true means masked out
  FillEqZero,       // masked_fill(scores, c == 0, -inf): c nonzero means kept (an explicit mask)
  CausalTril,       // masked_fill(scores, tril(ones(L, S)) == 0, -inf)
  CausalBiasSlice,  // GPT-2: tril(ones(N, N)).view(1, 1, N, N)[:, :, :L, :S] == 0
  CausalTriu,       // masked_fill(scores, triu(ones(L, S, bool), 1), -inf) (kiln's CausalSelfAttention)
};

struct Variant {
  KeyLayout key;
  ScaleSite scale;
  MaskKind mask;
  bool dropout;
};

// Magic values of the scalar parameters. Ints are dims and seeds: each magic must be a valid
// argument on the example inputs and differ from every other literal of the patterns
// (slice dims 2 and 3, slice starts 0, eq's 0, -inf).
constexpr double kKeyDim0 = -2, kKeyDim1 = -1, kSoftmaxDim = -4, kScale = 0.31337, kDropoutP = 0.113377, kSeed = 1337;
constexpr double kInf = std::numeric_limits<double>::infinity();

bool has_mask_operand(MaskKind m) { return m != MaskKind::None; }
bool is_causal(MaskKind m) {
  return m == MaskKind::CausalTril || m == MaskKind::CausalBiasSlice || m == MaskKind::CausalTriu;
}

std::vector<ScalarParam> scalar_params(const Variant& v) {
  std::vector<ScalarParam> out;
  if (v.key == KeyLayout::Transpose) {
    out.push_back({"key_dim0", kKeyDim0});
    out.push_back({"key_dim1", kKeyDim1});
  }
  out.push_back({"softmax_dim", kSoftmaxDim});
  if (v.scale != ScaleSite::None) out.push_back({"scale", kScale});
  if (v.dropout) {
    out.push_back({"dropout_p", kDropoutP});
    out.push_back({"seed", kSeed});
  }
  return out;
}

// The scalar parameters of one call, unpacked in scalar_params' order.
struct Scalars {
  int64_t key_dim0 = -2, key_dim1 = -1, softmax_dim = -1, seed = 0;
  double scale = 1, dropout_p = 0;
};

Scalars unpack(const Variant& v, std::span<const Scalar> s) {
  Scalars out;
  size_t i = 0;
  if (v.key == KeyLayout::Transpose) {
    out.key_dim0 = s[i++].to_int();
    out.key_dim1 = s[i++].to_int();
  }
  out.softmax_dim = s[i++].to_int();
  if (v.scale != ScaleSite::None) out.scale = s[i++].to_double();
  if (v.dropout) {
    out.dropout_p = s[i++].to_double();
    out.seed = s[i++].to_int();
  }
  return out;
}

Tensor apply_mask(const Variant& v, const Tensor& scores, const Tensor& q, const Tensor& k, const Tensor& m) {
  switch (v.mask) {
    case MaskKind::None: return scores;
    case MaskKind::AddFloat: return scores + m;
    case MaskKind::FillBool: return masked_fill(scores, m, -kInf);
    case MaskKind::FillEqZero: return masked_fill(scores, eq(m, 0), -kInf);
    case MaskKind::CausalTril: return masked_fill(scores, eq(tril(m), 0), -kInf);
    case MaskKind::CausalBiasSlice: {
      Tensor bias = tril(m).view({1, 1, m.size(0), m.size(1)});
      bias = slice(slice(bias, 2, 0, q.size(-2)), 3, 0, k.size(-2));
      return masked_fill(scores, eq(bias, 0), -kInf);
    }
    case MaskKind::CausalTriu: return masked_fill(scores, triu(m, 1), -kInf);
  }
  return scores;
}

std::vector<Tensor> search(const Variant& v, std::span<const Tensor> t, std::span<const Scalar> s) {
  const Scalars p = unpack(v, s);
  Tensor q = t[0], k = t[1];
  if (v.scale == ScaleSite::QueryMul) q = q * Scalar(p.scale);
  if (v.scale == ScaleSite::QueryDiv) q = q / Scalar(p.scale);
  if (v.scale == ScaleSite::KeyMul) k = k * Scalar(p.scale);
  const Tensor kt = v.key == KeyLayout::Transpose ? transpose(k, p.key_dim0, p.key_dim1) : permute(k, {0, 1, 3, 2});
  Tensor scores = matmul(q, kt);
  if (v.scale == ScaleSite::ScoresMul) scores = scores * Scalar(p.scale);
  if (v.scale == ScaleSite::ScoresDiv) scores = scores / Scalar(p.scale);
  scores = apply_mask(v, scores, t[0], t[1], has_mask_operand(v.mask) ? t[3] : Tensor{});
  Tensor weights = softmax(scores, p.softmax_dim);
  if (v.dropout) weights = dropout(weights, p.dropout_p, true, p.seed);
  return {matmul(weights, t[2])};
}

std::vector<Tensor> replace(const Variant& v, std::span<const Tensor> t, std::span<const Scalar> s) {
  const Scalars p = unpack(v, s);
  Tensor mask;
  if (v.mask == MaskKind::AddFloat) mask = t[3];
  if (v.mask == MaskKind::FillBool) mask = logical_not(t[3]);
  if (v.mask == MaskKind::FillEqZero) mask = ne(t[3], 0);
  const bool divides = v.scale == ScaleSite::ScoresDiv || v.scale == ScaleSite::QueryDiv;
  const double scale = divides ? 1 / p.scale : p.scale;
  return {scaled_dot_product_attention(t[0], t[1], t[2], mask, v.dropout ? p.dropout_p : 0.0, is_causal(v.mask), scale,
                                       v.dropout ? p.seed : 0)};
}

std::string variant_name(const Variant& v) {
  static const char* const keys[] = {"transpose", "permute"};
  static const char* const scales[] = {"unscaled", "scores_mul", "scores_div", "query_mul", "query_div", "key_mul"};
  static const char* const masks[] = {
      "", "_add_mask", "_fill_bool", "_fill_eq0", "_causal_tril", "_causal_bias_slice", "_causal_triu"};
  return std::string("sdpa_") + keys[static_cast<int>(v.key)] + "_" + scales[static_cast<int>(v.scale)] +
         masks[static_cast<int>(v.mask)] + (v.dropout ? "_dropout" : "");
}

std::vector<Tensor> example_inputs(const Variant& v) {
  // B == H == L == S == E, so that tracing with any transpose dims, and softmax over the
  // magic dim, runs on the example.
  std::vector<Tensor> in = {Tensor::zeros({4, 4, 4, 4}), Tensor::zeros({4, 4, 4, 4}), Tensor::zeros({4, 4, 4, 4})};
  switch (v.mask) {
    case MaskKind::None: break;
    case MaskKind::AddFloat:
    case MaskKind::FillEqZero:
    case MaskKind::CausalTril: in.push_back(Tensor::zeros({4, 4})); break;
    case MaskKind::FillBool:
    case MaskKind::CausalTriu: in.push_back(Tensor::zeros({4, 4}, DType::Bool)); break;
    case MaskKind::CausalBiasSlice: in.push_back(Tensor::zeros({6, 6})); break;
  }
  return in;
}

// ---- the checks on the exact match ----

bool is_last_dim(int64_t dim, int rank) {
  const std::optional<int> d = wrap_dim(dim, rank);
  return d && *d == rank - 1;
}

const AttrValue* attr(const Node& n, const char* name) { return n.attrs().find(name); }

int64_t int_attr(const Node& n, const char* name, int64_t fallback) {
  const AttrValue* a = attr(n, name);
  return a && a->is_int() ? a->as_int() : fallback;
}

// Softmax over the last dim; a transpose of the last two dims.
bool dims_are_attention_dims(const Match& m) {
  for (const Node* n : m.nodes) {
    const int rank = n->result()->type().shape.rank();
    if (n->op() == OpKind::Softmax && !is_last_dim(int_attr(*n, "dim", 0), rank)) return false;
    if (n->op() == OpKind::Transpose) {
      const std::optional<int> d0 = wrap_dim(int_attr(*n, "dim0", 0), rank);
      const std::optional<int> d1 = wrap_dim(int_attr(*n, "dim1", 1), rank);
      if (!d0 || !d1 || std::min(*d0, *d1) != rank - 2 || std::max(*d0, *d1) != rank - 1) return false;
    }
  }
  return true;
}

// `w` is all ones: produced by ones(...) or full(..., 1) in this graph. A graph input (a
// module buffer) holds values the matcher cannot see, so it never counts.
bool is_ones(const Value* w) {
  const Node* n = w->producer();
  if (n == nullptr) return false;
  if (n->op() == OpKind::Ones) return true;
  if (n->op() != OpKind::Full) return false;
  const AttrValue* fill = attr(*n, "fill_value");
  return fill && (fill->is_int() || fill->is_float()) && fill->as_float() == 1.0;
}

// The causal buffer, tril(w) sliced to [:L, :S], keeps exactly j <= i (is_causal) when w is
// all ones and covers the scores' last two dims (a dim of 1 would broadcast one row).
bool causal_buffer_covers(const Variant& v, const Value& w, const Shape& scores) {
  const Shape& ws = w.type().shape;
  const int r = scores.rank();
  if (ws.rank() != 2 || !ws[0].is_static() || !ws[1].is_static() || !scores[r - 2].is_static() ||
      !scores[r - 1].is_static())
    return false;
  const int64_t L = scores[r - 2].value(), S = scores[r - 1].value();
  if (v.mask != MaskKind::CausalBiasSlice) return ws[0].value() == L && ws[1].value() == S;
  return ws[0].value() >= L && ws[1].value() >= S;
}

// The fused kernel draws dropout element (b, i, j) at its row-major index over the result's
// batch dims and [L, S]; dropout of the weights draws at the weights' row-major index. The two
// agree when v does not broadcast the weights' batch dims.
bool dropout_draws_agree(const Match& m) {
  const Shape& out = m.outputs[0]->type().shape;
  for (const Node* n : m.nodes) {
    if (n->op() != OpKind::Dropout) continue;
    const Shape& w = n->result()->type().shape;
    if (w.rank() != out.rank()) return false;
    for (int d = 0; d + 1 < w.rank(); ++d)
      if (!(w[d] == out[d])) return false;
  }
  return true;
}

bool check(const Variant& v, const Match& m) {
  const DType dt = m.wildcards[0]->type().dtype;
  if (!is_floating(dt) || m.wildcards[1]->type().dtype != dt || m.wildcards[2]->type().dtype != dt) return false;
  if (!dims_are_attention_dims(m) || !dropout_draws_agree(m)) return false;
  if (!has_mask_operand(v.mask)) return true;
  const Value& mask = *m.wildcards[3];
  switch (v.mask) {
    case MaskKind::AddFloat: return mask.type().dtype == dt;
    case MaskKind::FillBool: return mask.type().dtype == DType::Bool;
    case MaskKind::CausalTril:
    case MaskKind::CausalBiasSlice:
    case MaskKind::CausalTriu: {
      const Node* fill = nullptr;
      for (const Node* n : m.nodes)
        if (n->op() == OpKind::MaskedFill) fill = n;
      return fill && is_ones(&mask) && causal_buffer_covers(v, mask, fill->result()->type().shape);
    }
    default: return true;
  }
}

// Ops every search graph of `v` holds (checked when it is traced): a graph lacking one is not
// traced for (patterns/lazy_pattern_set.h).
std::vector<OpKind> required_ops(const Variant& v) {
  std::vector<OpKind> ops = {OpKind::Matmul, OpKind::Softmax,
                             v.key == KeyLayout::Transpose ? OpKind::Transpose : OpKind::Permute};
  switch (v.scale) {
    case ScaleSite::None: break;
    case ScaleSite::ScoresMul:
    case ScaleSite::QueryMul:
    case ScaleSite::KeyMul: ops.push_back(OpKind::Mul); break;
    case ScaleSite::ScoresDiv:
    case ScaleSite::QueryDiv: ops.push_back(OpKind::Div); break;
  }
  switch (v.mask) {
    case MaskKind::None: break;
    case MaskKind::AddFloat: ops.push_back(OpKind::Add); break;
    case MaskKind::FillBool: ops.push_back(OpKind::MaskedFill); break;
    case MaskKind::FillEqZero: ops.insert(ops.end(), {OpKind::MaskedFill, OpKind::Eq}); break;
    case MaskKind::CausalTril: ops.insert(ops.end(), {OpKind::MaskedFill, OpKind::Eq, OpKind::Tril}); break;
    case MaskKind::CausalBiasSlice:
      ops.insert(ops.end(), {OpKind::MaskedFill, OpKind::Eq, OpKind::Tril, OpKind::Slice});
      break;
    case MaskKind::CausalTriu: ops.insert(ops.end(), {OpKind::MaskedFill, OpKind::Triu}); break;
  }
  if (v.dropout) ops.push_back(OpKind::Dropout);
  return ops;
}

// With `joint`, the pattern is the joint graph of the variant with respect to q, k and v
// (patterns/joint_pattern.h), for joint graphs: its outputs are the attention and the three
// gradients, and the replacement differentiates the one sdpa node.
Replacement make_replacement(const Variant& v, bool joint) {
  std::vector<std::string> names = {"query", "key", "value"};
  if (has_mask_operand(v.mask)) names.push_back(is_causal(v.mask) ? "causal_ones" : "mask");
  return Replacement{
      .name = variant_name(v) + (joint ? "_joint" : ""),
      .search = [v](std::span<const Tensor> t, std::span<const Scalar> s) { return search(v, t, s); },
      .replace = [v](std::span<const Tensor> t, std::span<const Scalar> s) { return replace(v, t, s); },
      .example_inputs = example_inputs(v),
      .input_names = std::move(names),
      .scalar_params = scalar_params(v),
      .extra_check = [v](const Match& m) { return check(v, m); },
      .transform = joint ? joint_pattern({"query", "key", "value"}) : GraphTransform{},
      .required_ops = required_ops(v),
  };
}

}  // namespace

std::vector<Replacement> attention_fusion_replacements() {
  // Causal masks first: their search graphs extend FillEqZero's and FillBool's, whose explicit
  // masks are the fallback when the ones buffer is not visible (a module buffer) or does not cover.
  const MaskKind masks[] = {MaskKind::CausalBiasSlice, MaskKind::CausalTril, MaskKind::CausalTriu, MaskKind::FillEqZero,
                            MaskKind::FillBool,        MaskKind::AddFloat,   MaskKind::None};
  const ScaleSite scales[] = {ScaleSite::ScoresDiv, ScaleSite::ScoresMul, ScaleSite::QueryMul,
                              ScaleSite::QueryDiv,  ScaleSite::KeyMul,    ScaleSite::None};
  // Joint variants first: in a joint graph, a forward-only variant fails the multi-user rule
  // on the values the backward reads, so the order only saves those attempts.
  std::vector<Replacement> out;
  for (bool joint : {true, false})
    for (bool dropout : {true, false})
      for (MaskKind mask : masks)
        for (ScaleSite scale : scales)
          for (KeyLayout key : {KeyLayout::Transpose, KeyLayout::Permute})
            out.push_back(make_replacement(Variant{key, scale, mask, dropout}, joint));
  return out;
}

Status register_attention_fusion(PatternSet& set) {
  for (const Replacement& r : attention_fusion_replacements()) KILN_TRY(register_replacement(set, r));
  return Status::ok();
}

}  // namespace kiln
