// The C++ backend's code generator: a loop program's pointwise and reduction kernels as
// one C++17 translation unit (text only; runtime/cpu compiles it). docs/CODEGEN.md has the
// ABI, compute types and pragmas. Every non-extern kernel becomes
//   extern "C" void kiln_<program>_<kernel>(char* const* buffers);
// where buffers[b] points at element 0 of buffer b of the program (LoopProgram::buffers
// order: inputs, outputs, temporaries), laid out by the buffer's strides, f16/bf16 as
// uint16_t bits, bool as uint8_t 0/1; buffers[B] (B buffers) is the error slot, an int a
// kernel sets to 1 when an index check fails. Extern kernels are not emitted: the runtime runs
// them; nor are control kernels (cond, while: lower/loop_control.h), whose regions' kernels are
// emitted like any other and called by the runtime.
// The text is deterministic: the same program and options give the same bytes.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "lower/loop_ir.h"

namespace kiln {

struct CppEmitOptions {
  bool openmp = true;                  // `#pragma omp parallel for` / `simd` (cpp_schedule.h)
  int64_t parallel_threshold = 32768;  // points from which a kernel runs in parallel
  bool collapse = true;                // merge loops that access memory as one (collapse_loops.h)
  // A pointwise kernel that writes one contiguous float32 output of at least this many bytes
  // (far past the caches: nothing reads it back soon) stores it with non-temporal stores
  // where the compiling CPU has AVX-512, skipping the read of each output line a plain store
  // makes; 0: never.
  int64_t streaming_store_bytes = int64_t{32} << 20;

  // Stable text of every field, for cache keys: "openmp=1 parallel_threshold=32768 collapse=1".
  std::string to_string() const;
};

// The symbol of each kernel by flat index (lower/loop_control.h: program order, nested kernels
// after their control kernel; "" for extern and control kernels): kiln_<program>_<kernel>
// with every character outside [A-Za-z0-9_] replaced by '_', and "_<index>" appended to a
// kernel whose symbol an earlier kernel already has.
std::vector<std::string> cpp_kernel_symbols(const LoopProgram& p);

// One unit with every non-extern kernel of `p`. Requires a well-formed program (parse_loops
// or lower_graph made it); index bounds are not checked here (lower/loop_bounds.h).
std::string emit_cpp(const LoopProgram& p, const CppEmitOptions& o = {});
// One unit with the given kernels (flat indices, extern and control ones skipped): the same
// prelude and per-kernel text as emit_cpp, for compiling a program in parallel chunks.
std::string emit_cpp_kernels(const LoopProgram& p, std::span<const int> kernels, const CppEmitOptions& o = {});

}  // namespace kiln
