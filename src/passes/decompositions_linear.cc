// Decompositions of linear, addmm and scaled_dot_product_attention into matmul, transposes,
// elementwise ops and (for attention dropout) the dropout op, as the kernels compute them
// (kernels_linalg.cc, kernels_attention.cc).
#include <cmath>
#include <limits>

#include "ops/rng_state.h"
#include "passes/decompositions.h"

namespace kiln::decomp {

namespace {

// matmul(input, weight^T) + bias (a 1-D weight is used as is).
Replacement linear(Node& n, GraphBuilder& b) {
  Value *x = n.operand(0).value, *w = n.operand(1).value, *bias = optional_operand(n, 2);
  if (w->type().shape.rank() == 2) w = b.apply1(OpKind::T, {w});
  Value* y = b.apply1(OpKind::Matmul, {x, w});
  return result(b, n, bias != nullptr ? add(b, y, bias) : y);
}

// alpha * mm(mat1, mat2) + beta * self; beta == 0 drops self (its NaN and inf do not propagate)
// and integer results use the scalars truncated, as the kernel does.
Replacement addmm(Node& n, GraphBuilder& b) {
  const OpCallBase a = attrs_of(n);
  const bool integral = !is_floating(n.result()->type().dtype);
  const auto literal = [&](const Scalar& s) { return integral ? Scalar(s.to_int()) : Scalar(s.to_double()); };
  const Scalar alpha = literal(a.attr_scalar("alpha")), beta = literal(a.attr_scalar("beta"));
  Value* y = b.apply1(OpKind::Mm, {n.operand(1).value, n.operand(2).value});
  if (alpha.to_double() != 1) y = mul(b, y, alpha);
  if (beta.to_double() != 0) {
    Value* self = n.operand(0).value;
    y = add(b, y, beta.to_double() == 1 ? self : mul(b, self, beta));
  }
  // A self of the result's shape with beta == 0 still gives the result's shape through mm.
  return result(b, n, y);
}

// A bool [L, S] tensor, true where key j may be attended from query i (j <= i).
Value* causal_keep(GraphBuilder& b, int64_t l, int64_t s) {
  Value* ones = b.apply1(OpKind::Ones, {}, {{"size", AttrValue::Ints{l, s}}, {"dtype", DType::Bool}});
  return b.apply1(OpKind::Tril, {ones});
}

// softmax(q k^T * scale + mask) v, with the kernel's conventions: a bool mask keeps where true,
// a float mask adds; is_causal masks j > i; a row with every score -inf gets zero weights;
// dropout_p > 0 drops weights with the dropout op at the same seed and rng_state, which draws
// the same uniform numbers at the same row-major indices of the [batch, L, S] weights as the
// kernel.
// f16 and bf16 compute in f32 (compute_dtype). Declined: is_causal with a mask and dropout_p
// outside [0, 1] (kernel errors), an empty key sequence (S = 0), operands of different dtypes, and symbolic sizes where
// a literal is needed (embedding dim without an explicit scale, L and S when causal, the weights' shape when dropping).
Replacement sdpa(Node& n, GraphBuilder& b) {
  const OpCallBase a = attrs_of(n);
  Value *q = n.operand(0).value, *k = n.operand(1).value, *v = n.operand(2).value, *mask = optional_operand(n, 3);
  const bool causal = a.attr_bool("is_causal");
  const double p = a.attr_float("dropout_p");
  if ((causal && mask != nullptr) || !(p >= 0 && p <= 1)) return std::nullopt;
  const DType dtype = q->type().dtype;
  if (k->type().dtype != dtype || v->type().dtype != dtype) return std::nullopt;
  const Shape &qs = q->type().shape, &ks = k->type().shape;
  const Dim e = qs[qs.rank() - 1], l = qs[qs.rank() - 2], s = ks[ks.rank() - 2];
  std::optional<double> scale = a.attr_opt_float("scale");
  if (!scale && !e.is_static()) return std::nullopt;
  if (causal && !(l.is_static() && s.is_static())) return std::nullopt;
  // With dropout the weights are numbered over the result's batch dims, which v may extend.
  Shape dropped = n.result()->type().shape;
  dropped[dropped.rank() - 1] = s;
  if (p > 0 && !dropped.is_static()) return std::nullopt;
  const double inf = std::numeric_limits<double>::infinity();

  // An empty key sequence has no row max: the kernel's zeros stay an extern kernel's.
  if (s == 0) return std::nullopt;
  q = b.cast(q, compute_dtype(dtype));
  k = b.cast(k, compute_dtype(dtype));
  v = b.cast(v, compute_dtype(dtype));
  Value* kt = b.apply1(OpKind::Transpose, {k}, {{"dim0", int64_t{-2}}, {"dim1", int64_t{-1}}});
  Value* scores =
      mul(b, b.apply1(OpKind::Matmul, {q, kt}), Scalar(scale.value_or(1 / std::sqrt(static_cast<double>(e.value())))));
  if (causal) scores = where(b, causal_keep(b, l.value(), s.value()), scores, Scalar(-inf));
  if (mask != nullptr)
    scores = mask->type().dtype == DType::Bool ? where(b, mask, scores, Scalar(-inf)) : add(b, scores, mask);

  // Shift by the row max (0 when infinite); fully masked rows have all exp() 0 and divide by 1.
  Value* mx = reduce(b, OpKind::Amax, scores, {-1}, true);
  Value* shift = where(b, unary(b, OpKind::Isinf, mx), Scalar(0.0), mx);
  Value* e_scores = unary(b, OpKind::Exp, sub(b, scores, shift));
  Value* sum = reduce(b, OpKind::Sum, e_scores, {-1}, true);
  Value* masked_row = b.apply1(OpKind::Eq, {mx, Scalar(-inf)});
  Value* weights = div(b, e_scores, where(b, masked_row, Scalar(1.0), sum));

  if (p > 0) {
    if (!(weights->type().shape == dropped)) weights = b.apply1(OpKind::Expand, {weights}, {{"size", dropped.sizes()}});
    std::vector<Operand> dropped_operands{weights};
    if (Value* state = optional_operand(n, rng_state_operand_index(n.op()))) dropped_operands.emplace_back(state);
    weights = b.apply1(OpKind::Dropout, dropped_operands, {{"p", p}, {"train", true}, {"seed", a.attr_int("seed")}});
  }
  return result(b, n, b.apply1(OpKind::Matmul, {weights, v}));
}

}  // namespace

std::vector<RewriteRule> linear_rules() {
  return {
      {"linear", {OpKind::Linear}, linear},
      {"addmm", {OpKind::Addmm}, addmm},
      {"scaled_dot_product_attention", {OpKind::ScaledDotProductAttention}, sdpa},
  };
}

}  // namespace kiln::decomp
