#include "ops/functional_form.h"

namespace kiln {

std::optional<OpKind> functional_form(OpKind op) {
  switch (op) {
    case OpKind::AddInplace: return OpKind::Add;
    case OpKind::SubInplace: return OpKind::Sub;
    case OpKind::MulInplace: return OpKind::Mul;
    case OpKind::DivInplace: return OpKind::Div;
    case OpKind::ReluInplace: return OpKind::Relu;
    case OpKind::ClampInplace: return OpKind::Clamp;
    case OpKind::MaskedFillInplace: return OpKind::MaskedFill;
    case OpKind::IndexPutInplace: return OpKind::IndexPut;
    default: return std::nullopt;
  }
}

}  // namespace kiln
