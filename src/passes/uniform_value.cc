// Recognising full/zeros/ones values (see uniform_value.h).
#include "passes/uniform_value.h"

#include "ops/op_call.h"

namespace kiln {

std::optional<Scalar> uniform_value(const Value* v) {
  const Node* n = v->producer();
  if (!n) return std::nullopt;
  switch (n->op()) {
    case OpKind::Zeros:
    case OpKind::ZerosLike: return Scalar(int64_t{0});
    case OpKind::Ones:
    case OpKind::OnesLike: return Scalar(int64_t{1});
    case OpKind::Full:
    case OpKind::FullLike: return OpCallBase(n->op(), n->attrs()).attr_scalar("fill_value");
    default: return std::nullopt;
  }
}

std::optional<Scalar> constant_operand(const Operand& operand) {
  if (!operand.is_value()) return operand.literal.is_none() ? std::nullopt : std::optional<Scalar>(operand.literal);
  return uniform_value(operand.value);
}

bool operand_equals(const Operand& operand, double number) {
  std::optional<Scalar> c = constant_operand(operand);
  return c && c->to_double() == number;
}

}  // namespace kiln
