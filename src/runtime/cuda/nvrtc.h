// CUDA C++ to PTX or to a cubin with NVRTC, loaded at run time (dlopen of libnvrtc.so.13, found
// as vendor_library.h's cuda_toolkit_library_candidates says, else libnvrtc.so), so that kiln
// builds and runs on machines without CUDA: there, compiling is an error that says NVRTC is
// missing, never a build failure. No CUDA header is included; the few NVRTC entry points used
// are declared in nvrtc.cc by their C signatures.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "runtime/cuda/ptxas_report.h"
#include "support/diagnostic.h"

namespace kiln {

struct NvrtcOptions {
  // --gpu-architecture (NVRTC 13: 75 .. 121): compute_90 gives PTX, sm_90 a cubin.
  std::string arch = "compute_90";
  std::string std = "c++17";              // -std
  bool minimal = false;                   // -minimal: no CUDA headers built in; compiles faster
  std::vector<std::string> include_dirs;  // -I, for headers NVRTC does not bring (cuda.h)
  std::vector<std::string> extra;         // more NVRTC options, passed as given
  std::string name = "kernel.cu";         // the source's name in NVRTC's messages
};

// The options NVRTC is given for `options`:
// --gpu-architecture=compute_90 -default-device -std=c++17 [-minimal] -I<dir>... extra...
std::vector<std::string> nvrtc_flags(const NvrtcOptions& options);

// The PTX of `source`. Errors: NVRTC is not installed ("NVRTC (libnvrtc.so.13) not found:
// install the CUDA 13 toolkit ..."), or the source does not compile (with NVRTC's log).
Expected<std::string> compile_cuda_to_ptx(std::string_view source, const NvrtcOptions& options = {});

// A loadable binary for one architecture, and ptxas's report on each kernel in it.
struct Cubin {
  std::string image;                     // an ELF file (cuModuleLoadData takes it as is)
  std::vector<KernelResources> kernels;  // in ptxas's order
  std::string log;                       // NVRTC's whole log (ptxas's -v lines, warnings)
};

// The options kiln's own kernels compile with: a cubin for `arch` without CUDA headers.
NvrtcOptions cubin_options(std::string arch = "sm_90");

// The cubin of `source`, which may hold several kernels; ptxas runs with -v and its report is
// parsed into Cubin::kernels. Errors: those of compile_cuda_to_ptx, and an `options.arch` that
// names a virtual architecture ("compute_90" gives PTX, not a cubin).
Expected<Cubin> compile_cuda_to_cubin(std::string_view source, const NvrtcOptions& options = cubin_options());

// NVRTC's version ("13.0"), or the error that says why it cannot be loaded.
Expected<std::string> nvrtc_version();

}  // namespace kiln
