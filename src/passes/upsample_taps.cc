// upsample_bilinear2d's taps and blend in the graph (see upsample_taps.h).
#include "passes/upsample_taps.h"

#include "ops/upsample_geometry.h"

namespace kiln::upsample {

namespace {

Value* apply(GraphBuilder& b, OpKind op, std::vector<Operand> operands, AttrMap attrs = {}) {
  return b.apply1(op, std::move(operands), std::move(attrs));
}

}  // namespace

DType math_dtype(DType t) { return t == DType::F64 ? DType::F64 : DType::F32; }

GraphTaps graph_taps(GraphBuilder& b, int64_t in, int64_t out, bool align_corners, std::optional<double> scale,
                     DType math) {
  const double s = source_scale(in, out, align_corners, scale, math == DType::F64);
  Value* o = apply(b, OpKind::Arange, {}, {{"start", int64_t{0}}, {"end", out}, {"dtype", math}});
  // Each step rounds to `math` as ATen's: exact in double, then rounded once on store.
  Value* src;
  if (align_corners) {
    src = apply(b, OpKind::Mul, {o, Scalar(s)});
  } else {
    src = apply(b, OpKind::Mul, {apply(b, OpKind::Add, {o, Scalar(0.5)}), Scalar(s)});
    src = apply(b, OpKind::Sub, {src, Scalar(0.5)});
    src = apply(b, OpKind::Clamp, {src}, {{"min", 0.0}});
  }
  Value* i0 = apply(b, OpKind::ToCopy, {apply(b, OpKind::Floor, {src})}, {{"dtype", DType::I64}});
  i0 = apply(b, OpKind::Clamp, {i0}, {{"max", in - 1}});
  Value* i1 = apply(b, OpKind::Clamp, {apply(b, OpKind::Add, {i0, Scalar(int64_t{1})})}, {{"max", in - 1}});
  Value* lambda1 = apply(b, OpKind::Sub, {src, apply(b, OpKind::ToCopy, {i0}, {{"dtype", math}})});
  lambda1 = apply(b, OpKind::Clamp, {lambda1}, {{"min", 0.0}, {"max", 1.0}});
  // 1 - lambda1, rounded as ATen's: -lambda1 + 1 is the same sum.
  Value* lambda0 = apply(b, OpKind::Add, {apply(b, OpKind::Neg, {lambda1}), Scalar(1.0)});
  return {i0, i1, lambda0, lambda1};
}

Value* blend(GraphBuilder& b, const BuildOp& op, const Node& n, Value* x) {
  const OpCallBase attrs(n.op(), n.attrs());
  const bool corners = attrs.attr_bool("align_corners");
  const DType math = math_dtype(n.result()->type().dtype);
  const Shape &xs = x->type().shape, &ys = n.result()->type().shape;
  const int64_t oh = ys[2].value();
  const GraphTaps h = graph_taps(b, xs[2].value(), oh, corners, attrs.attr_opt_float("scales_h"), math);
  const GraphTaps w = graph_taps(b, xs[3].value(), ys[3].value(), corners, attrs.attr_opt_float("scales_w"), math);
  if (x->type().dtype != math) x = op(OpKind::ToCopy, {x}, {{"dtype", math}});
  auto pick = [&](Value* v, int64_t dim, Value* index) { return op(OpKind::IndexSelect, {v, index}, {{"dim", dim}}); };
  auto column = [&](Value* lambda) { return apply(b, OpKind::Reshape, {lambda}, {{"shape", AttrValue::Ints{oh, 1}}}); };
  // Rows first: [N, C, OH, W], then columns: [N, C, OH, OW].
  Value* rows = op(OpKind::Add,
                   {op(OpKind::Mul, {pick(x, 2, h.i0), column(h.lambda0)}, {}),
                    op(OpKind::Mul, {pick(x, 2, h.i1), column(h.lambda1)}, {})},
                   {});
  return op(
      OpKind::Add,
      {op(OpKind::Mul, {pick(rows, 3, w.i0), w.lambda0}, {}), op(OpKind::Mul, {pick(rows, 3, w.i1), w.lambda1}, {})},
      {});
}

}  // namespace kiln::upsample
