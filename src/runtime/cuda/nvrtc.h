// CUDA C++ to PTX with NVRTC, loaded at run time (dlopen of libnvrtc.so.13, else libnvrtc.so),
// so that kiln builds and runs on machines without CUDA: there, compiling is an error that
// says NVRTC is missing, never a build failure. No CUDA header is included; the few NVRTC
// entry points used are declared here by their C signatures.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "support/diagnostic.h"

namespace kiln {

struct NvrtcOptions {
  std::string arch = "compute_90";        // --gpu-architecture (NVRTC 13: compute_75 .. compute_121)
  std::string std = "c++17";              // -std
  std::vector<std::string> include_dirs;  // -I, for headers NVRTC does not bring (cuda.h)
  std::vector<std::string> extra;         // more NVRTC options, passed as given
  std::string name = "kernel.cu";         // the source's name in NVRTC's messages
};

// The options NVRTC is given for `options`:
// --gpu-architecture=compute_90 -default-device -std=c++17 -I<dir>... extra...
std::vector<std::string> nvrtc_flags(const NvrtcOptions& options);

// The PTX of `source`. Errors: NVRTC is not installed ("NVRTC (libnvrtc.so.13) not found:
// install the CUDA 13 toolkit ..."), or the source does not compile (with NVRTC's log).
Expected<std::string> compile_cuda_to_ptx(std::string_view source, const NvrtcOptions& options = {});

// NVRTC's version ("13.0"), or the error that says why it cannot be loaded.
Expected<std::string> nvrtc_version();

}  // namespace kiln
