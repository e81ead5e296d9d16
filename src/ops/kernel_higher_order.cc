// Higher-order ops (cond, while_loop, scan, map) run their subgraphs, which only the
// interpreter can do; reaching this kernel means a caller bypassed it.
#include "ops/kernels.h"

namespace kiln {

Expected<std::vector<Tensor>> kernel_higher_order(const KernelCall& call) {
  return make_error(call.name(), " has subgraphs; run it through the interpreter (interp/interpreter.h)");
}

}  // namespace kiln
