// Derivative rules of as_strided and of the view inverses (slice_scatter, select_scatter,
// as_strided_scatter). A scatter's gradient splits in two: the part of the result's gradient
// under the view goes to src, the rest to self. as_strided's gradient is its inverse, the
// scatter of the result's gradient into zeros; when two elements of the view share one
// storage element their gradients add up (an index_add over storage positions). As for the
// forward on graph values, offsets count from the first element of self, which the rules
// take to be its own packed storage.
#include <algorithm>

#include "autograd/derivative_rules.h"
#include "autograd/rule_util.h"
#include "ops/strided_geometry.h"
#include "support/check.h"

namespace kiln {

using namespace grad;

namespace {

// The result's gradient with zeros where src landed: self's share of a scatter's gradient.
Value* grad_outside_view(const GradCall& c, OpKind scatter) {
  return c.b.apply1(scatter, {c.grad(), c.b.zeros_like(c.operand(1))}, c.node.attrs());
}

// The result's gradient seen through the view that a scatter replaced: src's share.
Value* grad_under_view(const GradCall& c, OpKind view) {
  Value* g = c.grad();
  if (view == OpKind::AsStrided) g = c.b.apply1(OpKind::Contiguous, {g});  // offsets count in packed order
  return c.b.apply1(view, {g}, c.node.attrs());                            // the scatter's attributes are the view's
}

std::vector<Value*> scatter_grads(const GradCall& c, OpKind scatter, OpKind view) {
  Value* self_grad = differentiable(c, 0) ? to_operand(c, 0, grad_outside_view(c, scatter)) : nullptr;
  Value* src_grad = differentiable(c, 1) ? to_operand(c, 1, grad_under_view(c, view)) : nullptr;
  return {self_grad, src_grad};
}

// The storage position of every element of an as_strided view, shaped like the view:
// offset + sum over dims of index * stride.
Value* storage_positions(GraphBuilder& b, const std::vector<int64_t>& size, const std::vector<int64_t>& stride,
                         int64_t offset) {
  const size_t rank = size.size();
  Value* pos =
      b.apply1(OpKind::Full, {}, {{"size", AttrValue::Ints(rank, 1)}, {"fill_value", offset}, {"dtype", DType::I64}});
  for (size_t d = 0; d < rank; ++d) {
    Value* along = b.apply1(OpKind::Arange, {}, {{"start", int64_t{0}}, {"end", size[d]}, {"dtype", DType::I64}});
    along = mul(b, along, Scalar(stride[d]));
    AttrValue::Ints shape(rank, 1);
    shape[d] = size[d];
    pos = add(b, pos, b.apply1(OpKind::Reshape, {along}, {{"shape", shape}}));
  }
  return pos;
}

}  // namespace

std::vector<Value*> grad_rule_slice_scatter(const GradCall& c) {
  return scatter_grads(c, OpKind::SliceScatter, OpKind::Slice);
}

std::vector<Value*> grad_rule_select_scatter(const GradCall& c) {
  return scatter_grads(c, OpKind::SelectScatter, OpKind::Select);
}

std::vector<Value*> grad_rule_as_strided_scatter(const GradCall& c) {
  return scatter_grads(c, OpKind::AsStridedScatter, OpKind::AsStrided);
}

std::vector<Value*> grad_rule_as_strided(const GradCall& c) {
  if (!differentiable(c, 0)) return {nullptr};
  const Shape& self_shape = c.operand(0)->type().shape;
  KILN_CHECK(self_shape.is_static()) << "derivative of as_strided: symbolic input shape " << self_shape.to_string();
  const std::vector<int64_t>& size = c.attr_ints("size");
  const std::vector<int64_t>& stride = c.attr_ints("stride");
  const int64_t offset = c.attr_opt_int("storage_offset").value_or(0);
  const int64_t numel = self_shape.numel();
  const int64_t extent = strided_storage_extent(size, stride, offset);
  if (!strided_may_overlap(size, stride) && extent <= numel) {
    Value* zeros = c.b.zeros_like(c.operand(0));
    return {to_operand(c, 0, c.b.apply1(OpKind::AsStridedScatter, {zeros, c.grad()}, c.node.attrs()))};
  }
  // Overlapping (or reaching past self): accumulate per storage element, keep self's part.
  const int64_t storage = std::max(extent, numel);
  Value* positions =
      c.b.apply1(OpKind::Reshape, {storage_positions(c.b, size, stride, offset)}, {{"shape", AttrValue::Ints{-1}}});
  Value* flat_grad = c.b.apply1(OpKind::Reshape, {c.grad()}, {{"shape", AttrValue::Ints{-1}}});
  Value* zeros = c.b.apply1(OpKind::Zeros, {}, {{"size", AttrValue::Ints{storage}}, {"dtype", c.grad()->type().dtype}});
  Value* acc = c.b.apply1(OpKind::IndexAdd, {zeros, positions, flat_grad}, {{"dim", int64_t{0}}});
  if (storage > numel) acc = c.b.apply1(OpKind::Slice, {acc}, {{"end", numel}});
  return {to_operand(c, 0, c.b.apply1(OpKind::Reshape, {acc}, {{"shape", self_shape.sizes()}}))};
}

}  // namespace kiln
