// Recipes of the creation ops that take a size, a range or a count instead of a tensor:
// small sizes (0 and 1 included), arange ranges of a few elements, randint bounds low < high.
#include "fuzz/op_recipes.h"

namespace kiln::fuzz {
namespace {

// The attributes the schema can describe (dtype, fill_value, seed), after the recipe's own.
bool schema_attrs(GenContext& ctx, OpDraft& d) {
  const TensorType none{DType::F32, Shape{}};
  for (const ArgSchema& arg : op_info(d.op).schema.args)
    if (arg.is_attr() && !d.attrs.find(arg.name) && !draw_attr(ctx, d, arg, none)) return false;
  if (op_info(d.op).has(kRandom) && ctx.choices.percent(30))  // the runtime generator state
    d.operands.push_back(ctx.fresh_value({DType::I64, Shape{2}}));
  return true;
}

bool sized(GenContext& ctx, OpDraft& d) {
  Choices& c = ctx.choices;
  d.attrs.set("size", ctx.sizes(static_cast<int>(c.between(0, 3))));
  if (d.op == OpKind::Randint) {
    const int64_t low = c.between(-5, 5);
    d.attrs.set("low", low);
    d.attrs.set("high", low + c.between(1, 10));
  }
  if (d.op == OpKind::Rand || d.op == OpKind::Randn) d.attrs.set("dtype", ctx.float_dtype());
  return schema_attrs(ctx, d);
}

bool randperm(GenContext& ctx, OpDraft& d) {
  d.attrs.set("n", ctx.choices.between(0, 8));
  return schema_attrs(ctx, d);
}

bool arange(GenContext& ctx, OpDraft& d) {
  Choices& c = ctx.choices;
  if (c.percent(50)) {  // integers: exact counts
    const int64_t start = c.between(-5, 5), step = c.percent(70) ? c.between(1, 3) : -c.between(1, 3);
    d.attrs.set("start", start);
    d.attrs.set("end", start + step * c.between(0, 6) + (c.percent(30) ? step / 2 : 0));
    d.attrs.set("step", step);
  } else {
    static const double kSteps[] = {0.5, 0.25, -0.5, 1.5};
    const double start = static_cast<double>(c.between(-8, 8)) / 4, step = c.pick(kSteps);
    d.attrs.set("start", start);
    d.attrs.set("end", start + step * static_cast<double>(c.between(0, 6)) + step / 3);
    d.attrs.set("step", step);
  }
  return schema_attrs(ctx, d);
}

}  // namespace

void add_creation_recipes(RecipeTable& t) {
  auto set = [&](OpKind op, Recipe r) { t[static_cast<size_t>(op)] = r; };
  for (OpKind op :
       {OpKind::Full, OpKind::Zeros, OpKind::Ones, OpKind::Empty, OpKind::Rand, OpKind::Randn, OpKind::Randint})
    set(op, sized);
  set(OpKind::Randperm, randperm);
  set(OpKind::Arange, arange);
}

}  // namespace kiln::fuzz
