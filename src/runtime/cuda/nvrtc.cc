#include "runtime/cuda/nvrtc.h"

#include <dlfcn.h>

#include <memory>
#include <utility>

namespace kiln {

namespace {

// NVRTC's C API, as nvrtc.h declares it: results are an enum (0 is success), a program an
// opaque pointer.
using NvrtcResult = int;
using NvrtcProgram = struct NvrtcProgramOpaque*;
constexpr NvrtcResult kNvrtcSuccess = 0;
constexpr NvrtcResult kNvrtcErrorCompilation = 6;

struct NvrtcApi {
  NvrtcResult (*version)(int* major, int* minor) = nullptr;
  NvrtcResult (*create_program)(NvrtcProgram* prog, const char* src, const char* name, int num_headers,
                                const char* const* headers, const char* const* include_names) = nullptr;
  NvrtcResult (*compile_program)(NvrtcProgram prog, int num_options, const char* const* options) = nullptr;
  NvrtcResult (*get_ptx_size)(NvrtcProgram prog, size_t* size) = nullptr;
  NvrtcResult (*get_ptx)(NvrtcProgram prog, char* ptx) = nullptr;
  NvrtcResult (*get_log_size)(NvrtcProgram prog, size_t* size) = nullptr;
  NvrtcResult (*get_log)(NvrtcProgram prog, char* log) = nullptr;
  NvrtcResult (*destroy_program)(NvrtcProgram* prog) = nullptr;
  const char* (*error_string)(NvrtcResult result) = nullptr;
};

struct LibraryCloser {
  void operator()(void* h) const { dlclose(h); }
};
using LibraryHandle = std::unique_ptr<void, LibraryCloser>;

// The loaded library and its entry points. RTLD_NODELETE: NVRTC stays mapped after the
// handle closes, so the next compile does not pay for loading it again.
struct Nvrtc {
  LibraryHandle handle;
  NvrtcApi api;
};

template <typename Fn>
Status load_symbol(void* h, const char* name, Fn& out) {
  dlerror();
  void* s = dlsym(h, name);
  if (!s) return make_error("NVRTC: ", name, " is missing from libnvrtc (a CUDA 13 NVRTC is needed)");
  out = reinterpret_cast<Fn>(s);
  return Status::ok();
}

Expected<Nvrtc> load_nvrtc() {
  void* h = nullptr;
  std::string why;
  for (const char* name : {"libnvrtc.so.13", "libnvrtc.so"}) {
    h = dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (h) break;
    if (const char* e = dlerror()) why += std::string(why.empty() ? "" : "; ") + e;
  }
  if (!h)
    return make_error("NVRTC (libnvrtc.so.13) not found: install the CUDA 13 toolkit, or put its lib64 ",
                      "directory on LD_LIBRARY_PATH (", why, ")");
  Nvrtc n{LibraryHandle(h), {}};
  NvrtcApi& a = n.api;
  KILN_TRY(load_symbol(h, "nvrtcVersion", a.version));
  KILN_TRY(load_symbol(h, "nvrtcCreateProgram", a.create_program));
  KILN_TRY(load_symbol(h, "nvrtcCompileProgram", a.compile_program));
  KILN_TRY(load_symbol(h, "nvrtcGetPTXSize", a.get_ptx_size));
  KILN_TRY(load_symbol(h, "nvrtcGetPTX", a.get_ptx));
  KILN_TRY(load_symbol(h, "nvrtcGetProgramLogSize", a.get_log_size));
  KILN_TRY(load_symbol(h, "nvrtcGetProgramLog", a.get_log));
  KILN_TRY(load_symbol(h, "nvrtcDestroyProgram", a.destroy_program));
  KILN_TRY(load_symbol(h, "nvrtcGetErrorString", a.error_string));
  return n;
}

// A program, destroyed with the object.
class Program {
 public:
  Program(const NvrtcApi& api, NvrtcProgram p) : api_(api), p_(p) {}
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;
  ~Program() { api_.destroy_program(&p_); }
  NvrtcProgram get() const { return p_; }

 private:
  const NvrtcApi& api_;
  NvrtcProgram p_;
};

Status check(const NvrtcApi& api, NvrtcResult r, const char* what) {
  if (r == kNvrtcSuccess) return Status::ok();
  return make_error("NVRTC: ", what, " failed: ", api.error_string(r));
}

// NVRTC's sizes count the terminating NUL.
Expected<std::string> read_text(const NvrtcApi& api, NvrtcProgram p, NvrtcResult (*size_fn)(NvrtcProgram, size_t*),
                                NvrtcResult (*text_fn)(NvrtcProgram, char*), const char* what) {
  size_t size = 0;
  KILN_TRY(check(api, size_fn(p, &size), what));
  std::string text(size, '\0');
  if (size > 0) KILN_TRY(check(api, text_fn(p, text.data()), what));
  while (!text.empty() && text.back() == '\0') text.pop_back();
  return text;
}

}  // namespace

std::vector<std::string> nvrtc_flags(const NvrtcOptions& options) {
  std::vector<std::string> flags{"--gpu-architecture=" + options.arch, "-default-device", "-std=" + options.std};
  for (const std::string& dir : options.include_dirs) flags.push_back("-I" + dir);
  flags.insert(flags.end(), options.extra.begin(), options.extra.end());
  return flags;
}

Expected<std::string> compile_cuda_to_ptx(std::string_view source, const NvrtcOptions& options) {
  KILN_ASSIGN_OR_RETURN(Nvrtc nvrtc, load_nvrtc());
  const NvrtcApi& api = nvrtc.api;
  std::string src(source);
  NvrtcProgram raw = nullptr;
  KILN_TRY(check(api, api.create_program(&raw, src.c_str(), options.name.c_str(), 0, nullptr, nullptr),
                 "nvrtcCreateProgram"));
  Program program(api, raw);
  std::vector<std::string> flags = nvrtc_flags(options);
  std::vector<const char*> argv;
  for (const std::string& f : flags) argv.push_back(f.c_str());
  NvrtcResult r = api.compile_program(program.get(), static_cast<int>(argv.size()), argv.data());
  if (r != kNvrtcSuccess) {
    Expected<std::string> log = read_text(api, program.get(), api.get_log_size, api.get_log, "nvrtcGetProgramLog");
    std::string what = "does not compile";
    if (r != kNvrtcErrorCompilation) {
      what = std::string("failed: ") + api.error_string(r) + " (options:";
      for (const std::string& f : flags) what += " " + f;
      what += ")";
    }
    return make_error("NVRTC: ", options.name, " ", what, "\n", log ? *log : log.error().message());
  }
  return read_text(api, program.get(), api.get_ptx_size, api.get_ptx, "nvrtcGetPTX");
}

Expected<std::string> nvrtc_version() {
  KILN_ASSIGN_OR_RETURN(Nvrtc nvrtc, load_nvrtc());
  int major = 0, minor = 0;
  KILN_TRY(check(nvrtc.api, nvrtc.api.version(&major, &minor), "nvrtcVersion"));
  return std::to_string(major) + "." + std::to_string(minor);
}

}  // namespace kiln
