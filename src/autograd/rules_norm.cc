// Derivative rules of the normalizations (layer_norm, rms_norm, group_norm, batch_norm). Each
// rebuilds its forward from mean, sub, mul and rsqrt on a Tape and lets those ops' rules
// build the backward, so the statistics are differentiated like any other value.
#include <limits>

#include "autograd/derivative_rules.h"
#include "autograd/rule_util.h"
#include "support/check.h"

namespace kiln {

using namespace grad;

namespace {

// (x - mean) * rsqrt(var + eps) over `dims`, var biased; mean is 0 when `center` is false.
Value* normalize(Tape& t, Value* x, const AttrValue::Ints& dims, double eps, bool center) {
  const AttrMap over{{"dim", dims}, {"keepdim", true}};
  Value* d = center ? t.sub(x, t.op(OpKind::Mean, {x}, over)) : x;
  Value* var = t.op(OpKind::Mean, {t.mul(d, d)}, over);
  return t.mul(d, t.op(OpKind::Rsqrt, {t.add(var, Scalar(eps))}));
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
    case DType::F16:
      return 0.0009765625;
    case DType::BF16:
      return 0.0078125;
    case DType::F32:
      return std::numeric_limits<float>::epsilon();
    default:
      return std::numeric_limits<double>::epsilon();
  }
}

}  // namespace

std::vector<Value*> grad_rule_layer_norm(const GradCall& c) {
  Tape t(c.b);
  Value *x = c.operand(0), *w = c.operand(1), *bias = c.operand(2);
  Value* y = affine(t, normalize(t, x, trailing_dims(c), c.attr_float("eps"), true), w, bias);
  std::vector<Value*> g = t.backward(y, c.grad(), {x, w, bias});
  return {g[0], g[1], g[2]};
}

std::vector<Value*> grad_rule_rms_norm(const GradCall& c) {
  Tape t(c.b);
  Value *x = c.operand(0), *w = c.operand(1);
  const double eps = c.attr_opt_float("eps").value_or(default_eps(x->type().dtype));
  Value* y = affine(t, normalize(t, x, trailing_dims(c), eps, false), w, nullptr);
  std::vector<Value*> g = t.backward(y, c.grad(), {x, w});
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
  Value* xg = t.op(OpKind::Reshape, {x}, {{"shape", grouped}});
  Value* yg = normalize(t, xg, {-1}, c.attr_float("eps"), true);
  Value* y = t.op(OpKind::Reshape, {yg}, {{"shape", shape.sizes()}});
  y = affine(t, y, per_channel(t, w, shape.rank()), per_channel(t, bias, shape.rank()));
  std::vector<Value*> g = t.backward(y, c.grad(), {x, w, bias});
  return {g[0], g[1], g[2]};
}

// Training: batch statistics over every dim but 1, differentiated through. Evaluation: the
// running statistics are constants and get no gradient (as buffers in PyTorch).
std::vector<Value*> grad_rule_batch_norm(const GradCall& c) {
  Tape t(c.b);
  Value *x = c.operand(0), *w = c.operand(1), *bias = c.operand(2);
  const int rank = x->type().shape.rank();
  const double eps = c.attr_float("eps");
  Value* y = nullptr;
  if (c.attr_bool("training")) {
    AttrValue::Ints dims{0};
    for (int64_t d = 2; d < rank; ++d) dims.push_back(d);
    y = normalize(t, x, dims, eps, true);
  } else {
    Value* mean = per_channel(t, c.operand(3), rank);
    Value* rstd = t.op(OpKind::Rsqrt, {t.add(per_channel(t, c.operand(4), rank), Scalar(eps))});
    y = t.mul(t.sub(x, mean), rstd);
  }
  y = affine(t, y, per_channel(t, w, rank), per_channel(t, bias, rank));
  std::vector<Value*> g = t.backward(y, c.grad(), {x, w, bias});
  return {g[0], g[1], g[2], nullptr, nullptr};
}

}  // namespace kiln
