// The derivative rule of max_pool2d: each output's gradient goes to the input element its
// window picked, as torch's CPU kernel picks it: the first maximum in window order (row-major
// over the kernel taps, padding skipped), or the last NaN in a window holding NaNs. Windows
// are read tap by tap as strided slices of the padded input (as conv2d's rule does), beside
// the same slices of a map of flat input positions (-1 in the padding); the picked positions
// then take the gradient by scatter_add into a zero [batch, H * W] tensor, which sums where
// windows overlap. Any stride, padding, dilation and ceil_mode; 3-D or 4-D input.
#include <algorithm>

#include "autograd/derivative_rules.h"
#include "autograd/rule_util.h"

namespace kiln {

using namespace grad;

namespace {

struct Window {
  int64_t k[2], stride[2], pad[2], dil[2], in[2], out[2];
  // Padding after the input, enough for the last window (ceil_mode lets it run past `pad`).
  int64_t pad_hi(int d) const {
    return std::max<int64_t>(0, (out[d] - 1) * stride[d] + (k[d] - 1) * dil[d] + 1 - pad[d] - in[d]);
  }
};

Window window_of(const GradCall& c) {
  const Shape &xs = c.operand(0)->type().shape, &ys = c.result()->type().shape;
  const std::vector<int64_t>& k = c.attr_ints("kernel_size");
  Window w;
  for (size_t i = 0; i < 2; ++i) {
    const int d = xs.rank() - 2 + static_cast<int>(i);
    w.k[i] = pair_at(k, i, 1);
    w.stride[i] = pair_at(c.attr_ints("stride"), i, w.k[i]);
    w.pad[i] = pair_at(c.attr_ints("padding"), i, 0);
    w.dil[i] = pair_at(c.attr_ints("dilation"), i, 1);
    w.in[i] = xs[d].value();
    w.out[i] = ys[d].value();
  }
  return w;
}

// `v` (image dims last) padded with `value` so that every window lies inside.
Value* pad_windows(GraphBuilder& b, Value* v, const Window& w, Scalar value) {
  return b.apply1(OpKind::ConstantPadNd, {v},
                  {{"pad", AttrValue::Ints{w.pad[1], w.pad_hi(1), w.pad[0], w.pad_hi(0)}},
                   {"value", AttrValue::from_scalar(value)}});
}

// Tap (i, j) of every window: the strided slice of a padded value, [..., OH, OW].
Value* tap(GraphBuilder& b, Value* padded, const Window& w, int64_t i, int64_t j) {
  Value* v = padded;
  const int rank = padded->type().shape.rank();
  const int64_t at[2] = {i, j};
  for (int d = 0; d < 2; ++d) {
    const int64_t start = at[d] * w.dil[d];
    v = b.apply1(OpKind::Slice, {v},
                 {{"dim", int64_t{rank - 2 + d}},
                  {"start", start},
                  {"end", start + (w.out[d] - 1) * w.stride[d] + 1},
                  {"step", w.stride[d]}});
  }
  return v;
}

// All taps stacked along a new last dim: [..., OH, OW, kh * kw] in window order.
Value* taps(GraphBuilder& b, Value* padded, const Window& w) {
  std::vector<Operand> all;
  for (int64_t i = 0; i < w.k[0]; ++i)
    for (int64_t j = 0; j < w.k[1]; ++j) all.push_back(tap(b, padded, w, i, j));
  return b.apply1(OpKind::Stack, std::move(all), {{"dim", int64_t{-1}}});
}

// 1 at the first true entry along the last dim of the bool `v`, 0 elsewhere.
Value* first_true(GraphBuilder& b, Value* v) {
  Value* count = b.apply1(OpKind::Cumsum, {b.cast(v, DType::I64)}, {{"dim", int64_t{-1}}});
  return b.apply1(OpKind::LogicalAnd, {v, b.apply1(OpKind::Eq, {count, Scalar(int64_t{1})})});
}

Value* flip_last(GraphBuilder& b, Value* v) { return b.apply1(OpKind::Flip, {v}, {{"dims", AttrValue::Ints{-1}}}); }

}  // namespace

std::vector<Value*> grad_rule_max_pool2d(const GradCall& c) {
  if (!differentiable(c, 0)) return {nullptr};
  GraphBuilder& b = c.b;
  Value* x = c.operand(0);
  const Window w = window_of(c);
  const Shape& xs = x->type().shape;
  const int64_t plane = w.in[0] * w.in[1], out_plane = w.out[0] * w.out[1];
  const int64_t batch = xs.numel() / std::max<int64_t>(plane, 1);

  Value* positions = b.apply1(OpKind::Arange, {},
                              {{"start", AttrValue::from_scalar(int64_t{0})}, {"end", AttrValue::from_scalar(plane)}});
  positions = b.apply1(OpKind::Reshape, {positions}, {{"shape", AttrValue::Ints{w.in[0], w.in[1]}}});
  Value* index = taps(b, pad_windows(b, positions, w, Scalar(int64_t{-1})), w);  // [OH, OW, K]
  Value* values = taps(b, pad_windows(b, x, w, Scalar(0.0)), w);                 // [..., OH, OW, K]
  Value* valid = b.apply1(OpKind::Ge, {index, Scalar(int64_t{0})});
  Value* best = b.apply1(OpKind::Unsqueeze, {c.result()}, {{"dim", int64_t{-1}}});
  Value* nan = b.apply1(OpKind::Isnan, {values});
  // The window's maximum, or (when the maximum is NaN) its NaNs.
  Value* hit =
      b.apply1(OpKind::LogicalAnd, {valid, b.apply1(OpKind::LogicalOr, {b.apply1(OpKind::Eq, {values, best}), nan})});
  Value* first = first_true(b, hit);
  Value* last = flip_last(b, first_true(b, flip_last(b, hit)));
  Value* picked = where(b, b.apply1(OpKind::Isnan, {best}), last, first);
  Value* at = b.apply1(OpKind::Sum, {where(b, picked, index, Scalar(int64_t{0}))}, {{"dim", AttrValue::Ints{-1}}});

  const AttrValue::Ints flat{batch, out_plane};
  Value* zeros = b.apply1(OpKind::Zeros, {}, {{"size", AttrValue::Ints{batch, plane}}, {"dtype", x->type().dtype}});
  Value* g = b.apply1(OpKind::ScatterAdd,
                      {zeros, b.apply1(OpKind::Reshape, {at}, {{"shape", flat}}),
                       b.apply1(OpKind::Reshape, {c.grad()}, {{"shape", flat}})},
                      {{"dim", int64_t{1}}});
  return {b.apply1(OpKind::Reshape, {g}, {{"shape", xs.sizes()}})};
}

}  // namespace kiln
