#include "runtime/cuda/nvrtc.h"

#include <utility>

#include "runtime/cuda/vendor_library.h"

namespace kiln {

namespace {

// NVRTC's C API, as nvrtc.h declares it: results are an enum (0 is success), a program an
// opaque pointer.
using NvrtcResult = int;
using NvrtcProgram = struct NvrtcProgramOpaque*;
constexpr NvrtcResult kNvrtcSuccess = 0;
constexpr NvrtcResult kNvrtcErrorCompilation = 6;

using NvrtcSizeFn = NvrtcResult (*)(NvrtcProgram prog, size_t* size);
using NvrtcTextFn = NvrtcResult (*)(NvrtcProgram prog, char* text);

struct NvrtcApi {
  NvrtcResult (*version)(int* major, int* minor) = nullptr;
  NvrtcResult (*create_program)(NvrtcProgram* prog, const char* src, const char* name, int num_headers,
                                const char* const* headers, const char* const* include_names) = nullptr;
  NvrtcResult (*compile_program)(NvrtcProgram prog, int num_options, const char* const* options) = nullptr;
  NvrtcSizeFn get_ptx_size = nullptr;
  NvrtcTextFn get_ptx = nullptr;
  NvrtcSizeFn get_cubin_size = nullptr;
  NvrtcTextFn get_cubin = nullptr;
  NvrtcSizeFn get_log_size = nullptr;
  NvrtcTextFn get_log = nullptr;
  NvrtcResult (*destroy_program)(NvrtcProgram* prog) = nullptr;
  const char* (*error_string)(NvrtcResult result) = nullptr;
};

// The loaded library and its entry points.
struct Nvrtc {
  VendorLibrary library;
  NvrtcApi api;
};

Expected<Nvrtc> load_nvrtc() {
  std::vector<std::string> candidates = cuda_toolkit_library_candidates("libnvrtc.so.13");
  candidates.push_back("libnvrtc.so");
  KILN_ASSIGN_OR_RETURN(VendorLibrary library,
                        VendorLibrary::open(candidates, "NVRTC (libnvrtc.so.13)",
                                            "install the CUDA 13 toolkit, or put its lib64 directory on "
                                            "LD_LIBRARY_PATH"));
  NvrtcApi a;
  KILN_TRY(library.resolve("nvrtcVersion", a.version));
  KILN_TRY(library.resolve("nvrtcCreateProgram", a.create_program));
  KILN_TRY(library.resolve("nvrtcCompileProgram", a.compile_program));
  KILN_TRY(library.resolve("nvrtcGetPTXSize", a.get_ptx_size));
  KILN_TRY(library.resolve("nvrtcGetPTX", a.get_ptx));
  KILN_TRY(library.resolve("nvrtcGetCUBINSize", a.get_cubin_size));
  KILN_TRY(library.resolve("nvrtcGetCUBIN", a.get_cubin));
  KILN_TRY(library.resolve("nvrtcGetProgramLogSize", a.get_log_size));
  KILN_TRY(library.resolve("nvrtcGetProgramLog", a.get_log));
  KILN_TRY(library.resolve("nvrtcDestroyProgram", a.destroy_program));
  KILN_TRY(library.resolve("nvrtcGetErrorString", a.error_string));
  return Nvrtc{std::move(library), a};
}

// Loaded once per process; a machine without NVRTC keeps the error.
const Expected<Nvrtc>& nvrtc() {
  static const Expected<Nvrtc> loaded = load_nvrtc();
  return loaded;
}

Status check(const NvrtcApi& api, NvrtcResult r, const char* what) {
  if (r == kNvrtcSuccess) return Status::ok();
  return make_error("NVRTC: ", what, " failed: ", api.error_string(r));
}

// NVRTC's text sizes count the terminating NUL; a cubin's size is its size.
Expected<std::string> read_output(const NvrtcApi& api, NvrtcProgram p, NvrtcSizeFn size_fn, NvrtcTextFn text_fn,
                                  const char* what) {
  size_t size = 0;
  KILN_TRY(check(api, size_fn(p, &size), what));
  std::string text(size, '\0');
  if (size > 0) KILN_TRY(check(api, text_fn(p, text.data()), what));
  return text;
}

std::string without_trailing_nuls(std::string text) {
  while (!text.empty() && text.back() == '\0') text.pop_back();
  return text;
}

// A compiled program and its log, destroyed with the object.
class CompiledProgram {
 public:
  CompiledProgram(const NvrtcApi& api, NvrtcProgram p) : api_(api), p_(p) {}
  CompiledProgram(const CompiledProgram&) = delete;
  CompiledProgram& operator=(const CompiledProgram&) = delete;
  ~CompiledProgram() { api_.destroy_program(&p_); }

