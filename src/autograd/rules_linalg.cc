// Derivative rules of the matrix products: for C = A B, dA = dC B^T and dB = A^T dC, with
// 1-D operands promoted to matrices and broadcast batch dims summed away (to_operand).
#include <utility>

#include "autograd/derivative_rules.h"
#include "autograd/rule_util.h"

namespace kiln {

using namespace grad;

namespace {

Value* mT(GraphBuilder& b, Value* v) {
  return b.apply1(OpKind::Transpose, {v}, {{"dim0", int64_t{-1}}, {"dim1", int64_t{-2}}});
}

Value* unsqueeze(GraphBuilder& b, Value* v, int64_t dim) { return b.apply1(OpKind::Unsqueeze, {v}, {{"dim", dim}}); }

// Gradients of P = A B (product op mm or bmm) for operands lhs and rhs of the call, given
// dP: dA = dP B^T, dB = A^T dP (null where the operand takes no gradient).
std::pair<Value*, Value*> product_grads(const GradCall& c, OpKind product, Value* dp, int lhs, int rhs) {
  GraphBuilder& b = c.b;
  Value* ga = differentiable(c, lhs) ? b.apply1(product, {dp, mT(b, c.operand(rhs))}) : nullptr;
  Value* gb = differentiable(c, rhs) ? b.apply1(product, {mT(b, c.operand(lhs)), dp}) : nullptr;
  return {ga, gb};
}

// beta self + alpha (A B), for addmm and baddbmm.
std::vector<Value*> scaled_product_plus_self(const GradCall& c, OpKind product) {
  GraphBuilder& b = c.b;
  Value* g = c.grad();
  const Scalar beta = c.attr_scalar("beta"), alpha = c.attr_scalar("alpha");
  Value* gself = differentiable(c, 0) ? mul(b, g, beta) : nullptr;
  Value* dp = alpha.to_double() == 1.0 ? g : mul(b, g, alpha);
  auto [g1, g2] = product_grads(c, product, dp, 1, 2);
  return {to_operand(c, 0, gself), to_operand(c, 1, g1), to_operand(c, 2, g2)};
}

Value* squeeze(GraphBuilder& b, Value* v, int64_t dim) {
  return b.apply1(OpKind::Squeeze, {v}, {{"dim", AttrValue::Ints{dim}}});
}

}  // namespace

std::vector<Value*> grad_rule_mm(const GradCall& c) {
  auto [ga, gb] = product_grads(c, OpKind::Mm, c.grad(), 0, 1);
  return {to_operand(c, 0, ga), to_operand(c, 1, gb)};
}

std::vector<Value*> grad_rule_bmm(const GradCall& c) {
  auto [ga, gb] = product_grads(c, OpKind::Bmm, c.grad(), 0, 1);
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

std::vector<Value*> grad_rule_addmm(const GradCall& c) { return scaled_product_plus_self(c, OpKind::Mm); }

std::vector<Value*> grad_rule_baddbmm(const GradCall& c) { return scaled_product_plus_self(c, OpKind::Bmm); }

// input W^T + bias: d input = g W; d W = g^T input over all leading dims; d bias = g summed.
std::vector<Value*> grad_rule_linear(const GradCall& c) {
  GraphBuilder& b = c.b;
  Value *x = c.operand(0), *w = c.operand(1), *g = c.grad();
  if (w->type().shape.rank() == 1) {
    // y[...] = x[..., :] . w: dx = g[..., None] * w, dw = sum over rows of g * x.
    Value* gx = differentiable(c, 0) ? mul(b, b.apply1(OpKind::Unsqueeze, {g}, {{"dim", int64_t{-1}}}), w) : nullptr;
    Value* gw = nullptr;
    if (differentiable(c, 1)) {
      Value* g1 = b.apply1(OpKind::Reshape, {g}, {{"shape", AttrValue::Ints{-1}}});
      Value* x2 = leading_flattened(b, x, 1);
      gw = b.apply1(OpKind::Matmul, {g1, x2});
    }
    return {to_operand(c, 0, gx), to_operand(c, 1, gw), to_operand(c, 2, g)};
  }
  Value* gx = differentiable(c, 0) ? b.apply1(OpKind::Matmul, {g, w}) : nullptr;
  Value* gw = nullptr;
  if (differentiable(c, 1)) {
    Value* g2 = leading_flattened(b, g, 1);
    Value* x2 = leading_flattened(b, x, 1);
    gw = b.apply1(OpKind::Mm, {mT(b, g2), x2});
  }
  return {to_operand(c, 0, gx), to_operand(c, 1, gw), to_operand(c, 2, g)};
}

}  // namespace kiln
