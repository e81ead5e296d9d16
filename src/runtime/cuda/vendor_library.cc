#include "runtime/cuda/vendor_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <utility>

namespace kiln {

void VendorLibrary::Closer::operator()(void* handle) const { dlclose(handle); }

VendorLibrary::VendorLibrary(void* handle, std::string path, std::string what)
    : handle_(handle), path_(std::move(path)), what_(std::move(what)) {}

// RTLD_NODELETE: the library stays mapped after the handle closes, so the next open is cheap
// and function pointers taken from it stay valid.
Expected<VendorLibrary> VendorLibrary::open(const std::vector<std::string>& candidates, const std::string& what,
                                            const std::string& advice) {
  std::string why;
  for (const std::string& candidate : candidates) {
    if (void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE))
      return VendorLibrary(handle, candidate, what);
    const char* error = dlerror();
    why += std::string(why.empty() ? "" : "; ") + (error ? error : candidate + ": dlopen failed");
  }
  return make_error(what, " not found (", why, "): ", advice);
}

Expected<void*> VendorLibrary::symbol(const char* name) const {
  dlerror();
  void* address = dlsym(handle_.get(), name);
  if (!address) return make_error(what_, ": ", name, " is missing from ", path_);
  return address;
}

namespace {

// The nvidia/cu13/lib directories of a Python environment (lib/python3.*/site-packages).
std::vector<std::string> python_env_cuda_dirs(const std::filesystem::path& env) {
  std::vector<std::string> dirs;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(env / "lib", ec)) {
    if (entry.path().filename().string().rfind("python3", 0) != 0) continue;
    std::filesystem::path dir = entry.path() / "site-packages" / "nvidia" / "cu13" / "lib";
    if (std::filesystem::is_directory(dir, ec)) dirs.push_back(dir.string());
  }
  return dirs;
}

}  // namespace

std::vector<std::string> cuda_toolkit_library_candidates(const std::string& soname) {
  std::vector<std::string> dirs;
  if (const char* home = std::getenv("CUDA_HOME"); home && *home) dirs.push_back(std::string(home) + "/lib64");
  dirs.push_back("/usr/local/cuda/lib64");
  if (const char* env = std::getenv("VIRTUAL_ENV"); env && *env)
    for (std::string& dir : python_env_cuda_dirs(env)) dirs.push_back(std::move(dir));
  std::vector<std::string> candidates{soname};
  for (const std::string& dir : dirs) candidates.push_back(dir + "/" + soname);
  return candidates;
}

}  // namespace kiln
