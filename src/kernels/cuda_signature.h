// Reads the `__global__` kernel signatures of a CUDA C++ source: each kernel's name, its
// enclosing namespaces, whether it has C linkage (`extern "C"`), and each parameter's name,
// type text and pointer-ness. The PTX of a kernel keeps neither the author's parameter names
// nor the difference between a pointer and a 64-bit integer (both are `.param .u64`); the
// signature supplies both to the PTX mutation analysis (kernels/ptx_mutation.h).
//
// This is a tokenizer and a bracket matcher, not a C++ front end: comments, string literals and
// preprocessor lines are skipped (macros are not expanded, so a kernel declared through a
// macro is not seen), template parameters and default arguments are tolerated. Kernels are
// matched to PTX `.entry` names without demangling: an `extern "C"` kernel by its exact name,
// a C++ kernel by the source names at the front of its mangled name (`_Z<len><name>` or, in a
// namespace, `_ZN<len><ns>...<len><name>E`/`I`), so overloads and template instances of one
// kernel all match the same signature.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "support/diagnostic.h"

namespace kiln::kernels {

struct CudaParam {
  std::string name;         // empty for an unnamed parameter
  std::string type;         // as written, spaces normalized: "const float*", "size_t", "float* __restrict__"
  bool is_pointer = false;  // a `*` in the type (outside template arguments) or an array `x[]`
};

struct CudaKernelSignature {
  std::string name;                     // "fill"
  std::vector<std::string> namespaces;  // outermost first; an anonymous namespace is ""
  bool extern_c = false;
  std::vector<CudaParam> params;
  SourceLoc loc;  // of the kernel's name

  // Whether `ptx_name` (an `.entry` name) is this kernel, by the rules above.
  bool matches_ptx_name(std::string_view ptx_name) const;
};

// Every `__global__` function declared or defined in `source`, in source order. Errors
// (an unterminated comment or string, a `__global__` without a parameter list) name file:line:col.
Expected<std::vector<CudaKernelSignature>> read_cuda_signatures(std::string_view source,
                                                                const std::string& file = "<cuda>");

// The first signature that matches `ptx_name`, or null.
const CudaKernelSignature* find_cuda_signature(const std::vector<CudaKernelSignature>& signatures,
                                               std::string_view ptx_name);

}  // namespace kiln::kernels
