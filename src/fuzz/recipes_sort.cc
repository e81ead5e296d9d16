// Recipes of topk and histc: k within the line's length (0 and the whole line included), and
// histc's bins and range over a floating value (equal bounds, the data range, drawn often).
// sort needs none: fill_from_schema draws its dim and flags.
#include "fuzz/op_recipes.h"

namespace kiln::fuzz {
namespace {

bool topk(GenContext& ctx, OpDraft& d) {
  Value* self = ctx.pick_value_if([](const TensorType& t) { return t.dtype != DType::Bool; });
  if (!self) return false;
  const TensorType& t = self->type();
  const int rank = t.shape.rank();
  const int64_t dim = ctx.dim(rank);
  const int64_t size = rank == 0 ? 1 : t.shape[*wrap_dim(dim, rank)].value();
  Choices& c = ctx.choices;
  d.operands = {self};
  d.attrs.set("dim", dim);
  d.attrs.set("k", c.between(0, size));
  if (c.percent(50)) d.attrs.set("largest", c.percent(50));
  if (c.percent(20)) d.attrs.set("sorted", c.percent(50));
  return true;
}

bool histc(GenContext& ctx, OpDraft& d) {
  Value* self = ctx.pick_value_if([](const TensorType& t) { return is_floating(t.dtype); });
  if (!self) self = ctx.fresh_value({ctx.float_dtype(), Shape{ctx.choices.between(0, 6)}});
  Choices& c = ctx.choices;
  d.operands = {self};
  d.attrs.set("bins", c.between(1, 6));
  if (c.percent(60)) {  // else min = max = 0: the data's range
    const double lo = static_cast<double>(c.between(-3, 1)) / 2;
    d.attrs.set("min", AttrValue::from_scalar(Scalar(lo)));
    d.attrs.set("max", AttrValue::from_scalar(Scalar(lo + static_cast<double>(c.between(0, 4)) / 2)));
  }
  return true;
}

}  // namespace

void add_sort_recipes(RecipeTable& t) {
  t[static_cast<size_t>(OpKind::Topk)] = topk;
  t[static_cast<size_t>(OpKind::Histc)] = histc;
}

}  // namespace kiln::fuzz
