#include "frontend/op_builder.h"

#include "frontend/dispatch.h"
#include "support/check.h"

namespace kiln::detail {

std::vector<Tensor> OpBuilder::many() {
  return value_or_throw(dispatch(op_, std::move(operands_), std::move(attrs_), source_loc(loc_)));
}

Tensor OpBuilder::one() {
  const OpKind op = op_;
  std::vector<Tensor> out = many();
  KILN_CHECK(out.size() == 1) << op_info(op).name() << " gave " << out.size() << " results where one was expected";
  return out[0];
}

}  // namespace kiln::detail
