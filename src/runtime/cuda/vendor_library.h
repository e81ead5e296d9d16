// A vendor library opened at run time (dlopen) from the first of several places it may be, and
// its entry points resolved by name: how kiln reaches CUDA's libraries (the driver, NVRTC)
// without linking them, so that a build on a machine without CUDA has the whole backend and a
// missing library is an error, not a crash. (runtime/cpu/shared_library.h loads generated kernels.)
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "support/diagnostic.h"

namespace kiln {

class VendorLibrary {
 public:
  // The first of `candidates` (file names searched on the loader's path, or paths) that opens.
  // Error: none opens; the message is "<what> not found (<each dlerror>)" followed by `advice`.
  static Expected<VendorLibrary> open(const std::vector<std::string>& candidates, const std::string& what,
                                      const std::string& advice);

  // The address of `symbol`. Error: "<what>: <symbol> is missing from <library>".
  Expected<void*> symbol(const char* name) const;

  // Resolves `name` into `fn`, a function pointer declared by the entry point's C signature.
  template <typename Fn>
  Status resolve(const char* name, Fn& fn) const {
    KILN_ASSIGN_OR_RETURN(void* address, symbol(name));
    fn = reinterpret_cast<Fn>(address);
    return Status::ok();
  }

  const std::string& path() const { return path_; }

 private:
  struct Closer {
    void operator()(void* handle) const;
  };
  VendorLibrary(void* handle, std::string path, std::string what);

  std::unique_ptr<void, Closer> handle_;
  std::string path_;  // the candidate that opened
  std::string what_;  // the library's name in messages ("NVRTC", "the CUDA driver")
};

// Where a CUDA toolkit library named `soname` ("libnvrtc.so.13") may be, in the order tried:
// the loader's own search (LD_LIBRARY_PATH, ldconfig), $CUDA_HOME/lib64, /usr/local/cuda/lib64,
// then the nvidia/cu13/lib directory of the Python environment in $VIRTUAL_ENV (where PyTorch's
// CUDA wheels put it).
std::vector<std::string> cuda_toolkit_library_candidates(const std::string& soname);

}  // namespace kiln
