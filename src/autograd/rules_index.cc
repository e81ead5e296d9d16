// Derivative rules of the indexing ops. What reads through an index gets its gradient written
// back through the same index (index_add, scatter_add, index_put with accumulate, so repeated
// indices sum); what an op overwrites gets no gradient from the result. Index and mask
// operands get none.
#include "autograd/derivative_rules.h"
#include "autograd/rule_util.h"
#include "support/check.h"

namespace kiln {

using namespace grad;

namespace {

// `v` zero-padded at the end of each dim up to `like`'s sizes (scatter reads only the part of
// src that the index covers).
Value* pad_to(GraphBuilder& b, Value* v, Value* like) {
  const Shape& have = v->type().shape;
  const Shape& want = like->type().shape;
  KILN_CHECK(have.is_static() && want.is_static() && have.rank() == want.rank())
      << "pad_to: shapes " << have.to_string() << " and " << want.to_string();
  AttrValue::Ints pad;
  bool any = false;
  for (int d = want.rank() - 1; d >= 0; --d) {
    pad.push_back(0);
    pad.push_back(want[d].value() - have[d].value());
    any = any || pad.back() != 0;
  }
  return any ? b.apply1(OpKind::ConstantPadNd, {v}, {{"pad", pad}}) : v;
}

// scatter/scatter_add: src's gradient is the result's gradient read back through the index.
// Index and src may differ in rank where one is 0-d and the other 1-D: the kernel reads a 0-d
// operand as [1] (as PyTorch does), so a 0-d index sends src[0] only, and a 0-d src goes to
// the one index there is, or to none.
Value* scatter_src_grad(const GradCall& c) {
  if (!differentiable(c, 2)) return nullptr;
  GraphBuilder& b = c.b;
  Value *index = c.operand(1), *src = c.operand(2);
  if (index->type().shape.rank() == 0) index = b.apply1(OpKind::Reshape, {index}, {{"shape", AttrValue::Ints{1}}});
  Value* g = b.apply1(OpKind::Gather, {c.grad(), index}, {{"dim", c.attr_int("dim")}});
  if (src->type().shape.rank() == 0) return to_operand(c, 2, b.apply1(OpKind::Sum, {g}));
  return to_operand(c, 2, pad_to(b, g, src));
}

}  // namespace

std::vector<Value*> grad_rule_index_select(const GradCall& c) {
  if (!differentiable(c, 0)) return {nullptr, nullptr};
  Value* zeros = c.b.zeros_like(c.operand(0));
  Value* g = c.b.apply1(OpKind::IndexAdd, {zeros, c.operand(1), c.grad()}, {{"dim", c.attr_int("dim")}});
  return {to_operand(c, 0, g), nullptr};
}

std::vector<Value*> grad_rule_gather(const GradCall& c) {
  if (!differentiable(c, 0)) return {nullptr, nullptr};
  Value* zeros = c.b.zeros_like(c.operand(0));
  Value* g = c.b.apply1(OpKind::ScatterAdd, {zeros, c.operand(1), c.grad()}, {{"dim", c.attr_int("dim")}});
  return {to_operand(c, 0, g), nullptr};
}

// Elements of self that src overwrites get no gradient.
std::vector<Value*> grad_rule_scatter(const GradCall& c) {
  Value* gself = differentiable(c, 0)
                     ? c.b.apply1(OpKind::Scatter, {c.grad(), c.operand(1), Scalar(0.0)}, {{"dim", c.attr_int("dim")}})
                     : nullptr;
  return {to_operand(c, 0, gself), nullptr, scatter_src_grad(c)};
}

std::vector<Value*> grad_rule_scatter_add(const GradCall& c) {
  return {to_operand(c, 0, c.grad()), nullptr, scatter_src_grad(c)};
}

// index(self, indices...): the gradient accumulated back into zeros at the indices.
std::vector<Value*> grad_rule_index(const GradCall& c) {
  std::vector<Value*> out(static_cast<size_t>(c.node.num_operands()), nullptr);
  if (!differentiable(c, 0)) return out;
  std::vector<Operand> operands = {c.b.zeros_like(c.operand(0))};
  for (int i = 1; i < c.node.num_operands(); ++i) operands.push_back(c.operand_as_written(i));
  operands.push_back(c.grad());
  out[0] = to_operand(c, 0, c.b.apply1(OpKind::IndexPut, operands, {{"accumulate", true}}));
  return out;
}

// index_put(self, indices..., values): values get the gradient read at the indices (summed
// over the dims they were broadcast along); self keeps the gradient except where it was
// overwritten (accumulate=false).
std::vector<Value*> grad_rule_index_put(const GradCall& c) {
  const int n = c.node.num_operands();
  const int values = n - 1;
  std::vector<Value*> out(static_cast<size_t>(n), nullptr);
  std::vector<Operand> indices;
  for (int i = 1; i < values; ++i) indices.push_back(c.operand_as_written(i));
  if (differentiable(c, 0)) {
    Value* g = c.grad();
    if (!c.attr_bool("accumulate")) {
      std::vector<Operand> operands = {g};
      operands.insert(operands.end(), indices.begin(), indices.end());
      operands.push_back(c.b.zeros_like(c.operand(values)));
      g = c.b.apply1(OpKind::IndexPut, operands);
    }
    out[0] = to_operand(c, 0, g);
  }
  if (differentiable(c, values)) {
    std::vector<Operand> operands = {c.grad()};
    operands.insert(operands.end(), indices.begin(), indices.end());
    out[static_cast<size_t>(values)] = to_operand(c, values, c.b.apply1(OpKind::Index, operands));
  }
  return out;
}

// Source's gradient is the result's read back through `index`. index_add takes negative
// indices (from the back) where index_select takes none, so it reads as advanced indexing,
// which takes them too: index(g, none, ..., index) at dim (a 0-d index as [1]); a 0-d self's
// one element is the gradient itself.
std::vector<Value*> grad_rule_index_add(const GradCall& c) {
  Value* gsource = nullptr;
  if (differentiable(c, 2)) {
    GraphBuilder& b = c.b;
    Value *g = c.grad(), *index = c.operand(1);
    const int rank = g->type().shape.rank();
    gsource = g;
    if (rank > 0) {
      if (index->type().shape.rank() == 0) index = b.apply1(OpKind::Reshape, {index}, {{"shape", AttrValue::Ints{1}}});
      std::vector<Operand> operands(static_cast<size_t>(*wrap_dim(c.attr_int("dim"), rank)) + 1);  // none before dim
      operands[0] = g;
      operands.push_back(index);
      gsource = b.apply1(OpKind::Index, operands);
    }
    const Scalar alpha = c.attr_scalar("alpha");
    if (alpha.to_double() != 1.0) gsource = mul(c.b, gsource, alpha);
  }
  return {to_operand(c, 0, c.grad()), nullptr, to_operand(c, 2, gsource)};
}

// Filled elements take no gradient from self; a tensor value gets the sum over them.
std::vector<Value*> grad_rule_masked_fill(const GradCall& c) {
  GraphBuilder& b = c.b;
  Value *mask = c.operand(1), *g = c.grad();
  Value* gself = differentiable(c, 0) ? where(b, mask, Scalar(0.0), g) : nullptr;
  Value* gvalue = differentiable(c, 2) ? b.apply1(OpKind::Sum, {where(b, mask, g, Scalar(0.0))}) : nullptr;
  return {to_operand(c, 0, gself), nullptr, to_operand(c, 2, gvalue)};
}

// Each looked-up row accumulates the gradient of its output rows; padding_idx (when >= 0;
// -1 means none, as ATen's embedding) gets none.
std::vector<Value*> grad_rule_embedding(const GradCall& c) {
  if (!differentiable(c, 0)) return {nullptr, nullptr};
  GraphBuilder& b = c.b;
  Value *weight = c.operand(0), *g = c.grad();
  const Shape& w = weight->type().shape;
  KILN_CHECK(w.is_static()) << "derivative of embedding: symbolic weight shape " << w.to_string();
  Value* rows = b.apply1(OpKind::Reshape, {c.operand(1)}, {{"shape", AttrValue::Ints{-1}}});
  g = leading_flattened(b, g, 1);
  const int64_t padding_idx = c.attr_int("padding_idx");
  if (padding_idx >= 0) {
    Value* is_pad = b.apply1(OpKind::Eq, {rows, Scalar(padding_idx)});
    g = where(b, b.apply1(OpKind::Unsqueeze, {is_pad}, {{"dim", int64_t{-1}}}), Scalar(0.0), g);
  }
  g = b.apply1(OpKind::IndexAdd, {b.zeros_like(weight), rows, g}, {{"dim", int64_t{0}}});
  return {to_operand(c, 0, g), nullptr};
}

}  // namespace kiln