  Expected<std::string> log() const {
    KILN_ASSIGN_OR_RETURN(std::string text,
                          read_output(api_, p_, api_.get_log_size, api_.get_log, "nvrtcGetProgramLog"));
    return without_trailing_nuls(std::move(text));
  }
  Expected<std::string> output(NvrtcSizeFn size_fn, NvrtcTextFn text_fn, const char* what) const {
    return read_output(api_, p_, size_fn, text_fn, what);
  }

 private:
  const NvrtcApi& api_;
  NvrtcProgram p_;
};

// Compiles `source` with `flags` and hands the program to `read`, which returns the result.
template <typename Read>
auto compile_then(std::string_view source, const NvrtcOptions& options, const std::vector<std::string>& flags,
                  Read read)
    -> decltype(read(std::declval<const NvrtcApi&>(), std::declval<const CompiledProgram&>())) {
  const Expected<Nvrtc>& loaded = nvrtc();
  if (!loaded) return loaded.error();
  const NvrtcApi& api = loaded->api;
  std::string src(source);
  NvrtcProgram raw = nullptr;
  KILN_TRY(check(api, api.create_program(&raw, src.c_str(), options.name.c_str(), 0, nullptr, nullptr),
                 "nvrtcCreateProgram"));
  CompiledProgram program(api, raw);
  std::vector<const char*> argv;
  for (const std::string& f : flags) argv.push_back(f.c_str());
  NvrtcResult r = api.compile_program(raw, static_cast<int>(argv.size()), argv.data());
  if (r != kNvrtcSuccess) {
    Expected<std::string> log = program.log();
    std::string what = "does not compile";
    if (r != kNvrtcErrorCompilation) {
      what = std::string("failed: ") + api.error_string(r) + " (options:";
      for (const std::string& f : flags) what += " " + f;
      what += ")";
    }
    return make_error("NVRTC: ", options.name, " ", what, "\n", log ? *log : log.error().message());
  }
  return read(api, program);
}

}  // namespace

std::vector<std::string> nvrtc_flags(const NvrtcOptions& options) {
  std::vector<std::string> flags{"--gpu-architecture=" + options.arch, "-default-device", "-std=" + options.std};
  if (options.minimal) flags.push_back("-minimal");
  for (const std::string& dir : options.include_dirs) flags.push_back("-I" + dir);
  flags.insert(flags.end(), options.extra.begin(), options.extra.end());
  return flags;
}

Expected<std::string> compile_cuda_to_ptx(std::string_view source, const NvrtcOptions& options) {
  return compile_then(source, options, nvrtc_flags(options),
                      [](const NvrtcApi& api, const CompiledProgram& program) -> Expected<std::string> {
                        KILN_ASSIGN_OR_RETURN(std::string ptx,
                                              program.output(api.get_ptx_size, api.get_ptx, "nvrtcGetPTX"));
                        return without_trailing_nuls(std::move(ptx));
                      });
}

NvrtcOptions cubin_options(std::string arch) {
  NvrtcOptions options;
  options.arch = std::move(arch);
  options.minimal = true;
  return options;
}

Expected<Cubin> compile_cuda_to_cubin(std::string_view source, const NvrtcOptions& options) {
  if (options.arch.rfind("sm_", 0) != 0)
    return make_error("NVRTC: ", options.name, ": a cubin needs a real architecture (sm_90), not '", options.arch,
                      "', which gives PTX");
  std::vector<std::string> flags = nvrtc_flags(options);
  flags.push_back("--ptxas-options=-v");
  return compile_then(
      source, options, flags, [](const NvrtcApi& api, const CompiledProgram& program) -> Expected<Cubin> {
        KILN_ASSIGN_OR_RETURN(std::string image, program.output(api.get_cubin_size, api.get_cubin, "nvrtcGetCUBIN"));
        KILN_ASSIGN_OR_RETURN(std::string log, program.log());
        std::vector<KernelResources> kernels = parse_ptxas_log(log);
        return Cubin{std::move(image), std::move(kernels), std::move(log)};
      });
}

Expected<std::string> nvrtc_version() {
  const Expected<Nvrtc>& loaded = nvrtc();
  if (!loaded) return loaded.error();
  int major = 0, minor = 0;
  KILN_TRY(check(loaded->api, loaded->api.version(&major, &minor), "nvrtcVersion"));
  return std::to_string(major) + "." + std::to_string(minor);
}

}  // namespace kiln
