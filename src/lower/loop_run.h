// What every runner of a loop program shares (the loop-IR evaluator and the compiled CPU
// runtime), so that both check inputs and run extern kernels alike: the input check, and an
// extern kernel as its op's reference kernel (run_op) on views of the program's buffers.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "core/tensor.h"
#include "lower/loop_ir.h"
#include "support/diagnostic.h"

namespace kiln {

// A view of the flat buffer tensor `flat` with the given layout; `offset` counts from the
// buffer's first element, wherever `flat` starts in its Storage (an arena, an input's view).
Tensor view_of(const Tensor& flat, std::vector<int64_t> sizes, std::vector<int64_t> strides, int64_t offset);

// The inputs' count, dtypes and sizes against the program's input buffers (any strides).
Status check_loop_inputs(const LoopProgram& p, std::span<const Tensor> inputs);
// For runners that read inputs on the host (`reader`, "the CPU backend"): an input on a device
// is an error naming it.
Status check_loop_inputs_on_host(const LoopProgram& p, std::span<const Tensor> inputs, std::string_view reader);

// `storage[b]` holds buffer b of `p` as a flat tensor of storage_size() elements of its
// dtype (any offset into its Storage). Operands are strided views of these, as the kernel
// names them; a result whose type differs from its buffer's is an error naming both.
Status run_extern_kernel(const LoopProgram& p, const LoopKernel& k, std::span<const Tensor> storage);

}  // namespace kiln
