// Which ops give the same result with their two operands swapped, for matchers that must
// not depend on operand order (`mask + scores` is `scores + mask`).
#pragma once

#include "ops/attr.h"
#include "ops/op_kind.h"

namespace kiln {

// True when op(a, b, attrs) == op(b, a, attrs) for all a, b: mul, maximum, minimum, eq, ne,
// the logical and bitwise and/or/xor, and add when its alpha is 1 (add(a, b, alpha=2) is
// a + 2b). Type promotion is symmetric for all of them.
bool is_commutative(OpKind op, const AttrMap& attrs);

}  // namespace kiln
