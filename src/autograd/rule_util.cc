#include "autograd/rule_util.h"

#include <algorithm>
#include <map>
#include <set>

#include "ops/reduce_dims.h"
#include "support/check.h"

namespace kiln::grad {

Value* add(GraphBuilder& b, Operand x, Operand y) { return b.apply1(OpKind::Add, {x, y}); }
Value* sub(GraphBuilder& b, Operand x, Operand y) { return b.apply1(OpKind::Sub, {x, y}); }
Value* mul(GraphBuilder& b, Operand x, Operand y) { return b.apply1(OpKind::Mul, {x, y}); }
Value* div(GraphBuilder& b, Operand x, Operand y) { return b.apply1(OpKind::Div, {x, y}); }
Value* neg(GraphBuilder& b, Value* x) { return b.apply1(OpKind::Neg, {x}); }
Value* where(GraphBuilder& b, Value* cond, Operand x, Operand y) { return b.apply1(OpKind::Where, {cond, x, y}); }
Value* unary(GraphBuilder& b, OpKind op, Value* x) { return b.apply1(op, {x}); }

Operand one_minus(GraphBuilder& b, Operand x) {
  if (!x.is_value()) return Scalar(1.0 - x.literal.to_double());
  return add(b, neg(b, x.value), Scalar(1.0));
}

Value* zero_where(GraphBuilder& b, Value* cond, Value* g) { return where(b, cond, Scalar(0.0), g); }

Value* div_or_zero(GraphBuilder& b, Value* g, Value* d) {
  return zero_where(b, b.apply1(OpKind::Eq, {d, Scalar(0.0)}), div(b, g, d));
}

bool differentiable(const GradCall& call, int i) {
  Value* v = call.operand(i);
  return v != nullptr && is_floating(v->type().dtype);
}

Value* to_operand(const GradCall& call, int i, Value* g) {
  if (!differentiable(call, i) || g == nullptr) return nullptr;
  const TensorType& t = call.operand(i)->type();
  return call.b.cast(call.b.sum_to_shape(g, t.shape), t.dtype);
}

Value* leading_flattened(GraphBuilder& b, Value* v, int kept) {
  const int leading = v->type().shape.rank() - kept;
  KILN_CHECK(leading >= 0) << "leading_flattened: rank " << v->type().shape.rank() << " below " << kept;
  if (leading == 0) return b.apply1(OpKind::Unsqueeze, {v}, {{"dim", int64_t{0}}});
  if (leading == 1) return v;
  return b.apply1(OpKind::Flatten, {v}, {{"start_dim", int64_t{0}}, {"end_dim", int64_t{leading - 1}}});
}

std::vector<bool> reduced_dims_of(const GradCall& call) {
  auto r = reduced_dims(call, call.operand(0)->type().shape.rank());
  KILN_CHECK(r.has_value()) << "derivative of " << call.name() << ": " << r.error().message();
  return *r;
}

Value* keepdim_form(GraphBuilder& b, Value* g, const std::vector<bool>& reduced, bool keepdim) {
  if (keepdim) return g;
  Value* out = g;
  for (size_t d = 0; d < reduced.size(); ++d)
    if (reduced[d]) out = b.apply1(OpKind::Unsqueeze, {out}, {{"dim", static_cast<int64_t>(d)}});
  return out;
}

Value* expand_like(GraphBuilder& b, Value* g, Value* like) {
  const Shape& shape = like->type().shape;
  if (g->type().shape == shape) return g;
  if (shape.is_static()) return b.apply1(OpKind::Expand, {g}, {{"size", shape.sizes()}});
  // Symbolic sizes cannot be spelled as an attribute: broadcast through an add instead.
  return add(b, b.zeros_like(b.cast(like, g->type().dtype)), g);
}

Operand reduced_count(GraphBuilder& b, Value* x, const std::vector<bool>& reduced) {
  const Shape& shape = x->type().shape;
  bool is_static = true;
  int64_t n = 1;
  AttrValue::Ints dims;
  for (int d = 0; d < shape.rank(); ++d) {
    if (!reduced[static_cast<size_t>(d)]) continue;
    dims.push_back(d);
    if (shape[d].is_static())
      n *= shape[d].value();
    else
      is_static = false;
  }
  if (is_static) return Operand(Scalar(static_cast<double>(n)));
  Value* ones = b.full_like(x, Scalar(1.0));
  return b.apply1(OpKind::Sum, {ones}, {{"dim", dims}, {"keepdim", true}});
}

Value* Tape::op(OpKind k, std::vector<Operand> operands, AttrMap attrs) {
  Value* v = b_.apply1(k, std::move(operands), std::move(attrs));
  nodes_.push_back(v->producer());
  return v;
}

std::vector<Value*> Tape::backward(Value* out, Value* g, const std::vector<Value*>& wrt) {
  std::map<const Value*, Value*> grads{{out, g}};
  for (auto it = nodes_.rbegin(); it != nodes_.rend(); ++it) {
    Node* n = *it;
    auto found = grads.find(n->result(0));
    if (found == grads.end()) continue;
    const DerivativeInfo& info = derivative_info(n->op());
    if (info.kind == Differentiability::NotDifferentiable) continue;
    KILN_CHECK(info.kind == Differentiability::Rule) << "Tape: " << n->info().name() << " has no derivative rule";
    const std::vector<Value*> result_grads{found->second};
    std::vector<Value*> og = info.rule(GradCall(*n, result_grads, b_));
    for (size_t i = 0; i < og.size(); ++i) {
      Value* v = n->operand(static_cast<int>(i)).value;
      if (og[i] == nullptr || v == nullptr) continue;
      auto [slot, fresh] = grads.emplace(v, og[i]);
      if (!fresh) slot->second = grad::add(b_, slot->second, og[i]);
    }
  }
  // A value in several slots of `wrt` (rms_norm(x, x)) has one gradient, its uses' sum: the
  // first slot gets it and the others none, as the caller adds the slots' gradients up.
  std::vector<Value*> result;
  std::set<const Value*> given;
  for (Value* v : wrt) {
    auto found = v == nullptr || !given.insert(v).second ? grads.end() : grads.find(v);
    result.push_back(found == grads.end() ? nullptr : found->second);
  }
  return result;
}

std::vector<Value*> result_tangents(const GradCall& call) {
  std::vector<Value*> out;
  for (int k = 0; k < call.node.num_results(); ++k) {
    if (!is_floating(call.result(k)->type().dtype)) continue;
    out.push_back(call.grad(k) != nullptr ? call.grad(k) : call.b.zeros_like(call.result(k)));
  }
  return out;
}

int64_t pair_at(const std::vector<int64_t>& v, size_t i, int64_t otherwise) {
  return v.empty() ? otherwise : v[std::min(i, v.size() - 1)];
}

}  // namespace kiln::grad
