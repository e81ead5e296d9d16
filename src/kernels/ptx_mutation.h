// Which pointer parameters a CUDA kernel writes, found from its PTX (the PTX counterpart of
// PyTorch's Triton analysis, SPEC.md section 1): a backward walk from the address of every
// instruction that writes global or generic memory to the kernel parameters it derives from.
//
// PTX registers are not SSA (a register is reassigned in loops and branches), so the analysis
// is flow-insensitive: a register may hold anything any of its writers computes. It is sound:
// - Writes: `st` to .global or generic memory (not .shared/.local/.param/.const), `st.async`,
//   `atom`, `red`, vector stores, `cp.async.bulk`/`cp.reduce.async.bulk` (also `.tensor`, whose
//   address is the tensor map parameter) with a global destination, `multimem.st/red`,
//   `wmma.store`, `sust`/`sured`, `discard`, `tensormap.replace`. Calls to `.func`s of the module
//   are analyzed (memoized) and their written parameters mapped back to the call's arguments,
//   their returned pointers to the parameters they came from.
// - Provenance flows through every operand of every instruction (`ld.param`, `mov` of a
//   parameter's name, `cvta.param`, arithmetic, `selp`, ...), except predicates.
// - A value read from memory (`ld.global.u64`, `ld.local`, an atomic's old value) cannot be
//   traced. Pointer-sized registers that reach a store address as a base (through mov, add,
//   sub, cvta, cvt, selp, and, or; not as a multiplicand of mul/shl/mad) make the answer
//   conservative: every pointer parameter is reported written, with the reason "file:line:col:
//   stores through a pointer loaded from memory". Registers narrower than a pointer (.b32 on a
//   64-bit target) and loaded 64-bit values that are scaled before the add (an index:
//   `out[idx[i]]`) are offsets and keep the answer precise. A 64-bit value rebuilt from 32-bit
//   halves (`mov.b64 %rd, {%r1, %r2}`) is still a possible pointer.
// - Anything else it cannot follow (a call through a register, a call to a function without a
//   body other than CUDA's vprintf, __assertfail, malloc and free, recursion, a memory-writing
//   instruction of a form it does not know, an unknown instruction with a memory operand) is a
//   fallback: every pointer parameter written, `fallback = true`, with the reason and its place.
//   An unknown instruction without a memory operand is followed through all its operands.
//
// Pointer parameters. Without the CUDA signature, every 64-bit integer parameter (.u64, .b64,
// .s64; 32-bit ones under `.address_size 32`) may be a pointer or a size_t, and is reported
// written when a store address derives from it. A byte-array parameter (`.b8 p[N]`: a struct
// passed by value, a CUtensorMap) may hold pointers and counts as a pointer parameter either
// way. With the signature, the other parameters are pointers exactly when the source says so,
// and carry the author's names. Not covered: an integer the source casts to a pointer (a
// parameter the signature says is not a pointer is never reported), and writes to module
// variables (`__device__` globals), which are not parameters.
#pragma once

#include <optional>
#include <string>

#include "kernels/cuda_signature.h"
#include "kernels/mutation_analysis.h"
#include "kernels/ptx_reader.h"
#include "support/diagnostic.h"

namespace kiln::kernels {

struct PtxAnalysisOptions {
  // The `.entry` to analyze; empty: the one `signature` matches, else the first `.entry`.
  std::string function;
  // The kernel's signature from its CUDA source: parameter names and pointer-ness.
  std::optional<CudaKernelSignature> signature;
};

// Errors are for inputs that do not fit together (no such `.entry`, a signature with another
// parameter count); anything the analysis cannot follow is a fallback in the result instead.
Expected<MutationAnalysis> analyze_ptx(const PtxModule& module, const PtxAnalysisOptions& options = {});

}  // namespace kiln::kernels
