// Calling a registered user kernel (ops/user_kernel.h) from a program: eagerly it runs the
// kernel's CPU implementation in place; inside capture() it records a side-effecting
// `kernel_call` node with the kernel's written parameters (`written=`) and, when every size
// is static, its launch grid. Functionalization later clones exactly what it writes.
#pragma once

#include <string_view>
#include <vector>

#include "frontend/functional.h"

namespace kiln {

// Runs kernel `name` on `args` (tensors for its pointer parameters, numbers for its scalars,
// in parameter order). The tensors of written parameters are updated in place. Errors (an
// unregistered kernel, a wrong argument count or kind, no CPU implementation when eager)
// throw kiln::Error naming the kernel and the argument.
void call_kernel(std::string_view name, const std::vector<TensorOrScalar>& args, CallSite loc = CallSite::current());

}  // namespace kiln
