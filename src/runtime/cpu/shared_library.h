// A shared library loaded with dlopen(RTLD_NOW | RTLD_LOCAL), closed when the owner goes.
// Move-only. Errors carry dlerror()'s text.
//
// Kernel libraries bring the OpenMP runtime with them (libgomp, or libomp from clang), whose
// worker threads outlive any one parallel region: unloading the runtime under them crashes
// the process. pin_openmp_runtime() marks whichever runtime is loaded never to be unloaded,
// so kernel libraries themselves can still be closed.
#pragma once

#include <string>

#include "support/diagnostic.h"

namespace kiln {

class SharedLibrary {
 public:
  static Expected<SharedLibrary> open(const std::string& path);

  SharedLibrary(SharedLibrary&& o) noexcept : handle_(o.handle_), path_(std::move(o.path_)) { o.handle_ = nullptr; }
  SharedLibrary& operator=(SharedLibrary&& o) noexcept;
  SharedLibrary(const SharedLibrary&) = delete;
  SharedLibrary& operator=(const SharedLibrary&) = delete;
  ~SharedLibrary();

  // The address of `name`, or an error naming the symbol and the library.
  Expected<void*> symbol(const std::string& name) const;
  const std::string& path() const { return path_; }

 private:
  SharedLibrary(void* handle, std::string path) : handle_(handle), path_(std::move(path)) {}
  void* handle_ = nullptr;
  std::string path_;
};

// Marks every loaded OpenMP runtime RTLD_NODELETE (does nothing for those not loaded).
void pin_openmp_runtime();

}  // namespace kiln
