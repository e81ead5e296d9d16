// upsample_bilinear2d as index_select along H and W and a weighted sum (passes/upsample_taps.h),
// with the ops every backend already runs. Declined: a symbolic spatial size (the taps are
// built from literal sizes).
#include "passes/decompositions.h"
#include "passes/upsample_taps.h"

namespace kiln::decomp {

namespace {

Replacement upsample_bilinear2d(Node& n, GraphBuilder& b) {
  Value* x = n.operand(0).value;
  const Shape &xs = x->type().shape, &ys = n.result()->type().shape;
  for (int d = 2; d < 4; ++d)
    if (!xs[d].is_static() || !ys[d].is_static()) return std::nullopt;
  const upsample::BuildOp op = [&b](OpKind k, std::vector<Operand> operands, AttrMap attrs) {
    return b.apply1(k, std::move(operands), std::move(attrs));
  };
  return result(b, n, upsample::blend(b, op, n, x));
}

}  // namespace

std::vector<RewriteRule> upsample_rules() {
  return {{"upsample_bilinear2d", {OpKind::UpsampleBilinear2d}, upsample_bilinear2d}};
}

}  // namespace kiln::decomp
