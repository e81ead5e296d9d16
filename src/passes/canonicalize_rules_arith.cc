// canonicalize's arithmetic rules: operand order, subtraction and division by literals,
// negation and doubling (see canonicalize.h for the forms chosen).
#include <cmath>

#include "ops/op_call.h"
#include "passes/canonicalize_rules.h"
#include "passes/uniform_value.h"

namespace kiln::canonicalize_detail {

namespace {

double alpha_of(const Node& n) { return OpCallBase(n.op(), n.attrs()).attr_scalar("alpha").to_double(); }

bool is_literal(const Operand& o) { return !o.is_value() && !o.literal.is_none(); }

Value* value_of(const Node& n, int i) { return n.operand(i).is_value() ? n.operand(i).value : nullptr; }

// commutative(c, x) -> commutative(x, c) for a uniform constant c and a non-constant x.
Match constant_right(Node& n, GraphBuilder& b) {
  if (n.op() == OpKind::Add && alpha_of(n) != 1.0) return std::nullopt;
  if (n.num_operands() != 2 || !n.operand(0).is_value() || !n.operand(1).is_value()) return std::nullopt;
  if (!uniform_value(n.operand(0).value) || uniform_value(n.operand(1).value)) return std::nullopt;
  return build_same_type(n, b, n.op(), {n.operand(1), n.operand(0)}, n.attrs());
}

// The literal -c, wrapping for integers; nullopt for bools.
std::optional<Scalar> negated(const Scalar& c) {
  if (c.is_float()) return Scalar(-c.to_double());
  if (c.is_int()) return Scalar(static_cast<int64_t>(0ULL - static_cast<uint64_t>(c.to_int())));
  return std::nullopt;
}

// sub(x, c) -> add(x, -c) for a literal c.
Match sub_literal_to_add(Node& n, GraphBuilder& b) {
  if (alpha_of(n) != 1.0 || !is_literal(n.operand(1)) || !n.operand(0).is_value()) return std::nullopt;
  std::optional<Scalar> c = negated(n.operand(1).literal);
  if (!c) return std::nullopt;
  return build_same_type(n, b, OpKind::Add, {n.operand(0), *c});
}

// mul(x, -1) -> neg(x).
Match mul_neg_one_to_neg(Node& n, GraphBuilder& b) {
  if (!is_literal(n.operand(1)) || n.operand(1).literal.to_double() != -1.0 || !n.operand(0).is_value())
    return std::nullopt;
  return build_same_type(n, b, OpKind::Neg, {n.operand(0)});
}

// div(x, 2^k) -> mul(x, 2^-k) for floating x: both are x * 2^-k rounded once.
Match div_pow2_to_mul(Node& n, GraphBuilder& b) {
  if (OpCallBase(n.op(), n.attrs()).attr_opt_str("rounding_mode") || !is_literal(n.operand(1))) return std::nullopt;
  if (!n.operand(0).is_value() || !is_floating(n.operand(0).value->type().dtype)) return std::nullopt;
  const double c = n.operand(1).literal.to_double();
  int exponent = 0;
  if (!std::isfinite(c) || c == 0.0 || std::fabs(std::frexp(c, &exponent)) != 0.5 || std::abs(exponent - 1) > 14)
    return std::nullopt;
  return build_same_type(n, b, OpKind::Mul, {n.operand(0), Scalar(1.0 / c)});
}

// add(x, x) -> mul(x, 2).
Match add_self_to_mul(Node& n, GraphBuilder& b) {
  Value* x = value_of(n, 0);
  if (alpha_of(n) != 1.0 || !x || value_of(n, 1) != x || x->type().dtype == DType::Bool) return std::nullopt;
  const Scalar two = is_floating(x->type().dtype) ? Scalar(2.0) : Scalar(int64_t{2});
  return build_same_type(n, b, OpKind::Mul, {x, two});
}

// add(x, neg(y)) -> sub(x, y); sub(x, neg(y)) -> add(x, y).
Match fold_neg_operand(Node& n, GraphBuilder& b) {
  Node* neg = operand_producer(n, 1, OpKind::Neg);
  if (alpha_of(n) != 1.0 || !neg || !n.operand(0).is_value() || !neg->operand(0).is_value()) return std::nullopt;
  const OpKind op = n.op() == OpKind::Add ? OpKind::Sub : OpKind::Add;
  return build_same_type(n, b, op, {n.operand(0), neg->operand(0)});
}

// f(f(x)) -> x for an involution f.
RewriteRule involution(std::string name, OpKind op, const Mutating& mutating) {
  return {std::move(name), {op}, [op, &mutating](Node& n, GraphBuilder&) -> Match {
            Node* inner = operand_producer(n, 0, op);
            if (!inner) return std::nullopt;
            return forward(n, value_of(*inner, 0), mutating);
          }};
}

}  // namespace

std::vector<RewriteRule> canonicalize_arith_rules(const Mutating& mutating) {
  using K = OpKind;
  return {
      {"constant_right",
       {K::Add, K::Mul, K::Maximum, K::Minimum, K::Eq, K::Ne, K::LogicalAnd, K::LogicalOr, K::LogicalXor, K::BitwiseAnd,
        K::BitwiseOr, K::BitwiseXor},
       constant_right},
      {"sub_literal_to_add", {K::Sub}, sub_literal_to_add},
      {"mul_neg_one_to_neg", {K::Mul}, mul_neg_one_to_neg},
      {"div_pow2_to_mul", {K::Div}, div_pow2_to_mul},
      {"add_self_to_mul", {K::Add}, add_self_to_mul},
      {"fold_neg_operand", {K::Add, K::Sub}, fold_neg_operand},
      involution("double_neg", K::Neg, mutating),
      involution("double_logical_not", K::LogicalNot, mutating),
      involution("double_bitwise_not", K::BitwiseNot, mutating),
  };
}

}  // namespace kiln::canonicalize_detail
