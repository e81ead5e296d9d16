#include "ops/commutative.h"

namespace kiln {

bool is_commutative(OpKind op, const AttrMap& attrs) {
  switch (op) {
    case OpKind::Add: {
      const AttrValue* alpha = attrs.find("alpha");
      return alpha == nullptr || ((alpha->is_int() || alpha->is_float()) && alpha->as_float() == 1.0);
    }
    case OpKind::Mul:
    case OpKind::Maximum:
    case OpKind::Minimum:
    case OpKind::Eq:
    case OpKind::Ne:
    case OpKind::LogicalAnd:
    case OpKind::LogicalOr:
    case OpKind::LogicalXor:
    case OpKind::BitwiseAnd:
    case OpKind::BitwiseOr:
    case OpKind::BitwiseXor: return true;
    default: return false;
  }
}

}  // namespace kiln
