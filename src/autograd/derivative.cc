#include "autograd/derivative.h"

#include "autograd/derivative_rules.h"

namespace kiln {

namespace {

constexpr DerivativeInfo kTable[] = {
#define KILN_GRAD(E, rule) {Differentiability::Rule, &rule},
#define KILN_NONDIFF(E) {Differentiability::NotDifferentiable, nullptr},
#define KILN_GRAD_PENDING(E) {Differentiability::Pending, nullptr},
#define KILN_GRAD_UNSUPPORTED(E, why) {Differentiability::Unsupported, nullptr, why},
#include "autograd/derivatives.def"
#undef KILN_GRAD
#undef KILN_NONDIFF
#undef KILN_GRAD_PENDING
#undef KILN_GRAD_UNSUPPORTED
};
static_assert(sizeof(kTable) / sizeof(kTable[0]) == kNumOps, "derivatives.def must list every op of ops.def");

// The rows must also be in ops.def's order: each row's enumerator is checked against its index.
constexpr OpKind kOrder[] = {
#define KILN_GRAD(E, rule) OpKind::E,
#define KILN_NONDIFF(E) OpKind::E,
#define KILN_GRAD_PENDING(E) OpKind::E,
#define KILN_GRAD_UNSUPPORTED(E, why) OpKind::E,
#include "autograd/derivatives.def"
#undef KILN_GRAD
#undef KILN_NONDIFF
#undef KILN_GRAD_PENDING
#undef KILN_GRAD_UNSUPPORTED
};

constexpr bool in_order() {
  for (int i = 0; i < kNumOps; ++i)
    if (static_cast<int>(kOrder[i]) != i) return false;
  return true;
}
static_assert(in_order(), "derivatives.def rows must follow ops.def's order");

}  // namespace

const DerivativeInfo& derivative_info(OpKind op) { return kTable[static_cast<size_t>(op)]; }

}  // namespace kiln
