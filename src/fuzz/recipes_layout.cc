// Recipes of the view and layout ops whose attributes must fit the operand's shape: sizes with
// the same element count, permutations, ranges within a dim, storage-bounded strides, the view
// inverses (src of the view's shape) and the lists of cat and stack.
#include <algorithm>
#include <numeric>

#include "fuzz/op_recipes.h"
#include "ops/op_call.h"
#include "ops/strided_geometry.h"

namespace kiln::fuzz {
namespace {

int64_t size_of(const TensorType& t, int64_t dim) { return t.shape[*wrap_dim(dim, t.shape.rank())].value(); }

// Sizes with `numel` elements, rank 0 to 4 (at least 1 when numel != 1), maybe one -1.
std::vector<int64_t> sizes_with_numel(Choices& c, int64_t numel) {
  std::vector<int64_t> s;
  if (numel == 0) {
    for (int64_t i = 0, rank = c.between(1, 3); i < rank; ++i) s.push_back(c.between(1, 3));
    s[c.below(s.size())] = 0;
    return s;
  }
  int64_t left = numel;
  for (int64_t i = 0, rank = c.between(numel == 1 ? 0 : 1, 4); i < rank; ++i) {
    std::vector<int64_t> divisors;
    for (int64_t f = 1; f <= left; ++f)
      if (left % f == 0) divisors.push_back(f);
    const int64_t f = i + 1 == rank ? left : c.pick(divisors);
    s.push_back(f);
    left /= f;
  }
  if (!s.empty() && c.percent(20)) s[c.below(s.size())] = -1;
  return s;
}

bool reshape(GenContext& ctx, OpDraft& d) {
  Value* self = ctx.pick_value();
  if (!self) return false;
  d.operands = {self};
  const int64_t numel = self->type().shape.numel();
  d.attrs.set(d.op == OpKind::Reshape ? "shape" : "size", sizes_with_numel(ctx.choices, numel));
  return true;
}

bool permute(GenContext& ctx, OpDraft& d) {
  Value* self = ctx.pick_value();
  if (!self) return false;
  std::vector<int64_t> dims(static_cast<size_t>(self->type().shape.rank()));
  std::iota(dims.begin(), dims.end(), 0);
  for (size_t i = dims.size(); i > 1; --i) std::swap(dims[i - 1], dims[ctx.choices.below(i)]);
  d.operands = {self};
  d.attrs.set("dims", dims);
  return true;
}

bool expand(GenContext& ctx, OpDraft& d) {
  Value* self = ctx.pick_value();
  if (!self) return false;
  Choices& c = ctx.choices;
  std::vector<int64_t> size;
  for (int64_t i = 0, lead = c.percent(30) ? c.between(1, 2) : 0; i < lead; ++i) size.push_back(c.between(0, 3));
  for (int64_t s : self->type().shape.sizes()) size.push_back(s == 1 ? c.between(0, 4) : c.percent(30) ? -1 : s);
  d.operands = {self};
  d.attrs.set("size", size);
  return true;
}

bool unsqueeze(GenContext& ctx, OpDraft& d) {
  Value* self = ctx.pick_value();
  if (!self) return false;
  const int rank = self->type().shape.rank();
  d.operands = {self};
  d.attrs.set("dim", ctx.choices.between(-rank - 1, rank));
  return true;
}

// slice's dim, start, end and step for `self`, starts and ends anywhere around the dim.
bool slice_attrs(GenContext& ctx, OpDraft& d, const TensorType& self) {
  if (self.shape.rank() == 0) return false;
  Choices& c = ctx.choices;
  const int64_t dim = ctx.dim(self.shape.rank());
  const int64_t size = size_of(self, dim);
  d.attrs.set("dim", dim);
  if (c.percent(80)) d.attrs.set("start", c.between(-size - 1, size + 1));
  if (c.percent(80)) d.attrs.set("end", c.between(-size - 1, size + 1));
  if (c.percent(40)) d.attrs.set("step", c.between(1, 3));
  return true;
}

bool select_attrs(GenContext& ctx, OpDraft& d, const TensorType& self) {
  if (self.shape.rank() == 0) return false;
  const int64_t dim = ctx.dim(self.shape.rank());
  const int64_t size = size_of(self, dim);
  if (size == 0) return false;
  d.attrs.set("dim", dim);
  d.attrs.set("index", ctx.choices.between(-size, size - 1));
  return true;
}

// as_strided's size, stride and offset within `self`'s own elements (self owns its storage).
bool as_strided_attrs(GenContext& ctx, OpDraft& d, const TensorType& self) {
  Choices& c = ctx.choices;
  const int64_t numel = self.shape.numel();
  std::vector<int64_t> size, stride;
  int64_t last = 0;  // the largest element offset the view reaches
  for (int64_t i = 0, rank = c.between(0, 3); i < rank; ++i) {
    size.push_back(c.between(numel == 0 ? 0 : 1, 3));
    stride.push_back(c.between(0, 3));
    last += (size.back() - 1) * stride.back();
  }
  const bool empty = std::find(size.begin(), size.end(), 0) != size.end();
  if (!empty && last >= numel) return false;
  // Scattered through overlapping elements, src's earlier writes are lost: torch's gradient
  // still gives them one (as_strided_scatter's derivative), finite differences do not.
  if (d.op == OpKind::AsStridedScatter && ctx.options.differentiable && strided_may_overlap(size, stride)) return false;
  const int64_t offset = empty ? 0 : c.between(0, numel - 1 - last);
  d.attrs.set("size", size);
  d.attrs.set("stride", stride);
  if (offset || c.percent(50)) d.attrs.set("storage_offset", offset);
  return true;
}

// Values that own their storage (inputs and results of ops that are neither views nor in
// place): as_strided of them reads only their own elements.
Value* pick_storage_owner(GenContext& ctx) {
  return ctx.pick_value_where(
      [](const Value& v) { return !v.producer() || !v.producer()->info().has(kView | kInplace); });
}

bool slice(GenContext& ctx, OpDraft& d) {
  Value* self = pick_ranked(ctx, 1);
  if (!self) return false;
  d.operands = {self};
  return slice_attrs(ctx, d, self->type());
}

bool select(GenContext& ctx, OpDraft& d) {
  Value* self = pick_ranked(ctx, 1);
  if (!self) return false;
  d.operands = {self};
  return select_attrs(ctx, d, self->type());
}

bool as_strided(GenContext& ctx, OpDraft& d) {
  Value* self = pick_storage_owner(ctx);
  if (!self) return false;
  d.operands = {self};
  return as_strided_attrs(ctx, d, self->type());
}

bool narrow(GenContext& ctx, OpDraft& d) {
  Value* self = pick_ranked(ctx, 1);
  if (!self) return false;
  Choices& c = ctx.choices;
  const int64_t dim = ctx.dim(self->type().shape.rank());
  const int64_t size = size_of(self->type(), dim);
  const int64_t start = c.between(0, size);
  d.operands = {self};
  d.attrs.set("dim", dim);
  d.attrs.set("start", start - (c.percent(20) && start < size ? size : 0));
  d.attrs.set("length", c.between(0, size - start));
  return true;
}

bool split_or_chunk(GenContext& ctx, OpDraft& d) {
  Value* self = pick_ranked(ctx, 1);
  if (!self) return false;
  const int64_t dim = ctx.dim(self->type().shape.rank());
  d.operands = {self};
  d.attrs.set("dim", dim);
  d.attrs.set(d.op == OpKind::Split ? "split_size" : "chunks",
              ctx.choices.between(1, std::max<int64_t>(size_of(self->type(), dim), 1) + 1));
  return true;
}

// The view inverses: self, the view's attributes, and src of the view's type (dtype may differ:
// src is cast to self's).
bool view_scatter(GenContext& ctx, OpDraft& d) {
  const OpKind view = d.op == OpKind::SliceScatter    ? OpKind::Slice
                      : d.op == OpKind::SelectScatter ? OpKind::Select
                                                      : OpKind::AsStrided;
  Value* self = view == OpKind::AsStrided ? pick_storage_owner(ctx) : pick_ranked(ctx, 1);
  if (!self) return false;
  const TensorType& t = self->type();
  const bool ok = view == OpKind::Slice    ? slice_attrs(ctx, d, t)
                  : view == OpKind::Select ? select_attrs(ctx, d, t)
                                           : as_strided_attrs(ctx, d, t);
  if (!ok) return false;
  const TypeOperand operand{t, {}};
  Expected<std::vector<TensorType>> src = infer_types(TypeCall(view, d.attrs, std::span(&operand, 1)));
  if (!src) return false;
  TensorType src_type = src->front();
  if (ctx.choices.percent(20)) src_type.dtype = ctx.dtype();
  d.operands = {self, ctx.value_of_type(src_type)};
  return true;
}

// cat: tensors that agree except along dim (of any dtype: they promote); stack: one shape.
bool cat_or_stack(GenContext& ctx, OpDraft& d) {
  const bool cat = d.op == OpKind::Cat;
  Value* first = cat ? pick_ranked(ctx, 1) : ctx.pick_value();
  if (!first) return false;
  Choices& c = ctx.choices;
  const int rank = first->type().shape.rank();
  const int64_t dim = cat ? ctx.dim(rank) : c.between(-rank - 1, rank);
  d.operands = {first};
  for (int64_t i = 0, more = c.between(0, 2); i < more; ++i) {
    TensorType t = first->type();
    if (cat) t.shape[*wrap_dim(dim, rank)] = c.between(0, 3);
    if (c.percent(20)) t.dtype = ctx.dtype();
    d.operands.push_back(ctx.value_of_type(t));
  }
  d.attrs.set("dim", dim);
  return true;
}

bool pad(GenContext& ctx, OpDraft& d) {
  Value* self = pick_ranked(ctx, 1);
  if (!self) return false;
  Choices& c = ctx.choices;
  std::vector<int64_t> pads;
  for (int64_t i = 0, n = 2 * c.between(1, self->type().shape.rank()); i < n; ++i) pads.push_back(c.between(-1, 2));
  d.operands = {self};
  d.attrs.set("pad", pads);
  if (c.percent(60)) d.attrs.set("value", AttrValue::from_scalar(ctx.scalar(self->type().dtype)));
  return true;
}

bool roll(GenContext& ctx, OpDraft& d) {
  Value* self = ctx.pick_value();
  if (!self) return false;
  Choices& c = ctx.choices;
  const int rank = self->type().shape.rank();
  std::vector<int64_t> shifts, dims;
  if (rank == 0 || c.percent(30)) {
    shifts.push_back(c.between(-4, 4));
  } else {
    for (int dim = 0; dim < rank; ++dim)
      if (c.percent(50) || (dim + 1 == rank && dims.empty())) {
        dims.push_back(c.percent(30) ? dim - rank : dim);
        shifts.push_back(c.between(-4, 4));
      }
  }
  d.operands = {self};
  d.attrs.set("shifts", shifts);
  d.attrs.set("dims", dims);
  return true;
}

bool repeat(GenContext& ctx, OpDraft& d) {
  Value* self = ctx.pick_value();
  if (!self) return false;
  Choices& c = ctx.choices;
  std::vector<int64_t> reps;
  for (int64_t i = 0, n = self->type().shape.rank() + (c.percent(30) ? 1 : 0); i < n; ++i)
    reps.push_back(c.between(0, 3));
  d.operands = {self};
  d.attrs.set("repeats", reps);
  return true;
}

}  // namespace

void add_layout_recipes(RecipeTable& t) {
  auto set = [&](OpKind op, Recipe r) { t[static_cast<size_t>(op)] = r; };
  set(OpKind::Reshape, reshape);
  set(OpKind::View, reshape);
  set(OpKind::Permute, permute);
  set(OpKind::Expand, expand);
  set(OpKind::Unsqueeze, unsqueeze);
  set(OpKind::Slice, slice);
  set(OpKind::Select, select);
  set(OpKind::Narrow, narrow);
  set(OpKind::Split, split_or_chunk);
  set(OpKind::Chunk, split_or_chunk);
  set(OpKind::AsStrided, as_strided);
  set(OpKind::SliceScatter, view_scatter);
  set(OpKind::SelectScatter, view_scatter);
  set(OpKind::AsStridedScatter, view_scatter);
  set(OpKind::Cat, cat_or_stack);
  set(OpKind::Stack, cat_or_stack);
  set(OpKind::ConstantPadNd, pad);
  set(OpKind::Roll, roll);
  set(OpKind::Repeat, repeat);
}

}  // namespace kiln::fuzz
