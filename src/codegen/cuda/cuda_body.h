// A loop kernel's body ops as CUDA statements, one op at a time, reading like the loop IR:
// `const float v3 = expf(v2);`, `b2_out0[i0] = kiln_f32_to_bf16(v3);`. Values are `v<N>` after
// their body index, buffers `b<N>_<name>`; loop variables are the kernel's i0, i1, ... An index
// check sets the kernel's `kiln_bad` and reads element 0 instead (cuda_kernel.h).
#pragma once

#include <string>

#include "lower/loop_ir.h"

namespace kiln::cuda {

std::string buffer_pointer(const LoopProgram& p, int b);  // "b0_x"
std::string value_name(int i);                            // "v3"

// Load `op`'s value read from `element` (its buffer's storage type), as the load's dtype:
// `kiln_bf16_to_f32(h0[j].e[l])`. No mask.
std::string loaded_value(const LoopProgram& p, const BodyOp& op, const std::string& element);

// The statements of body op `i` of `k` (not a Reduce op), one a line, without indentation. A
// load reads, and a store writes, `element` where given (a lane of a vector), else its
// buffer's element at its index.
std::string body_op_text(const LoopProgram& p, const LoopKernel& k, int i, const std::string& element = "");

}  // namespace kiln::cuda
