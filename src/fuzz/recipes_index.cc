// Recipes of the indexing ops: index tensors whose values lie in the indexed dim by
// construction (GenContext::indices) and whose shapes fit the op (gather's no larger than
// self, index_add's source of self's shape but the index's length along dim, ...).
#include "fuzz/op_recipes.h"
#include "ops/op_call.h"

namespace kiln::fuzz {
namespace {

// Sizes no larger than `bound` (each dim 0 to its bound), except along `free_dim` (0 to 3).
std::vector<int64_t> sizes_within(Choices& c, const std::vector<int64_t>& bound, int free_dim) {
  std::vector<int64_t> s;
  for (int k = 0; k < static_cast<int>(bound.size()); ++k)
    s.push_back(k == free_dim
                    ? c.between(0, 3)
                    : c.between(std::min<int64_t>(bound[static_cast<size_t>(k)], 1), bound[static_cast<size_t>(k)]));
  return s;
}

bool index_select(GenContext& ctx, OpDraft& d) {
  Value* self = pick_ranked(ctx, 1);
  if (!self) return false;
  const TensorType& t = self->type();
  const int64_t dim = ctx.dim(t.shape.rank());
  const int64_t size = t.shape[*wrap_dim(dim, t.shape.rank())].value();
  const std::vector<int64_t> index_sizes = {size == 0 ? 0 : ctx.choices.between(0, 4)};
  d.operands = {self, Operand()};
  d.attrs.set("dim", dim);
  d.operands[1] = ctx.indices(index_sizes, std::max<int64_t>(size, 1));
  return true;
}

// Indices of `sizes` whose lines along `dim` hold distinct values below `bound` (>= the line's
// length): arange along dim, maybe flipped, broadcast over the other dims.
Value* distinct_indices(GenContext& ctx, const std::vector<int64_t>& sizes, int dim) {
  const int64_t length = sizes[static_cast<size_t>(dim)];
  Value* line = ctx.helper(OpKind::Arange, {}, {{"start", int64_t{0}}, {"end", length}});
  if (ctx.choices.percent(50)) line = ctx.helper(OpKind::Flip, {line}, {{"dims", std::vector<int64_t>{0}}});
  std::vector<int64_t> shape(sizes.size(), 1);
  shape[static_cast<size_t>(dim)] = length;
  Value* v = ctx.helper(OpKind::Reshape, {line}, {{"shape", shape}});
  return ctx.helper(OpKind::Contiguous, {ctx.helper(OpKind::Expand, {v}, {{"size", sizes}})});
}

// gather, scatter and scatter_add: an index of self's rank, no larger than self apart from dim
// (and no larger than src, which scatter draws of the index's shape or larger). In
// differentiable graphs scatter writes each element once: torch's derivative gives src's
// overwritten elements a gradient too, which finite differences do not see.
bool gather_or_scatter(GenContext& ctx, OpDraft& d) {
  Value* self = pick_ranked(ctx, 1);
  if (!self) return false;
  Choices& c = ctx.choices;
  const TensorType& t = self->type();
  const int rank = t.shape.rank();
  const int64_t dim = ctx.dim(rank);
  const int wrapped = *wrap_dim(dim, rank);
  const int64_t size = t.shape[wrapped].value();
  std::vector<int64_t> index_sizes = sizes_within(c, t.shape.sizes(), wrapped);
  if (size == 0 && d.op != OpKind::Gather) index_sizes[static_cast<size_t>(wrapped)] = 0;
  const bool distinct = d.op == OpKind::Scatter && ctx.options.differentiable;
  if (distinct) index_sizes[static_cast<size_t>(wrapped)] = std::min(index_sizes[static_cast<size_t>(wrapped)], size);
  Value* index =
      distinct ? distinct_indices(ctx, index_sizes, wrapped) : ctx.indices(index_sizes, std::max<int64_t>(size, 1));
  d.operands = {self, index};
  d.attrs.set("dim", dim);
  if (d.op == OpKind::Gather) return true;
  if (d.op == OpKind::Scatter && c.percent(30)) {
    d.operands.push_back(ctx.scalar(t.dtype));
    return true;
  }
  std::vector<int64_t> src_sizes = index_sizes;
  for (int64_t& s : src_sizes) s += c.percent(20) ? 1 : 0;
  d.operands.push_back(ctx.value_of_type({t.dtype, Shape::from_sizes(src_sizes)}));
  return true;
}

// index and index_put: integer indices (none for some dims) that broadcast together.
bool index_operands(GenContext& ctx, OpDraft& d, Value* self) {
  Choices& c = ctx.choices;
  const TensorType& t = self->type();
  const int rank = t.shape.rank();
  const std::vector<int64_t> common = ctx.sizes(static_cast<int>(c.between(0, 2)));
  d.operands = {self};
  bool any = false;
  for (int64_t k = 0, n = c.between(1, rank); k < n; ++k) {
    if (c.percent(25) && !(k + 1 == n && !any)) {
      d.operands.push_back(Scalar());
      continue;
    }
    std::vector<int64_t> s = common;
    if (!s.empty() && c.percent(30)) s[c.below(s.size())] = 1;  // broadcasts with the others
    const int64_t size = t.shape[static_cast<int>(k)].value();
    if (size == 0) std::fill(s.begin(), s.end(), 0);
    if (size == 0 && s.empty()) s = {0};
    d.operands.push_back(ctx.indices(s, std::max<int64_t>(size, 1)));
    any = true;
  }
  return true;
}

bool index(GenContext& ctx, OpDraft& d) {
  Value* self = pick_ranked(ctx, 1);
  return self && index_operands(ctx, d, self);
}

bool index_put(GenContext& ctx, OpDraft& d) {
  Value* self =
      d.op == OpKind::IndexPutInplace
          ? ctx.pick_value_where([&](const Value& v) { return v.type().shape.rank() >= 1 && writable(ctx, &v); })
          : pick_ranked(ctx, 1);
  if (!self || !index_operands(ctx, d, self)) return false;
  std::vector<TypeOperand> types;
  for (const Operand& o : d.operands)
    types.push_back(o.is_value() ? TypeOperand{o.value->type(), {}} : TypeOperand{std::nullopt, o.literal});
  Expected<std::vector<TensorType>> indexed = infer_types(TypeCall(OpKind::Index, {}, types));
  if (!indexed) return false;
  // values of the indexing result's shape, or a shape that broadcasts to it.
  std::vector<int64_t> s = indexed->front().shape.sizes();
  if (!s.empty() && ctx.choices.percent(30))
    s.erase(s.begin(), s.begin() + static_cast<long>(ctx.choices.below(s.size() + 1)));
  d.operands.push_back(ctx.value_of_type({self->type().dtype, Shape::from_sizes(s)}));
  // Without accumulate a repeated index writes twice; torch's derivative gives both values a
  // gradient, finite differences only the last: differentiable graphs accumulate.
  if (ctx.options.differentiable || ctx.choices.percent(50)) d.attrs.set("accumulate", true);
  return true;
}

bool index_add(GenContext& ctx, OpDraft& d) {
  Value* self = pick_ranked(ctx, 1);
  if (!self) return false;
  Choices& c = ctx.choices;
  const TensorType& t = self->type();
  const int64_t dim = ctx.dim(t.shape.rank());
  const int wrapped = *wrap_dim(dim, t.shape.rank());
  const int64_t size = t.shape[wrapped].value();
  const int64_t length = size == 0 ? 0 : c.between(0, 4);
  std::vector<int64_t> source = t.shape.sizes();
  source[static_cast<size_t>(wrapped)] = length;
  d.operands = {self, Operand(), Operand()};
  d.attrs.set("dim", dim);
  d.operands[1] = ctx.indices({length}, std::max<int64_t>(size, 1));
  d.operands[2] = ctx.value_of_type({t.dtype, Shape::from_sizes(source)});
  if (c.percent(40)) d.attrs.set("alpha", AttrValue::from_scalar(ctx.scalar(t.dtype)));
  return true;
}

bool embedding(GenContext& ctx, OpDraft& d) {
  Value* weight = ctx.pick_value_if([](const TensorType& t) { return t.shape.rank() == 2 && t.shape[0].value() > 0; });
  if (!weight)
    weight = ctx.fresh_value({ctx.float_dtype(), Shape{ctx.choices.between(1, 5), ctx.choices.between(1, 4)}});
  const int64_t num = weight->type().shape[0].value();
  d.operands = {weight, ctx.indices(ctx.sizes(static_cast<int>(ctx.choices.between(0, 2))), num)};
  // padding_idx's row gets no gradient by definition (torch's), so not in differentiable graphs.
  if (!ctx.options.differentiable && ctx.choices.percent(30))
    d.attrs.set("padding_idx", ctx.choices.between(0, num - 1));
  return true;
}

}  // namespace

void add_index_recipes(RecipeTable& t) {
  auto set = [&](OpKind op, Recipe r) { t[static_cast<size_t>(op)] = r; };
  set(OpKind::IndexSelect, index_select);
  set(OpKind::Gather, gather_or_scatter);
  set(OpKind::Scatter, gather_or_scatter);
  set(OpKind::ScatterAdd, gather_or_scatter);
  set(OpKind::Index, index);
  set(OpKind::IndexPut, index_put);
  set(OpKind::IndexPutInplace, index_put);
  set(OpKind::IndexAdd, index_add);
  set(OpKind::Embedding, embedding);
}

}  // namespace kiln::fuzz
