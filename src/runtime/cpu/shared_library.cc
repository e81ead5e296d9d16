#include "runtime/cpu/shared_library.h"

#include <dlfcn.h>

namespace kiln {

namespace {

std::string last_dl_error() {
  const char* e = dlerror();
  return e ? e : "unknown error";
}

}  // namespace

Expected<SharedLibrary> SharedLibrary::open(const std::string& path) {
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) return make_error("cannot load ", path, ": ", last_dl_error(), " (delete it to rebuild)");
  return SharedLibrary(h, path);
}

SharedLibrary& SharedLibrary::operator=(SharedLibrary&& o) noexcept {
  if (this != &o) {
    if (handle_) dlclose(handle_);
    handle_ = o.handle_;
    path_ = std::move(o.path_);
    o.handle_ = nullptr;
  }
  return *this;
}

SharedLibrary::~SharedLibrary() {
  if (handle_) dlclose(handle_);
}

Expected<void*> SharedLibrary::symbol(const std::string& name) const {
  dlerror();
  void* s = dlsym(handle_, name.c_str());
  if (!s) return make_error("symbol ", name, " is missing from ", path_, ": ", last_dl_error());
  return s;
}

void pin_openmp_runtime() {
  for (const char* name : {"libgomp.so.1", "libomp.so", "libomp.so.5", "libiomp5.so"}) {
    // RTLD_NOLOAD: only if already loaded; the NODELETE mark outlives this handle.
    if (void* h = dlopen(name, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE)) dlclose(h);
  }
}

}  // namespace kiln
