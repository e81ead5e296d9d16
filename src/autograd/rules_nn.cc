// Derivative rules of the losses, dropout, attention, the average poolings and a few
// arithmetic ops (remainder, fmod), and upsample_bilinear2d. Losses and attention rebuild their forward on a
// Tape (rule_util.h) from ops with rules; class-index targets become constant one-hot masks,
// so no gradient flows to them.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "autograd/derivative_rules.h"
#include "autograd/rule_util.h"
#include "ops/rng_state.h"
#include "passes/upsample_taps.h"

namespace kiln {

using namespace grad;

namespace {

// self - round(self / other) * other: d self = g, d other = -round(self / other) g, with the
// quotient rounded by div's rounding_mode (as ATen's formula, so inf and nan cases match).
std::vector<Value*> rounded_remainder(const GradCall& c, const char* rounding_mode) {
  GraphBuilder& b = c.b;
  Value* g = c.grad();
  Value* gother = nullptr;
  if (differentiable(c, 1)) {
    Value* q = b.apply1(OpKind::Div, {c.operand(0), c.operand(1)}, {{"rounding_mode", rounding_mode}});
    gother = neg(b, mul(b, g, q));
  }
  return {to_operand(c, 0, g), to_operand(c, 1, gother)};
}

// `grads` (of the leading operands) as one entry per operand of the node: none for the
// trailing ones (a weight or rng_state, which take no gradient) and none beyond them (an
// optional operand the node leaves out).
std::vector<Value*> per_operand(const GradCall& c, std::vector<Value*> grads) {
  grads.resize(static_cast<size_t>(c.node.num_operands()), nullptr);
  return grads;
}

Value* reduce_loss(Tape& t, Value* l, const std::string& reduction) {
  if (reduction == "sum") return t.op(OpKind::Sum, {l});
  if (reduction == "mean") return t.op(OpKind::Mean, {l});
  return l;
}

// Per-item parts of the class-index losses over log-probabilities `logp` (class dim 1, or 0
// for a 1-D input). As in ATen, an ignored item gets no gradient, even where the gradient of
// a mean over no items (every item ignored) is inf times its zero weight: the losses read
// logp through a where() that zeroes the ignored items.
struct ClassLoss {
  Value* logp;   // logp, 0 where ignored (on the tape)
  Value* nll;    // -w[t] logp[t], 0 where ignored (on the tape)
  Value* wt;     // w[t], 0 where ignored (constant)
  Value* valid;  // 1 where not ignored (constant)
  Value* w;      // weight as [C, 1, ...], or null
  int64_t class_dim;
};

ClassLoss class_loss(const GradCall& c, Tape& t, Value* logp) {
  GraphBuilder& b = c.b;
  const DType dt = logp->type().dtype;
  const int rank = logp->type().shape.rank();
  ClassLoss r;
  r.class_dim = rank == 1 ? 0 : 1;
  const int64_t classes = logp->type().shape[static_cast<int>(r.class_dim)].value();
  AttrValue::Ints col{-1};
  for (int64_t d = r.class_dim + 1; d < rank; ++d) col.push_back(1);
  Value* ids = b.apply1(OpKind::Arange, {},
                        {{"start", AttrValue::from_scalar(int64_t{0})}, {"end", AttrValue::from_scalar(classes)}});
  ids = b.apply1(OpKind::Reshape, {ids}, {{"shape", col}});
  Value* target = c.operand(1);
  Value* tgt = b.apply1(OpKind::Unsqueeze, {target}, {{"dim", r.class_dim}});
  Value* onehot = b.cast(b.apply1(OpKind::Eq, {tgt, ids}), dt);
  Value* kept = b.apply1(OpKind::Ne, {target, Scalar(c.attr_int("ignore_index"))});
  r.valid = b.cast(kept, dt);
  r.logp = t.op(OpKind::Where, {b.apply1(OpKind::Unsqueeze, {kept}, {{"dim", r.class_dim}}), logp, Scalar(0.0)});
  r.w = c.operand(2) ? b.apply1(OpKind::Reshape, {c.operand(2)}, {{"shape", col}}) : nullptr;
  const AttrMap over{{"dim", AttrValue::Ints{r.class_dim}}};
  Value* w_onehot = r.w ? mul(b, onehot, r.w) : onehot;
  r.wt = mul(b, b.apply1(OpKind::Sum, {w_onehot}, over), r.valid);
  Value* picked = t.op(OpKind::Sum, {t.mul(r.logp, onehot)}, over);
  r.nll = t.op(OpKind::Neg, {t.mul(picked, r.wt)});
  return r;
}

// nll reduced as ATen does: mean divides by the total weight of the items not ignored.
Value* reduce_nll(const GradCall& c, Tape& t, const ClassLoss& l, double factor) {
  const std::string& reduction = c.attr_str("reduction");
  Value* nll = factor == 1.0 ? l.nll : t.mul(l.nll, Scalar(factor));
  if (reduction != "mean") return reduce_loss(t, nll, reduction);
  return t.div(t.op(OpKind::Sum, {nll}), c.b.apply1(OpKind::Sum, {l.wt}));
}

// Pooling as averaging matrices: both avg poolings average over a window that is a product of
// a row range and a column range, with a divisor that is a product too, so out = A_h x A_w^T
// with A [O, H] holding 1/div(o) on [lo(o), hi(o)); the gradient is A_h^T g A_w.
struct Bins {
  Value* lo;   // i64 [O, 1]
  Value* hi;   // i64 [O, 1]
  Value* div;  // i64 [O, 1]
};

Value* arange(GraphBuilder& b, int64_t n) {
  return b.apply1(OpKind::Arange, {},
                  {{"start", AttrValue::from_scalar(int64_t{0})}, {"end", AttrValue::from_scalar(n)}});
}

Value* column(GraphBuilder& b, int64_t n) {
  return b.apply1(OpKind::Reshape, {arange(b, n)}, {{"shape", AttrValue::Ints{-1, 1}}});
}

Value* clamp(GraphBuilder& b, Value* v, std::optional<int64_t> lo, std::optional<int64_t> hi) {
  AttrMap attrs;
  if (lo) attrs.set("min", AttrValue::from_scalar(*lo));
  if (hi) attrs.set("max", AttrValue::from_scalar(*hi));
  return b.apply1(OpKind::Clamp, {v}, std::move(attrs));
}

Value* bin_matrix(GraphBuilder& b, const Bins& bins, int64_t n, DType dt) {
  Value* h = arange(b, n);
  Value* inside =
      b.apply1(OpKind::LogicalAnd, {b.apply1(OpKind::Ge, {h, bins.lo}), b.apply1(OpKind::Lt, {h, bins.hi})});
  return div(b, b.cast(inside, dt), b.cast(bins.div, dt));
}

// g [..., OH, OW] spread back over x [..., H, W].
Value* unpool(GraphBuilder& b, Value* g, Value* ah, Value* aw) {
  Value* aht = b.apply1(OpKind::Transpose, {ah}, {{"dim0", int64_t{0}}, {"dim1", int64_t{1}}});
  return b.apply1(OpKind::Matmul, {b.apply1(OpKind::Matmul, {aht, g}), aw});
}

// Bin o of adaptive pooling: [floor(o n / out), ceil((o + 1) n / out)).
Bins adaptive_bins(GraphBuilder& b, int64_t out, int64_t n) {
  const AttrMap floor{{"rounding_mode", "floor"}};
  Value* o = column(b, out);
  Value* lo = b.apply1(OpKind::Div, {mul(b, o, Scalar(n)), Scalar(out)}, floor);
  Value* hi = b.apply1(OpKind::Div,
                       {add(b, mul(b, add(b, o, Scalar(int64_t{1})), Scalar(n)), Scalar(out - 1)), Scalar(out)}, floor);
  return {lo, hi, sub(b, hi, lo)};
}

// The kernel's window: [o s - p, min(o s - p + k, n + p)) counts (with count_include_pad),
// clipped to [0, n) for the sum and, without count_include_pad, for the count.
Bins avg_bins(GraphBuilder& b, int64_t out, int64_t n, int64_t k, int64_t s, int64_t p, bool count_pad, bool override) {
  Value* start = sub(b, mul(b, column(b, out), Scalar(s)), Scalar(p));
  Value* end = clamp(b, add(b, start, Scalar(k)), std::nullopt, n + p);
  Value* lo = clamp(b, start, 0, std::nullopt);
  Value* hi = clamp(b, end, std::nullopt, n);
  Value* count = override    ? b.full_like(lo, Scalar(int64_t{1}))
                 : count_pad ? sub(b, end, start)
                             : clamp(b, sub(b, hi, lo), 1, std::nullopt);
  return {lo, hi, count};
}

// The operands of a dropout that redraws the node's mask: `operands`, then the node's
// rng_state when it has one, so the redraw uses the same runtime state as the forward.
std::vector<Operand> with_rng_state(const GradCall& c, std::vector<Operand> operands) {
  if (Value* state = c.operand(rng_state_operand_index(c.op()))) operands.emplace_back(state);
  return operands;
}

}  // namespace

std::vector<Value*> grad_rule_remainder(const GradCall& c) { return rounded_remainder(c, "floor"); }

std::vector<Value*> grad_rule_fmod(const GradCall& c) { return rounded_remainder(c, "trunc"); }

std::vector<Value*> grad_rule_mse_loss(const GradCall& c) {
  Tape t(c.b);
  Value *x = c.operand(0), *y = c.operand(1);
  Value* d = t.sub(x, y);
  Value* l = reduce_loss(t, t.mul(d, d), c.attr_str("reduction"));
  std::vector<Value*> g = t.backward(l, c.grad(), {x, y});
  return {g[0], g[1]};
}

// The weight gets no gradient (as in ATen); neither does the target.
std::vector<Value*> grad_rule_nll_loss(const GradCall& c) {
  Tape t(c.b);
  Value* x = c.operand(0);
  ClassLoss l = class_loss(c, t, x);
  std::vector<Value*> g = t.backward(reduce_nll(c, t, l, 1.0), c.grad(), {x});
  return per_operand(c, {g[0]});
}

// log_softmax then the nll; with label smoothing, + ls / C * (-sum_c w_c logp_c) per item,
// which "mean" divides by the total weight (weighted) or the count of items kept. Class
// probabilities as target: -sum_c w_c logp_c p_c, averaged over items; the target gets a
// gradient then.
std::vector<Value*> grad_rule_cross_entropy(const GradCall& c) {
  GraphBuilder& b = c.b;
  Tape t(b);
  Value *x = c.operand(0), *target = c.operand(1);
  const int64_t class_dim = x->type().shape.rank() == 1 ? 0 : 1;
  const double ls = c.attr_float("label_smoothing");
  const double classes = static_cast<double>(x->type().shape[static_cast<int>(class_dim)].value());
  Value* logp = t.op(OpKind::LogSoftmax, {x}, {{"dim", class_dim}});
  const AttrMap over{{"dim", AttrValue::Ints{class_dim}}};
  AttrValue::Ints col{-1};
  for (int64_t d = class_dim + 1; d < x->type().shape.rank(); ++d) col.push_back(1);
  Value* w = c.operand(2) ? b.apply1(OpKind::Reshape, {c.operand(2)}, {{"shape", col}}) : nullptr;
  if (is_floating(target->type().dtype)) {
    Value* wlogp = w ? t.mul(logp, w) : logp;
    Value* p = ls > 0 ? t.add(t.mul(target, Scalar(1 - ls)), Scalar(ls / classes)) : target;
    Value* l = t.op(OpKind::Neg, {t.op(OpKind::Sum, {t.mul(wlogp, p)}, over)});
    std::vector<Value*> g = t.backward(reduce_loss(t, l, c.attr_str("reduction")), c.grad(), {x, target});
    return per_operand(c, {g[0], g[1]});
  }
  ClassLoss l = class_loss(c, t, logp);
  Value* loss = reduce_nll(c, t, l, 1 - ls);
  if (ls > 0) {
    Value* wlogp = w ? t.mul(l.logp, w) : l.logp;
    Value* smooth = t.mul(t.op(OpKind::Neg, {t.op(OpKind::Sum, {wlogp}, over)}), l.valid);
    smooth = t.mul(smooth, Scalar(ls / classes));
    const std::string& reduction = c.attr_str("reduction");
    if (reduction == "mean")
      smooth = t.div(t.op(OpKind::Sum, {smooth}), b.apply1(OpKind::Sum, {w ? l.wt : l.valid}));
    else
      smooth = reduce_loss(t, smooth, reduction);
    loss = t.add(loss, smooth);
  }
  std::vector<Value*> g = t.backward(loss, c.grad(), {x});
  return per_operand(c, {g[0]});
}

// Training: the same seed, rng_state and p draw the same mask, so dropout of the gradient is
// g mask / (1 - p). The rng_state operand (an integer generator state) has no gradient.
std::vector<Value*> grad_rule_dropout(const GradCall& c) {
  // One entry per operand: a Tape (rule_util.h) reads the operand of every entry.
  std::vector<Value*> grads(static_cast<size_t>(c.node.num_operands()), nullptr);
  if (!differentiable(c, 0)) return grads;
  Value* g = c.grad();
  if (c.attr_bool("train"))
    g = c.b.apply1(OpKind::Dropout, with_rng_state(c, {g}),
                   {{"p", c.attr_float("p")}, {"train", true}, {"seed", c.attr_int("seed")}});
  grads[0] = to_operand(c, 0, g);
  return grads;
}

// softmax(q k^T scale + mask) v, with rows whose scores are all -inf giving zero weights (as
// the kernel) and dropout of the weights with the node's seed and rng_state (its mask is
// drawn over the weights in row-major order, as dropout draws it). rng_state has no gradient.
std::vector<Value*> grad_rule_scaled_dot_product_attention(const GradCall& c) {
  GraphBuilder& b = c.b;
  Tape t(b);
  Value *q = c.operand(0), *k = c.operand(1), *v = c.operand(2), *mask = c.operand(3);
  const Shape& qs = q->type().shape;
  const Shape& key_shape = k->type().shape;
  if (key_shape[key_shape.rank() - 2] == 0) {
    // No keys: the output is zeros whatever q, k, v and the mask hold (as torch), so every
    // gradient is 0; the dead-row test below would take an amax over the empty key dim.
    std::vector<Value*> zeros;
    for (int i = 0; i < c.node.num_operands(); ++i)
      zeros.push_back(differentiable(c, i) ? b.zeros_like(c.operand(i)) : nullptr);
    return zeros;
  }
  const double scale =
      c.attr_opt_float("scale").value_or(1 / std::sqrt(static_cast<double>(qs[qs.rank() - 1].value())));
  const double inf = std::numeric_limits<double>::infinity();
  Value* kt = t.op(OpKind::Transpose, {k}, {{"dim0", int64_t{-1}}, {"dim1", int64_t{-2}}});
  Value* s = t.mul(t.op(OpKind::Matmul, {q, kt}), Scalar(scale));
  if (c.attr_bool("is_causal")) {
    const Shape& ks = k->type().shape;
    const AttrValue::Ints ls{qs[qs.rank() - 2].value(), ks[ks.rank() - 2].value()};
    Value* ones = b.apply1(OpKind::Ones, {}, {{"size", ls}, {"dtype", DType::Bool}});
    s = t.op(OpKind::Where, {b.apply1(OpKind::Tril, {ones}), s, Scalar(-inf)});
  }
  if (mask != nullptr)
    s = mask->type().dtype == DType::Bool ? t.op(OpKind::Where, {mask, s, Scalar(-inf)}) : t.add(s, mask);
  Value* dead = b.apply1(
      OpKind::Eq, {b.apply1(OpKind::Amax, {s}, {{"dim", AttrValue::Ints{-1}}, {"keepdim", true}}), Scalar(-inf)});
  // A dead row's softmax is NaN, and so would its gradient be, times the zero from the outer
  // where(): its scores are zeroed before the softmax too, so the gradient stays 0 there.
  s = t.op(OpKind::Where, {dead, Scalar(0.0), s});
  Value* p = t.op(OpKind::Where, {dead, Scalar(0.0), t.op(OpKind::Softmax, {s}, {{"dim", int64_t{-1}}})});
  const double dropout_p = c.attr_float("dropout_p");
  if (dropout_p > 0)
    p = t.op(OpKind::Dropout, with_rng_state(c, {p}),
             {{"p", dropout_p}, {"train", true}, {"seed", c.attr_int("seed")}});
  Value* out = t.op(OpKind::Matmul, {p, v});
  return per_operand(c, t.backward(out, c.grad(), {q, k, v, mask}));
}

std::vector<Value*> grad_rule_avg_pool2d(const GradCall& c) {
  if (!differentiable(c, 0)) return {nullptr};
  GraphBuilder& b = c.b;
  Value* x = c.operand(0);
  const Shape &xs = x->type().shape, &ys = c.result()->type().shape;
  const int r = xs.rank();
  const std::vector<int64_t>&k = c.attr_ints("kernel_size"), &s = c.attr_ints("stride"), &p = c.attr_ints("padding");
  const bool count_pad = c.attr_bool("count_include_pad");
  const std::optional<int64_t> override = c.attr_opt_int("divisor_override");
  Value* a[2];
  for (size_t i = 0; i < 2; ++i) {
    const int d = r - 2 + static_cast<int>(i);
    Bins bins = avg_bins(b, ys[d].value(), xs[d].value(), pair_at(k, i, 1), pair_at(s, i, pair_at(k, i, 1)),
                         pair_at(p, i, 0), count_pad, override.has_value());
    a[i] = bin_matrix(b, bins, xs[d].value(), x->type().dtype);
  }
  Value* g = unpool(b, c.grad(), a[0], a[1]);
  if (override) g = div(b, g, Scalar(static_cast<double>(*override)));
  return {to_operand(c, 0, g)};
}

std::vector<Value*> grad_rule_adaptive_avg_pool2d(const GradCall& c) {
  if (!differentiable(c, 0)) return {nullptr};
  GraphBuilder& b = c.b;
  Value* x = c.operand(0);
  const Shape &xs = x->type().shape, &ys = c.result()->type().shape;
  Value* a[2];
  for (int i = 0; i < 2; ++i) {
    const int d = xs.rank() - 2 + i;
    a[i] = bin_matrix(b, adaptive_bins(b, ys[d].value(), xs[d].value()), xs[d].value(), x->type().dtype);
  }
  return {to_operand(c, 0, unpool(b, c.grad(), a[0], a[1]))};
}

// The decomposition's blend (passes/upsample_taps.h) on a tape: index_select's rule scatters
// each output's gradient, times its weights, back onto its four source elements (index_add),
// the transposed interpolation; the taps are constants.
std::vector<Value*> grad_rule_upsample_bilinear2d(const GradCall& c) {
  if (!differentiable(c, 0)) return {nullptr};
  Tape t(c.b);
  Value* x = c.operand(0);
  const upsample::BuildOp op = [&t](OpKind k, std::vector<Operand> operands, AttrMap attrs) {
    return t.op(k, std::move(operands), std::move(attrs));
  };
  Value* out = upsample::blend(c.b, op, c.node, x);
  std::vector<Value*> g = t.backward(out, c.b.cast(c.grad(), out->type().dtype), {x});
  return {to_operand(c, 0, g[0])};
}

}  // namespace kiln
