// A user kernel's source as kiln reads it: Triton's TTIR (MLIR text), PTX, or CUDA C++ (which
// kiln compiles to PTX with NVRTC before analyzing it).
#pragma once

#include <string>
#include <string_view>

#include "support/diagnostic.h"

namespace kiln::kernels {

enum class KernelSourceKind { Ttir, Ptx, Cuda };

// "ttir", "ptx", "cuda"
std::string_view kernel_source_kind_name(KernelSourceKind kind);

struct KernelSource {
  KernelSourceKind kind = KernelSourceKind::Ttir;
  std::string text;
  std::string file_name = "<memory>";  // names the input in diagnostics
};

// Reads a file; the kind comes from its extension: .ttir or .mlir (TTIR), .ptx, .cu or .cuh
// (CUDA C++). Errors name the file: unreadable, or an extension kiln does not know.
Expected<KernelSource> read_kernel_source(const std::string& path);

}  // namespace kiln::kernels
