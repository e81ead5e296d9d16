// One entry point for "which pointer parameters does this kernel write", whatever its source:
// TTIR goes to the TTIR analysis, PTX to the PTX analysis, CUDA C++ is compiled to PTX with
// NVRTC first (its signature gives the parameters' names and which are pointers). Results are
// cached per (source, function): every consumer of a kernel (registration, capture,
// functionalization, the CLI) asks once; the reference recomputes it four times.
#pragma once

#include <string>
#include <string_view>

#include "kernels/kernel_source.h"
#include "kernels/mutation_analysis.h"
#include "support/diagnostic.h"

namespace kiln::kernels {

struct KernelAnalysis {
  MutationAnalysis mutation;
  std::string ir;            // what the analysis read: the TTIR, or the PTX (compiled, for CUDA)
  std::string display_name;  // the kernel's name as its author wrote it (unmangled for CUDA)
  double ms = 0;             // time of reading and analyzing, at the first request
};

// `function` picks the kernel (empty: the source's first). Errors are the input's: a file
// that does not parse (file:line:col), no such function, CUDA that does not compile or no
// NVRTC. What the analysis cannot follow is a conservative answer, never an error.
Expected<KernelAnalysis> analyze_kernel(const KernelSource& source, std::string_view function = {});

}  // namespace kiln::kernels
