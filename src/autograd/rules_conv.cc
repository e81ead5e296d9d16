// The derivative rule of conv2d, im2col-free: for each kernel tap (i, j) the input elements it
// reads form a strided slice of the padded input, [.., OH, OW]. The weight's gradient at the tap
// is g against that slice (a batched product per group), and the input's gradient is the
// transposed weight at the tap applied to g, put back at the slice's positions (zeros inserted
// between strided elements, then padded into place) and summed over taps; the padding is
// cropped at the end. Any stride, padding, dilation and groups.
#include "autograd/derivative_rules.h"
#include "autograd/rule_util.h"
#include "passes/conv_taps.h"
#include "support/check.h"

namespace kiln {

using namespace grad;

namespace {

using conv::pad_hw;

// The inverse placement of `tap`: v [N, C, OH, OW] into zeros shaped like the padded input.
Value* untap(GraphBuilder& b, Value* v, const conv::Geometry& geo, const int64_t (&at)[2]) {
  for (int d = 0; d < 2; ++d) {
    if (geo.stride[d] > 1) {  // out[k] -> position k * stride
      std::vector<int64_t> sizes = v->type().shape.sizes();
      v = b.apply1(OpKind::Unsqueeze, {v}, {{"dim", int64_t{3 + d}}});
      const int64_t extra = geo.stride[d] - 1;
      v = d == 0 ? pad_hw(b, v, 0, extra, 0, 0)
                 : b.apply1(OpKind::ConstantPadNd, {v}, {{"pad", AttrValue::Ints{0, extra}}});
      sizes[static_cast<size_t>(2 + d)] *= geo.stride[d];
      v = b.apply1(OpKind::Reshape, {v}, {{"shape", sizes}});
    }
    const int64_t lo = at[d] * geo.dil[d];
    const int64_t hi = geo.padded[d] - lo - v->type().shape[2 + d].value();
    v = d == 0 ? pad_hw(b, v, lo, hi, 0, 0) : pad_hw(b, v, 0, 0, lo, hi);
  }
  return v;
}

Value* reshape(GraphBuilder& b, Value* v, AttrValue::Ints shape) {
  return b.apply1(OpKind::Reshape, {v}, {{"shape", std::move(shape)}});
}

}  // namespace

std::vector<Value*> grad_rule_conv2d(const GradCall& c) {
  GraphBuilder& b = c.b;
  Value *x = c.operand(0), *w = c.operand(1), *g = c.grad();
  const bool unbatched = x->type().shape.rank() == 3;
  if (unbatched) {
    x = b.apply1(OpKind::Unsqueeze, {x}, {{"dim", int64_t{0}}});
    g = b.apply1(OpKind::Unsqueeze, {g}, {{"dim", int64_t{0}}});
  }
  const Shape &xs = x->type().shape, &ws = w->type().shape, &gs = g->type().shape;
  KILN_CHECK(xs.is_static() && gs.is_static()) << "derivative of conv2d: symbolic shape " << xs.to_string();
  const int64_t n = xs[0].value(), channels = xs[1].value(), out_c = ws[0].value(), cg = ws[1].value();
  const int64_t groups = c.attr_int("groups"), og = out_c / groups;
  const conv::Geometry geo = conv::geometry(c, xs, ws, gs);
  const int64_t len = geo.out[0] * geo.out[1];
  Value* xpad = pad_hw(b, x, geo.pad[0], geo.pad[0], geo.pad[1], geo.pad[1]);
  Value* g_r = reshape(b, g, {n, groups, og, len});  // [N, G, Og, L]
  const AttrMap mt{{"dim0", int64_t{-1}}, {"dim1", int64_t{-2}}};
  const bool want_x = differentiable(c, 0), want_w = differentiable(c, 1);
  Value* gx = nullptr;
  std::vector<Operand> gw_taps;
  for (int64_t i = 0; i < geo.k[0]; ++i)
    for (int64_t j = 0; j < geo.k[1]; ++j) {
      const int64_t at[2] = {i, j};
      if (want_x) {  // sum_o w[o, c, i, j] g[n, o]
        Value* w_ij = b.apply1(OpKind::Select, {b.apply1(OpKind::Select, {w}, {{"dim", int64_t{3}}, {"index", j}})},
                               {{"dim", int64_t{2}}, {"index", i}});                        // [O, Cg]
        Value* wt = b.apply1(OpKind::Transpose, {reshape(b, w_ij, {groups, og, cg})}, mt);  // [G, Cg, Og]
        Value* part = reshape(b, b.apply1(OpKind::Matmul, {wt, g_r}), {n, channels, geo.out[0], geo.out[1]});
        part = untap(b, part, geo, at);
        gx = gx ? add(b, gx, part) : part;
      }
      if (want_w) {  // sum_{n, l} g[n, o, l] x[n, c, l]
        Value* patch = reshape(b, conv::tap(b, xpad, geo, at), {n, groups, cg, len});
        Value* prod = b.apply1(OpKind::Matmul, {g_r, b.apply1(OpKind::Transpose, {patch}, mt)});  // [N, G, Og, Cg]
        gw_taps.push_back(reshape(b, b.apply1(OpKind::Sum, {prod}, {{"dim", AttrValue::Ints{0}}}), {out_c, cg}));
      }
    }
  if (gx) {
    gx = pad_hw(b, gx, -geo.pad[0], -geo.pad[0], -geo.pad[1], -geo.pad[1]);
    if (unbatched) gx = b.apply1(OpKind::Squeeze, {gx}, {{"dim", AttrValue::Ints{0}}});
  }
  Value* gw = nullptr;
  if (want_w)
    gw = reshape(b, b.apply1(OpKind::Stack, gw_taps, {{"dim", int64_t{-1}}}), {out_c, cg, geo.k[0], geo.k[1]});
  Value* gbias = nullptr;
  if (differentiable(c, 2)) gbias = b.apply1(OpKind::Sum, {g}, {{"dim", AttrValue::Ints{0, 2, 3}}});
  return {to_operand(c, 0, gx), to_operand(c, 1, gw), to_operand(c, 2, gbias)};
}

}  // namespace kiln
