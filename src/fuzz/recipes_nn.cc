// Recipes of the contractions (mm, bmm, matmul, addmm, linear, baddbmm), normalizations,
// losses, convolution, pooling and attention: operands whose shapes must agree on the
// contracted, normalized or channel dims, class targets in range, positive running variances.
#include <algorithm>

#include "fuzz/op_recipes.h"

namespace kiln::fuzz {
namespace {

Value* of(GenContext& ctx, DType dtype, std::vector<int64_t> sizes) {
  return ctx.value_of_type({dtype, Shape::from_sizes(sizes)});
}

int64_t small(Choices& c) { return c.between(c.percent(10) ? 0 : 1, 4); }

// Floating or integer operands of one dtype (the contractions' dtype rule).
DType contraction_dtype(GenContext& ctx) { return ctx.choices.percent(85) ? ctx.float_dtype() : ctx.dtype(); }

bool contraction(GenContext& ctx, OpDraft& d) {
  Choices& c = ctx.choices;
  const DType t = contraction_dtype(ctx);
  const int64_t b = small(c), n = small(c), k = small(c), m = small(c);
  switch (d.op) {
    case OpKind::Mm: d.operands = {of(ctx, t, {n, k}), of(ctx, t, {k, m})}; return true;
    case OpKind::Bmm: d.operands = {of(ctx, t, {b, n, k}), of(ctx, t, {b, k, m})}; return true;
    case OpKind::Addmm:
      d.operands = {of(ctx, t, c.percent(50) ? std::vector<int64_t>{n, m} : std::vector<int64_t>{m}),
                    of(ctx, t, {n, k}), of(ctx, t, {k, m})};
      break;
    case OpKind::Baddbmm:
      d.operands = {of(ctx, t, {c.percent(70) ? b : 1, n, m}), of(ctx, t, {b, n, k}), of(ctx, t, {b, k, m})};
      break;
    case OpKind::Linear: {
      std::vector<int64_t> in = ctx.sizes(static_cast<int>(c.between(0, 2)));
      in.push_back(k);
      d.operands = {of(ctx, t, in), of(ctx, t, {m, k})};
      d.operands.push_back(c.percent(50) ? Operand(of(ctx, t, {m})) : Operand(Scalar()));
      return true;
    }
    default: {  // matmul: 1-D to 4-D on either side, batch dims broadcasting
      std::vector<int64_t> a = ctx.sizes(static_cast<int>(c.between(0, 2)));
      std::vector<int64_t> bb = a;
      for (int64_t& s : bb) s = c.percent(30) ? 1 : s;
      if (c.percent(30) && !bb.empty()) bb.erase(bb.begin());
      a.insert(a.end(), {n, k});
      bb.insert(bb.end(), {k, m});
      if (c.percent(20)) a = {k};
      if (c.percent(20)) bb = {k};
      d.operands = {of(ctx, t, a), of(ctx, t, bb)};
      return true;
    }
  }
  static const double kScales[] = {1.0, 0.0, 0.5, -2.0};
  if (c.percent(40)) d.attrs.set("beta", AttrValue(c.pick(kScales)));
  if (c.percent(40)) d.attrs.set("alpha", AttrValue(c.pick(kScales)));
  return true;
}

Value* pick_float(GenContext& ctx, int min_rank, int max_rank) {
  Value* v = ctx.pick_value_if([&](const TensorType& t) {
    return is_floating(t.dtype) && t.shape.rank() >= min_rank && t.shape.rank() <= max_rank;
  });
  if (v) return v;
  return ctx.fresh_value(
      {ctx.float_dtype(), Shape::from_sizes(ctx.sizes(static_cast<int>(ctx.choices.between(min_rank, max_rank))))});
}

// An optional affine parameter of `sizes` (none 40% of the time).
Operand optional_param(GenContext& ctx, DType t, std::vector<int64_t> sizes) {
  return ctx.choices.percent(40) ? Operand(Scalar()) : Operand(of(ctx, t, std::move(sizes)));
}

bool norm_trailing(GenContext& ctx, OpDraft& d) {
  Value* in = pick_float(ctx, 1, 4);
  const TensorType& t = in->type();
  const int rank = t.shape.rank();
  const std::vector<int64_t> sizes = t.shape.sizes();
  const std::vector<int64_t> normalized(sizes.end() - ctx.choices.between(1, rank), sizes.end());
  d.operands = {in, optional_param(ctx, t.dtype, normalized)};
  if (d.op == OpKind::LayerNorm) d.operands.push_back(optional_param(ctx, t.dtype, normalized));
  d.attrs.set("normalized_shape", normalized);
  static const double kEps[] = {1e-5, 1e-3, 0.1};
  if (ctx.choices.percent(30)) d.attrs.set("eps", AttrValue(ctx.choices.pick(kEps)));
  return true;
}

// A positive running variance or class weight: abs(v) + 0.5 of a constant [C] (no gradient
// reaches these by design).
Value* positive(GenContext& ctx, DType t, int64_t channels) {
  return ctx.helper(OpKind::Add, {ctx.helper(OpKind::Abs, {ctx.constant({t, Shape{channels}})}), Scalar(0.5)});
}

bool batch_norm(GenContext& ctx, OpDraft& d) {
  Choices& c = ctx.choices;
  Value* in = pick_float(ctx, 2, 4);
  const TensorType& t = in->type();
  const int64_t ch = t.shape[1].value();
  const bool training = c.percent(50);
  d.operands = {in, optional_param(ctx, t.dtype, {ch}), optional_param(ctx, t.dtype, {ch})};
  if (training && c.percent(50)) {
    d.operands.insert(d.operands.end(), {Operand(Scalar()), Operand(Scalar())});
  } else {
    d.operands.push_back(ctx.constant({t.dtype, Shape{ch}}));
    d.operands.push_back(positive(ctx, t.dtype, ch));
  }
  d.attrs.set("training", training);
  return true;
}

bool group_norm(GenContext& ctx, OpDraft& d) {
  Value* in = pick_float(ctx, 2, 4);
  const TensorType& t = in->type();
  const int64_t ch = t.shape[1].value();
  std::vector<int64_t> groups;
  for (int64_t g = 1; g <= std::max<int64_t>(ch, 1); ++g)
    if (ch % g == 0) groups.push_back(g);
  d.operands = {in, optional_param(ctx, t.dtype, {ch}), optional_param(ctx, t.dtype, {ch})};
  d.attrs.set("num_groups", ctx.choices.pick(groups));
  return true;
}

// nll_loss and cross_entropy: [N, C] or [C] scores, class targets in [0, C) (some
// ignore_index), class weights, or (cross_entropy) probabilities of the scores' shape.
bool class_loss(GenContext& ctx, OpDraft& d) {
  Choices& c = ctx.choices;
  const DType t = ctx.float_dtype();
  const int64_t classes = c.between(1, 4);
  std::vector<int64_t> scores = {classes}, per_item = {};
  if (c.percent(70)) {
    scores.insert(scores.begin(), small(c));
    per_item = {scores[0]};
  }
  d.operands = {of(ctx, t, scores)};
  if (d.op == OpKind::CrossEntropy && c.percent(25)) {
    d.operands.push_back(ctx.helper(OpKind::Softmax, {of(ctx, t, scores)}, {{"dim", int64_t{-1}}}));
  } else {
    Value* target = ctx.indices(per_item, classes);
    if (target->type().dtype != DType::I64) target = ctx.helper(OpKind::ToCopy, {target}, {{"dtype", DType::I64}});
    d.operands.push_back(target);
    if (c.percent(30)) d.attrs.set("ignore_index", c.between(0, classes - 1));
  }
  d.operands.push_back(c.percent(60) ? Operand(Scalar()) : Operand(positive(ctx, t, classes)));
  static const char* kReductions[] = {"mean", "sum", "none"};
  d.attrs.set("reduction", c.pick(kReductions));
  if (d.op == OpKind::CrossEntropy && c.percent(30)) d.attrs.set("label_smoothing", 0.1);
  return true;
}

std::vector<int64_t> pair(Choices& c, int64_t lo, int64_t hi) { return {c.between(lo, hi), c.between(lo, hi)}; }

// An image [N, C, H, W] or [C, H, W] of a floating dtype.
Value* image(GenContext& ctx, DType t) {
  Choices& c = ctx.choices;
  Value* v = ctx.pick_value_if(
      [&](const TensorType& u) { return u.dtype == t && (u.shape.rank() == 3 || u.shape.rank() == 4); });
  if (v && c.percent(50)) return v;
  std::vector<int64_t> s = {c.between(1, 3), c.between(1, 5), c.between(1, 5)};
  if (c.percent(70)) s.insert(s.begin(), c.between(1, 2));
  return of(ctx, t, s);
}

bool conv2d(GenContext& ctx, OpDraft& d) {
  Choices& c = ctx.choices;
  const DType t = ctx.float_dtype();
  Value* in = image(ctx, t);
  const TensorType& it = in->type();
  const int64_t channels = it.shape[it.shape.rank() - 3].value();
  const int64_t groups = channels % 2 == 0 && c.percent(30) ? 2 : 1;
  const int64_t out = groups * c.between(1, 3);
  d.operands = {in, of(ctx, t, {out, channels / groups, c.between(1, 3), c.between(1, 3)})};
  d.operands.push_back(c.percent(50) ? Operand(of(ctx, t, {out})) : Operand(Scalar()));
  if (c.percent(40)) d.attrs.set("stride", pair(c, 1, 2));
  if (c.percent(40)) d.attrs.set("padding", pair(c, 0, 2));
  if (c.percent(30)) d.attrs.set("dilation", pair(c, 1, 2));
  if (groups > 1) d.attrs.set("groups", groups);
  return true;
}

bool pool2d(GenContext& ctx, OpDraft& d) {
  Choices& c = ctx.choices;
  Value* in = image(ctx, d.op == OpKind::MaxPool2d && c.percent(20) ? ctx.dtype() : ctx.float_dtype());
  d.operands = {in};
  if (d.op == OpKind::AdaptiveAvgPool2d) {
    d.attrs.set("output_size", pair(c, 1, 3));
    return true;
  }
  const std::vector<int64_t> k = pair(c, 1, 3);
  d.attrs.set("kernel_size", k);
  if (c.percent(50)) d.attrs.set("stride", pair(c, 1, 2));
  if (c.percent(40)) d.attrs.set("padding", std::vector<int64_t>{c.between(0, k[0] / 2), c.between(0, k[1] / 2)});
  if (c.percent(30)) d.attrs.set("ceil_mode", true);
  if (d.op == OpKind::MaxPool2d && c.percent(20)) d.attrs.set("dilation", pair(c, 1, 2));
  if (d.op == OpKind::AvgPool2d && c.percent(30)) d.attrs.set("count_include_pad", false);
  if (d.op == OpKind::AvgPool2d && c.percent(20)) d.attrs.set("divisor_override", c.between(1, 3));
  return true;
}

bool upsample(GenContext& ctx, OpDraft& d) {
  Choices& c = ctx.choices;
  const DType t = ctx.float_dtype();
  Value* in = image(ctx, t);
  if (in->type().shape.rank() != 4)
    in = of(ctx, t, {c.between(1, 2), c.between(1, 3), c.between(1, 5), c.between(1, 5)});
  d.operands = {in};
  d.attrs.set("align_corners", c.percent(50));
  if (c.percent(30)) {
    // A scale of 0.5 to 2.5 in steps of 0.5: the size floor(in * scale) is at least 1.
    d.attrs.set("output_size", AttrValue());
    d.attrs.set("scales_h", 0.5 * static_cast<double>(c.between(2, 5)));
    d.attrs.set("scales_w", 0.5 * static_cast<double>(c.between(2, 5)));
    return true;
  }
  d.attrs.set("output_size", pair(c, 1, 5));
  return true;
}

bool attention(GenContext& ctx, OpDraft& d) {
  Choices& c = ctx.choices;
  const DType t = ctx.float_dtype();
  std::vector<int64_t> batch = ctx.sizes(static_cast<int>(c.between(0, 2)));
  const int64_t l = small(c), s = small(c), e = small(c), ev = small(c);
  auto with = [&](int64_t a, int64_t b) {
    std::vector<int64_t> v = batch;
    v.insert(v.end(), {a, b});
    return v;
  };
  d.operands = {of(ctx, t, with(l, e)), of(ctx, t, with(s, e)), of(ctx, t, with(s, ev))};
  const uint64_t mask = c.below(3);
  const std::vector<int64_t> scores = {l, s};
  d.operands.push_back(mask == 0 ? Operand(Scalar()) : Operand(of(ctx, mask == 1 ? DType::Bool : t, scores)));
  if (mask == 0 && c.percent(30)) d.attrs.set("is_causal", true);
  if (c.percent(20)) {
    d.attrs.set("dropout_p", 0.5);
    d.attrs.set("seed", c.between(0, 100));
  }
  if (c.percent(30)) d.attrs.set("scale", 0.5);
  return true;
}

}  // namespace

void add_nn_recipes(RecipeTable& t) {
  auto set = [&](OpKind op, Recipe r) { t[static_cast<size_t>(op)] = r; };
  for (OpKind op : {OpKind::Mm, OpKind::Bmm, OpKind::Matmul, OpKind::Addmm, OpKind::Linear, OpKind::Baddbmm})
    set(op, contraction);
  set(OpKind::LayerNorm, norm_trailing);
  set(OpKind::RmsNorm, norm_trailing);
  set(OpKind::BatchNorm, batch_norm);
  set(OpKind::GroupNorm, group_norm);
  set(OpKind::NllLoss, class_loss);
  set(OpKind::CrossEntropy, class_loss);
  set(OpKind::Conv2d, conv2d);
  set(OpKind::MaxPool2d, pool2d);
  set(OpKind::AvgPool2d, pool2d);
  set(OpKind::AdaptiveAvgPool2d, pool2d);
  set(OpKind::UpsampleBilinear2d, upsample);
  set(OpKind::ScaledDotProductAttention, attention);
}

}  // namespace kiln::fuzz
