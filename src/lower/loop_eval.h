// The loop-IR evaluator: runs a LoopProgram on concrete input tensors by walking its loops,
// computing in double (floating dtypes) or int64 (others) and storing with the buffer dtype,
// as the reference kernels do. Extern kernels run their op's reference kernel (run_op). It is
// the oracle that checks lowering against the interpreter before code generation exists.
// Bad programs (an index outside its buffer, inputs of the wrong type) give Diagnostics
// naming the kernel.
#pragma once

#include <span>
#include <vector>

#include "core/tensor.h"
#include "lower/loop_ir.h"
#include "support/diagnostic.h"

namespace kiln {

// Inputs must match the program's input buffers in dtype and sizes. Returns one contiguous
// tensor per output buffer; inputs the program writes are updated in place (loop_ir.h).
Expected<std::vector<Tensor>> eval_loops(const LoopProgram& p, std::span<const Tensor> inputs);

// The error of the first `indirect` index check of kernel `k` that fails, in loop order,
// evaluated over `storage` (one flat tensor per buffer of `p`, as run_extern_kernel takes
// them) without storing anything: the Diagnostic eval_loops gives for it. The compiled runtime
// calls it when a kernel reports a failed check, so that both name the same index. When no
// check fails (the kernel's index operands changed since), an error saying so.
Status eval_kernel_checks(const LoopProgram& p, const LoopKernel& k, std::span<const Tensor> storage);

}  // namespace kiln
