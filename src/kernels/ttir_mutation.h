// Which pointer parameters a Triton kernel writes, found in its TTIR (read by mlir_reader.h):
// a backward walk from every memory-writing op over "value derives from", as PyTorch's
// triton_kernel_wrap.py does (SPEC.md 1c), made sound where the reference is not: loop-carried
// values follow their back edge, pointers loaded from memory make the answer conservative, and
// descriptor reductions and scatters count as writes. The answer is never less than the truth:
// what the analysis cannot follow gives `fallback` (every pointer parameter written) with the
// reason, never an error and never an empty written set.
#pragma once

#include <string>
#include <string_view>

#include "kernels/mlir_reader.h"
#include "kernels/mutation_analysis.h"
#include "support/diagnostic.h"

namespace kiln::kernels {

struct TtirAnalysisOptions {
  // The kernel to analyze: empty = the module's first public `tt.func` (or its first `tt.func`
  // when none is public); otherwise the `tt.func` of that name.
  std::string function;
};

// Errors are the input's: a module with no `tt.func`, or no function of the requested name.
// Everything else (ops with unknown regions, impure inline asm, recursion, calls to functions
// the module lacks, stores through loaded pointers) is a conservative answer with reasons.
Expected<MutationAnalysis> analyze_ttir(const MlirModule& module, const TtirAnalysisOptions& options = {});

// read_mlir then analyze_ttir.
Expected<MutationAnalysis> analyze_ttir_text(std::string_view text, std::string_view file_name,
                                             const TtirAnalysisOptions& options = {});

}  // namespace kiln::kernels
