// One pointwise or reduction kernel as a C++ function (the text between prelude and next
// kernel of a unit): a comment naming the kernel, its kind and loops; pointers to the
// buffers it uses; its loop nest with the OpenMP pragmas of cpp_schedule.h; body values
// named v<N> after their body index and loop variables i<N> after collapse_loops.
#pragma once

#include <string>

#include "codegen/cpp/cpp_emitter.h"
#include "lower/loop_ir.h"

namespace kiln::cpp {

std::string emit_cpp_kernel(const LoopProgram& p, const LoopKernel& k, const std::string& symbol,
                            const CppEmitOptions& o);

}  // namespace kiln::cpp
