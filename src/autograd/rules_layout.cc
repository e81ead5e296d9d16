// Derivative rules of the layout ops that pick, join or rearrange elements without arithmetic:
// slicing, splitting, concatenation, padding, flips, rolls, repeats and triangles. Each
// gradient puts the result's gradient back where the elements came from, with zeros where
// an operand element did not reach the result. Shapes are static (joint_graph refuses
// symbolic ones).
#include "autograd/derivative_rules.h"
#include "autograd/rule_util.h"
#include "ops/type_rules_util.h"
#include "support/check.h"

namespace kiln {

using namespace grad;

namespace {

// Operand i's static sizes.
std::vector<int64_t> static_sizes(const GradCall& c, int i = 0) {
  const Shape& shape = c.operand(i)->type().shape;
  KILN_CHECK(shape.is_static()) << "derivative of " << c.name() << ": symbolic input shape " << shape.to_string();
  return shape.sizes();
}

int dim_attr(const GradCall& c, const char* name, int rank) {
  auto d = wrap_dim(c.attr_int(name), rank);
  KILN_CHECK(d.has_value()) << "derivative of " << c.name() << ": dim out of range";
  return *d;
}

// A constant_pad_nd pad list that pads only dim `d` (of `rank`) by `lo` before and `hi` after.
AttrValue::Ints pad_of_dim(int d, int rank, int64_t lo, int64_t hi) {
  AttrValue::Ints pad(static_cast<size_t>(2 * (rank - d)), 0);
  pad[pad.size() - 2] = lo;
  pad[pad.size() - 1] = hi;
  return pad;
}

// `g`, the gradient of the elements start, start+step, ... of dim `d` of a tensor of `sizes`,
// placed into zeros of `sizes`: a zero pad for step 1, an index_add of the positions otherwise.
Value* embed_along(GraphBuilder& b, Value* g, const std::vector<int64_t>& sizes, int d, int64_t start, int64_t step) {
  const int rank = static_cast<int>(sizes.size());
  const int64_t n = g->type().shape[d].value();
  if (step == 1) {
    const int64_t hi = sizes[static_cast<size_t>(d)] - start - n;
    return b.apply1(OpKind::ConstantPadNd, {g}, {{"pad", pad_of_dim(d, rank, start, hi)}});
  }
  Value* positions = b.apply1(OpKind::Arange, {},
                              {{"start", start}, {"end", start + n * step}, {"step", step}, {"dtype", DType::I64}});
  Value* zeros = b.apply1(OpKind::Zeros, {}, {{"size", sizes}, {"dtype", g->type().dtype}});
  return b.apply1(OpKind::IndexAdd, {zeros, positions, g}, {{"dim", static_cast<int64_t>(d)}});
}

// split/chunk: the results' gradients (zeros for those without one) joined along the dim.
std::vector<Value*> join_pieces(const GradCall& c) {
  if (!differentiable(c, 0)) return {nullptr};
  const int rank = c.operand(0)->type().shape.rank();
  std::vector<Operand> pieces;
  for (int r = 0; r < c.node.num_results(); ++r)
    pieces.push_back(c.grad(r) != nullptr ? c.grad(r) : c.b.zeros_like(c.result(r)));
  Value* g = c.b.apply1(OpKind::Cat, pieces, {{"dim", static_cast<int64_t>(dim_attr(c, "dim", rank))}});
  return {to_operand(c, 0, g)};
}

}  // namespace

std::vector<Value*> grad_rule_slice(const GradCall& c) {
  if (!differentiable(c, 0)) return {nullptr};
  const std::vector<int64_t> sizes = static_sizes(c);
  const int d = dim_attr(c, "dim", static_cast<int>(sizes.size()));
  const int64_t step = c.attr_int("step");
  const SliceBounds s =
      slice_bounds(sizes[static_cast<size_t>(d)], c.attr_opt_int("start"), c.attr_opt_int("end"), step);
  return {to_operand(c, 0, embed_along(c.b, c.grad(), sizes, d, s.start, step))};
}

std::vector<Value*> grad_rule_select(const GradCall& c) {
  if (!differentiable(c, 0)) return {nullptr};
  const std::vector<int64_t> sizes = static_sizes(c);
  const int d = dim_attr(c, "dim", static_cast<int>(sizes.size()));
  int64_t index = c.attr_int("index");
  if (index < 0) index += sizes[static_cast<size_t>(d)];
  Value* g = c.b.apply1(OpKind::Unsqueeze, {c.grad()}, {{"dim", static_cast<int64_t>(d)}});
  return {to_operand(c, 0, embed_along(c.b, g, sizes, d, index, 1))};
}

std::vector<Value*> grad_rule_narrow(const GradCall& c) {
  if (!differentiable(c, 0)) return {nullptr};
  const std::vector<int64_t> sizes = static_sizes(c);
  const int d = dim_attr(c, "dim", static_cast<int>(sizes.size()));
  int64_t start = c.attr_int("start");
  if (start < 0) start += sizes[static_cast<size_t>(d)];
  return {to_operand(c, 0, embed_along(c.b, c.grad(), sizes, d, start, 1))};
}

std::vector<Value*> grad_rule_split(const GradCall& c) { return join_pieces(c); }
std::vector<Value*> grad_rule_chunk(const GradCall& c) { return join_pieces(c); }

// Each operand's gradient is its stretch of the result's gradient along the dim (legacy empty
// 1-D operands, which cat skips, get none).
std::vector<Value*> grad_rule_cat(const GradCall& c) {
  const int rank = c.result()->type().shape.rank();
  const int64_t d = dim_attr(c, "dim", rank);
  std::vector<Value*> out;
  int64_t offset = 0;
  for (int i = 0; i < c.node.num_operands(); ++i) {
    const Shape& shape = c.operand(i)->type().shape;
    if (shape.rank() != rank) {
      out.push_back(nullptr);
      continue;
    }
    const int64_t n = shape[static_cast<int>(d)].value();
    Value* g = differentiable(c, i)
                   ? c.b.apply1(OpKind::Narrow, {c.grad()}, {{"dim", d}, {"start", offset}, {"length", n}})
                   : nullptr;
    out.push_back(to_operand(c, i, g));
    offset += n;
  }
  return out;
}

std::vector<Value*> grad_rule_stack(const GradCall& c) {
  const int64_t d = dim_attr(c, "dim", c.result()->type().shape.rank());
  std::vector<Value*> out;
  for (int i = 0; i < c.node.num_operands(); ++i) {
    Value* g = differentiable(c, i)
                   ? c.b.apply1(OpKind::Select, {c.grad()}, {{"dim", d}, {"index", static_cast<int64_t>(i)}})
                   : nullptr;
    out.push_back(to_operand(c, i, g));
  }
  return out;
}

// Padding by the negated amounts crops what was padded and zero-fills what was cropped.
std::vector<Value*> grad_rule_constant_pad_nd(const GradCall& c) {
  if (!differentiable(c, 0)) return {nullptr};
  AttrValue::Ints pad = c.attr_ints("pad");
  for (int64_t& p : pad) p = -p;
  return {to_operand(c, 0, c.b.apply1(OpKind::ConstantPadNd, {c.grad()}, {{"pad", pad}}))};
}

std::vector<Value*> grad_rule_flip(const GradCall& c) {
  if (!differentiable(c, 0)) return {nullptr};
  return {to_operand(c, 0, c.b.apply1(OpKind::Flip, {c.grad()}, {{"dims", c.attr_ints("dims")}}))};
}

std::vector<Value*> grad_rule_roll(const GradCall& c) {
  if (!differentiable(c, 0)) return {nullptr};
  AttrValue::Ints shifts = c.attr_ints("shifts");
  for (int64_t& s : shifts) s = -s;
  return {to_operand(c, 0, c.b.apply1(OpKind::Roll, {c.grad()}, {{"shifts", shifts}, {"dims", c.attr_ints("dims")}}))};
}

// The result is the input tiled: view its gradient as [lead repeats..., r0, s0, r1, s1, ...]
// and sum over the repeat dims.
std::vector<Value*> grad_rule_repeat(const GradCall& c) {
  if (!differentiable(c, 0)) return {nullptr};
  const std::vector<int64_t> sizes = static_sizes(c);
  const AttrValue::Ints& reps = c.attr_ints("repeats");
  const size_t lead = reps.size() - sizes.size();
  AttrValue::Ints tiled, summed;
  for (size_t i = 0; i < reps.size(); ++i) {
    summed.push_back(static_cast<int64_t>(tiled.size()));
    tiled.push_back(reps[i]);
    if (i >= lead) tiled.push_back(sizes[i - lead]);
  }
  Value* g = c.b.apply1(OpKind::Reshape, {c.grad()}, {{"shape", tiled}});
  // sum with an empty dim list would reduce every dim: skip it when nothing is repeated.
  if (!summed.empty()) g = c.b.apply1(OpKind::Sum, {g}, {{"dim", summed}});
  g = c.b.apply1(OpKind::Reshape, {g}, {{"shape", sizes}});
  return {to_operand(c, 0, g)};
}

std::vector<Value*> grad_rule_tril(const GradCall& c) {
  if (!differentiable(c, 0)) return {nullptr};
  return {to_operand(c, 0, c.b.apply1(OpKind::Tril, {c.grad()}, {{"diagonal", c.attr_int("diagonal")}}))};
}

std::vector<Value*> grad_rule_triu(const GradCall& c) {
  if (!differentiable(c, 0)) return {nullptr};
  return {to_operand(c, 0, c.b.apply1(OpKind::Triu, {c.grad()}, {{"diagonal", c.attr_int("diagonal")}}))};
}

}  // namespace kiln
