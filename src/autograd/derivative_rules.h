// Declarations of the derivative rules named in derivatives.def.
#pragma once

#include <vector>

#include "autograd/derivative.h"

namespace kiln {

#define KILN_GRAD(E, rule) std::vector<Value*> rule(const GradCall& call);
#define KILN_NONDIFF(E)
#define KILN_GRAD_PENDING(E)
#define KILN_GRAD_UNSUPPORTED(E, why)
#include "autograd/derivatives.def"
#undef KILN_GRAD
#undef KILN_NONDIFF
#undef KILN_GRAD_PENDING
#undef KILN_GRAD_UNSUPPORTED

}  // namespace kiln
