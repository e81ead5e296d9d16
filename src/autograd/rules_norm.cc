// Derivative rules of the normalizations (layer_norm, rms_norm, group_norm, batch_norm). Each
// rebuilds its forward from mean, sub, mul and rsqrt: the affine part (weight, bias, reshapes)
// on a Tape whose ops' rules build its backward, the normalization itself with its closed-form
// gradient (normalized_grad), as PyTorch's native backward kernels compute it.
#include <limits>

#include "autograd/derivative_rules.h"
#include "autograd/rule_util.h"
#include "support/check.h"

namespace kiln {

using namespace grad;

namespace {

// x normalized over `dims`: xhat = (x - mean) * rstd, rstd = rsqrt(var + eps), var biased;
// mean is 0 when `center` is false (rms_norm).
struct Normalized {
  Value* xhat;
  Value* rstd;
  AttrValue::Ints dims;
  bool center;
};

Value* mean_over(GraphBuilder& b, Value* x, const AttrValue::Ints& dims) {
  return b.apply1(OpKind::Mean, {x}, {{"dim", dims}, {"keepdim", true}});
}

Normalized normalize(GraphBuilder& b, Value* x, const AttrValue::Ints& dims, double eps, bool center) {
  Value* d = center ? b.apply1(OpKind::Sub, {x, mean_over(b, x, dims)}) : x;
  Value* var = mean_over(b, mul(b, d, d), dims);
  Value* rstd = b.apply1(OpKind::Rsqrt, {b.apply1(OpKind::Add, {var, Scalar(eps)})});
  return {mul(b, d, rstd), rstd, dims, center};
}

// The gradient of x given the gradient g of n.xhat, exact with eps:
//   rstd * (g - mean(g) - xhat * mean(g * xhat))   (no mean(g) when not centered).
// Every term stays in range however large the variance. Differentiating rsqrt instead takes
// rstd cubed, which underflows to 0 once the variance passes about 1e205 and lost the
// statistics' part of the gradient (fuzz-graphs --grad, seed 4506010: elu of -100 with
// input_scale -2.5, values near 1e114, before a layer_norm).
Value* normalized_grad(GraphBuilder& b, const Normalized& n, Value* g) {
  Value* along = mul(b, n.xhat, mean_over(b, mul(b, g, n.xhat), n.dims));
  Value* centered = n.center ? b.apply1(OpKind::Sub, {g, mean_over(b, g, n.dims)}) : g;
  return mul(b, b.apply1(OpKind::Sub, {centered, along}), n.rstd);
}

// A per-channel parameter [C] as [C, 1, ...] to broadcast against [N, C, *spatial].
Value* per_channel(Tape& t, Value* p, int rank) {
  if (p == nullptr) return nullptr;
  AttrValue::Ints shape{-1};
  for (int i = 2; i < rank; ++i) shape.push_back(1);
  return t.op(OpKind::Reshape, {p}, {{"shape", shape}});
}

Value* affine(Tape& t, Value* y, Value* w, Value* bias) {
  if (w != nullptr) y = t.mul(y, w);
  if (bias != nullptr) y = t.add(y, bias);
  return y;
}

// The trailing dims that normalized_shape names, as negative dims.
AttrValue::Ints trailing_dims(const GradCall& c) {
  AttrValue::Ints dims;
  const int64_t k = static_cast<int64_t>(c.attr_ints("normalized_shape").size());
  for (int64_t i = -k; i < 0; ++i) dims.push_back(i);
  return dims;
}

double default_eps(DType t) {
  switch (t) {
    case DType::F16: return 0.0009765625;
    case DType::BF16: return 0.0078125;
    case DType::F32: return std::numeric_limits<float>::epsilon();
    default: return std::numeric_limits<double>::epsilon();
  }
}

}  // namespace

// The gradients of x, w and bias of affine(n.xhat, w, bias): the affine part by its ops' rules,
// then normalized_grad.
std::vector<Value*> normalized_affine_grads(const GradCall& c, const Normalized& n, Value* w, Value* bias) {
  Tape t(c.b);
  Value* y = affine(t, n.xhat, w, bias);
  std::vector<Value*> g = t.backward(y, c.grad(), {n.xhat, w, bias});
  return {normalized_grad(c.b, n, g[0]), g[1], g[2]};
}

std::vector<Value*> grad_rule_layer_norm(const GradCall& c) {
  const Normalized n = normalize(c.b, c.operand(0), trailing_dims(c), c.attr_float("eps"), true);
  return normalized_affine_grads(c, n, c.operand(1), c.operand(2));
}

std::vector<Value*> grad_rule_rms_norm(const GradCall& c) {
  Value* x = c.operand(0);
  const double eps = c.attr_opt_float("eps").value_or(default_eps(x->type().dtype));
  std::vector<Value*> g =
      normalized_affine_grads(c, normalize(c.b, x, trailing_dims(c), eps, false), c.operand(1), nullptr);
  return {g[0], g[1]};
}

// x [N, C, *] viewed as [N, G, C/G * spatial], normalized over the last dim.
std::vector<Value*> grad_rule_group_norm(const GradCall& c) {
  GraphBuilder& b = c.b;
  Tape t(b);
  Value *x = c.operand(0), *w = c.operand(1), *bias = c.operand(2);
  const Shape& shape = x->type().shape;
  KILN_CHECK(shape.is_static()) << "derivative of group_norm: symbolic shape " << shape.to_string();
  // The group's size written out: -1 beside a batch of 0 would be ambiguous.
  const int64_t groups = c.attr_int("num_groups");
  int64_t group_size = 1;
  for (int d = 1; d < shape.rank(); ++d) group_size *= shape[d].value();
  const AttrValue::Ints grouped{shape[0].value(), groups, group_size / groups};
  const Normalized n =
      normalize(b, b.apply1(OpKind::Reshape, {x}, {{"shape", grouped}}), {-1}, c.attr_float("eps"), true);
  Value* y = t.op(OpKind::Reshape, {n.xhat}, {{"shape", shape.sizes()}});
  y = affine(t, y, per_channel(t, w, shape.rank()), per_channel(t, bias, shape.rank()));
  std::vector<Value*> g = t.backward(y, c.grad(), {n.xhat, w, bias});
  Value* dx = b.apply1(OpKind::Reshape, {normalized_grad(b, n, g[0])}, {{"shape", shape.sizes()}});
  return {dx, g[1], g[2]};
}

// Training: batch statistics over every dim but 1, differentiated through. Evaluation: the
// running statistics are constants and get no gradient (as buffers in PyTorch).
std::vector<Value*> grad_rule_batch_norm(const GradCall& c) {
  Tape t(c.b);
  Value *x = c.operand(0), *w = c.operand(1), *bias = c.operand(2);
  const int rank = x->type().shape.rank();
  const double eps = c.attr_float("eps");
  if (c.attr_bool("training")) {
    AttrValue::Ints dims{0};
    for (int64_t d = 2; d < rank; ++d) dims.push_back(d);
    const Normalized n = normalize(c.b, x, dims, eps, true);
    Value* y = affine(t, n.xhat, per_channel(t, w, rank), per_channel(t, bias, rank));
    std::vector<Value*> g = t.backward(y, c.grad(), {n.xhat, w, bias});
    return {normalized_grad(c.b, n, g[0]), g[1], g[2], nullptr, nullptr};
  }
  Value* mean = per_channel(t, c.operand(3), rank);
  Value* rstd = t.op(OpKind::Rsqrt, {t.add(per_channel(t, c.operand(4), rank), Scalar(eps))});
  Value* y = t.mul(t.sub(x, mean), rstd);
  y = affine(t, y, per_channel(t, w, rank), per_channel(t, bias, rank));
  std::vector<Value*> g = t.backward(y, c.grad(), {x, w, bias});
  return {g[0], g[1], g[2], nullptr, nullptr};
}

}  // namespace kiln
