// Which pointer parameters a user kernel writes: the result type shared by the TTIR analysis
// (kernels/ttir_mutation.h) and the PTX analysis (kernels/ptx_mutation.h).
//
// The answer is safe: a parameter is reported `read-only` only when the analysis proved that
// no memory-writing op of the kernel (stores, atomics, descriptor stores/reductions, calls to
// functions that do these) can write through a pointer derived from it. When the analysis
// cannot decide, it says so (`fallback`) and reports every pointer parameter written, with
// the reason; it never returns an empty written set because of an error.
#pragma once

#include <string>
#include <vector>

namespace kiln::kernels {

struct ParamMutation {
  std::string name;         // the author's name where the input carries it, else "arg<i>"
  std::string type;         // as the IR spells it: "!tt.ptr<f32>", ".u64", "float*"
  bool is_pointer = false;  // only pointer parameters (and tensor descriptors) can be written
  bool written = false;
  // Why a pointer parameter is reported written without proof that a store reaches it
  // (fallback, or a pointer loaded from memory); empty when the analysis proved the write.
  std::string reason;
};

struct MutationAnalysis {
  std::string function;               // the analyzed kernel function
  std::vector<ParamMutation> params;  // every parameter of the function, in order
  // True when the analysis gave up (an op it does not understand) and reported every pointer
  // parameter written; `reasons` says why.
  bool fallback = false;
  // Everything that made the answer conservative, each with its place in the input
  // ("file:line:col: impure inline asm (tt.elementwise_inline_asm)").
  std::vector<std::string> reasons;

  // The names of the written pointer parameters, in parameter order.
  std::vector<std::string> written_names() const;
};

}  // namespace kiln::kernels
