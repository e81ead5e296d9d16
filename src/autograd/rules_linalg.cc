// Derivative rules of the matrix products: for C = A B, dA = dC B^T and dB = A^T dC, with
// 1-D operands promoted to matrices and broadcast batch dims summed away (to_operand).
#include "autograd/derivative_rules.h"
#include "autograd/rule_util.h"

namespace kiln {

using namespace grad;

namespace {

Value* mT(GraphBuilder& b, Value* v) {
  return b.apply1(OpKind::Transpose, {v}, {{"dim0", int64_t{-1}}, {"dim1", int64_t{-2}}});
}

Value* unsqueeze(GraphBuilder& b, Value* v, int64_t dim) { return b.apply1(OpKind::Unsqueeze, {v}, {{"dim", dim}}); }

Value* squeeze(GraphBuilder& b, Value* v, int64_t dim) {
  return b.apply1(OpKind::Squeeze, {v}, {{"dim", AttrValue::Ints{dim}}});
}

}  // namespace

std::vector<Value*> grad_rule_mm(const GradCall& c) {
  GraphBuilder& b = c.b;
  Value* g = c.grad();
  Value* ga = differentiable(c, 0) ? b.apply1(OpKind::Mm, {g, mT(b, c.operand(1))}) : nullptr;
  Value* gb = differentiable(c, 1) ? b.apply1(OpKind::Mm, {mT(b, c.operand(0)), g}) : nullptr;
  return {to_operand(c, 0, ga), to_operand(c, 1, gb)};
}

std::vector<Value*> grad_rule_bmm(const GradCall& c) {
  GraphBuilder& b = c.b;
  Value* g = c.grad();
  Value* ga = differentiable(c, 0) ? b.apply1(OpKind::Bmm, {g, mT(b, c.operand(1))}) : nullptr;
  Value* gb = differentiable(c, 1) ? b.apply1(OpKind::Bmm, {mT(b, c.operand(0)), g}) : nullptr;
  return {to_operand(c, 0, ga), to_operand(c, 1, gb)};
}

// A 1-D left operand is a row [1,k] and a 1-D right operand a column [k,1]; the gradient gets
// those dims back, the products run batched, and the promoted dims are squeezed at the end.
std::vector<Value*> grad_rule_matmul(const GradCall& c) {
  GraphBuilder& b = c.b;
  Value *x = c.operand(0), *y = c.operand(1), *g = c.grad();
  const bool x_vec = x->type().shape.rank() == 1, y_vec = y->type().shape.rank() == 1;
  if (x_vec && y_vec) {  // dot product
    Value* gx = differentiable(c, 0) ? mul(b, g, y) : nullptr;
    Value* gy = differentiable(c, 1) ? mul(b, g, x) : nullptr;
    return {to_operand(c, 0, gx), to_operand(c, 1, gy)};
  }
  Value* x2 = x_vec ? unsqueeze(b, x, 0) : x;
  Value* y2 = y_vec ? unsqueeze(b, y, 1) : y;
  Value* g2 = x_vec ? unsqueeze(b, g, -2) : (y_vec ? unsqueeze(b, g, -1) : g);
  Value* gx = nullptr;
  if (differentiable(c, 0)) {
    gx = b.sum_to_shape(b.apply1(OpKind::Matmul, {g2, mT(b, y2)}), x2->type().shape);
    if (x_vec) gx = squeeze(b, gx, 0);
  }
  Value* gy = nullptr;
  if (differentiable(c, 1)) {
    gy = b.sum_to_shape(b.apply1(OpKind::Matmul, {mT(b, x2), g2}), y2->type().shape);
    if (y_vec) gy = squeeze(b, gy, -1);
  }
  return {to_operand(c, 0, gx), to_operand(c, 1, gy)};
}

// beta self + alpha (mat1 mat2).
std::vector<Value*> grad_rule_addmm(const GradCall& c) {
  GraphBuilder& b = c.b;
  Value* g = c.grad();
  const Scalar beta = c.attr_scalar("beta"), alpha = c.attr_scalar("alpha");
  Value* gself = differentiable(c, 0) ? mul(b, g, beta) : nullptr;
  Value* ga = alpha.to_double() == 1.0 ? g : mul(b, g, alpha);
  Value* g1 = differentiable(c, 1) ? b.apply1(OpKind::Mm, {ga, mT(b, c.operand(2))}) : nullptr;
  Value* g2 = differentiable(c, 2) ? b.apply1(OpKind::Mm, {mT(b, c.operand(1)), ga}) : nullptr;
  return {to_operand(c, 0, gself), to_operand(c, 1, g1), to_operand(c, 2, g2)};
}

// input W^T + bias: d input = g W; d W = g^T input over all leading dims; d bias = g summed.
std::vector<Value*> grad_rule_linear(const GradCall& c) {
  GraphBuilder& b = c.b;
  Value *x = c.operand(0), *w = c.operand(1), *g = c.grad();
  if (w->type().shape.rank() == 1) {
    // y[...] = x[..., :] . w: dx = g[..., None] * w, dw = sum over rows of g * x.
    const int64_t in = w->type().shape[0].value();
    Value* gx = differentiable(c, 0) ? mul(b, b.apply1(OpKind::Unsqueeze, {g}, {{"dim", int64_t{-1}}}), w) : nullptr;
    Value* gw = nullptr;
    if (differentiable(c, 1)) {
      Value* g1 = b.apply1(OpKind::Reshape, {g}, {{"shape", AttrValue::Ints{-1}}});
      Value* x2 = b.apply1(OpKind::Reshape, {x}, {{"shape", AttrValue::Ints{-1, in}}});
      gw = b.apply1(OpKind::Matmul, {g1, x2});
    }
    return {to_operand(c, 0, gx), to_operand(c, 1, gw), to_operand(c, 2, g)};
  }
  Value* gx = differentiable(c, 0) ? b.apply1(OpKind::Matmul, {g, w}) : nullptr;
  Value* gw = nullptr;
  if (differentiable(c, 1)) {
    const Shape& ws = w->type().shape;
    const AttrValue::Ints g_rows{-1, ws[0].value()}, x_rows{-1, ws[1].value()};
    Value* g2 = b.apply1(OpKind::Reshape, {g}, {{"shape", g_rows}});
    Value* x2 = b.apply1(OpKind::Reshape, {x}, {{"shape", x_rows}});
    gw = b.apply1(OpKind::Mm, {mT(b, g2), x2});
  }
  return {to_operand(c, 0, gx), to_operand(c, 1, gw), to_operand(c, 2, g)};
}

}  // namespace kiln
