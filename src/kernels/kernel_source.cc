#include "kernels/kernel_source.h"

#include <filesystem>

#include "support/file_io.h"

namespace kiln::kernels {

std::string_view kernel_source_kind_name(KernelSourceKind kind) {
  switch (kind) {
    case KernelSourceKind::Ttir: return "ttir";
    case KernelSourceKind::Ptx: return "ptx";
    case KernelSourceKind::Cuda: return "cuda";
  }
  return "?";
}

Expected<KernelSource> read_kernel_source(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  KernelSource s;
  if (ext == ".ttir" || ext == ".mlir") {
    s.kind = KernelSourceKind::Ttir;
  } else if (ext == ".ptx") {
    s.kind = KernelSourceKind::Ptx;
  } else if (ext == ".cu" || ext == ".cuh") {
    s.kind = KernelSourceKind::Cuda;
  } else {
    return make_error(path,
                      ": kiln reads kernels from .ttir or .mlir (Triton TTIR), .ptx, or .cu (CUDA C++) files, "
                      "not '",
                      ext.empty() ? std::string("(no extension)") : ext, "'");
  }
  KILN_ASSIGN_OR_RETURN(s.text, read_file_bytes(path));
  s.file_name = path;
  return s;
}

}  // namespace kiln::kernels
