// conv2d as im2col and one matmul per group, with the ops every backend already runs: the
// padded input's kh*kw tap slices (passes/conv_taps.h), taken channels first and stacked into
// the columns [G, Cg*kh*kw, N*OH*OW], multiplied by the weight as [G, Og, Cg*kh*kw] (one batched
// matmul whose batch is the groups alone, so it collapses to one stride for cuBLASLt), the
// product [O, N, OH, OW] permuted to [N, O, OH, OW] and the bias added. Any stride, padding,
// dilation and groups; a 3-D (unbatched) input runs as a batch of one. Declined: a symbolic
// size (the reshapes need literals).
#include "passes/conv_taps.h"
#include "passes/decompositions.h"

namespace kiln::decomp {

namespace {

Value* reshape(GraphBuilder& b, Value* v, AttrValue::Ints shape) {
  return b.apply1(OpKind::Reshape, {v}, {{"shape", std::move(shape)}});
}

Value* permute(GraphBuilder& b, Value* v, AttrValue::Ints dims) {
  return b.apply1(OpKind::Permute, {v}, {{"dims", std::move(dims)}});
}

Replacement conv2d(Node& n, GraphBuilder& b) {
  Value *x = n.operand(0).value, *w = n.operand(1).value, *bias = optional_operand(n, 2);
  Value* y = n.result();
  if (!x->type().shape.is_static() || !w->type().shape.is_static() || !y->type().shape.is_static()) return std::nullopt;
  const bool unbatched = x->type().shape.rank() == 3;
  if (unbatched) x = b.apply1(OpKind::Unsqueeze, {x}, {{"dim", int64_t{0}}});
  const Shape &xs = x->type().shape, &ws = w->type().shape;
  const conv::Geometry geo = conv::geometry(attrs_of(n), xs, ws, y->type().shape);
  const int64_t batch = xs[0].value(), out_c = ws[0].value(), cg = ws[1].value();
  const int64_t groups = attrs_of(n).attr_int("groups"), taps = geo.k[0] * geo.k[1];

  // Channels first, so that the stacked taps are the columns with no further copy.
  Value* xpad = permute(b, x, {1, 0, 2, 3});
  if (geo.pad[0] != 0 || geo.pad[1] != 0) xpad = conv::pad_hw(b, xpad, geo.pad[0], geo.pad[0], geo.pad[1], geo.pad[1]);
  std::vector<Operand> tap_slices;
  for (int64_t i = 0; i < geo.k[0]; ++i)
    for (int64_t j = 0; j < geo.k[1]; ++j) {
      const int64_t at[2] = {i, j};
      tap_slices.emplace_back(conv::tap(b, xpad, geo, at));  // [C, N, OH, OW]
    }
  Value* stacked = b.apply1(OpKind::Stack, std::move(tap_slices), {{"dim", int64_t{1}}});  // [C, K, N, OH, OW]
  const int64_t len = batch * geo.out[0] * geo.out[1];
  Value* columns = reshape(b, stacked, {groups, cg * taps, len});
  Value* weights = reshape(b, w, {groups, out_c / groups, cg * taps});
  Value* product = reshape(b, b.apply1(OpKind::Matmul, {weights, columns}), {out_c, batch, geo.out[0], geo.out[1]});
  Value* v = permute(b, product, {1, 0, 2, 3});
  if (bias != nullptr) v = add(b, v, per_channel(b, bias, 4));
  if (unbatched) v = b.apply1(OpKind::Squeeze, {v}, {{"dim", AttrValue::Ints{0}}});
  return result(b, n, v);
}

}  // namespace

std::vector<RewriteRule> conv_rules() { return {{"conv2d", {OpKind::Conv2d}, conv2d}}; }

}  // namespace kiln::decomp
