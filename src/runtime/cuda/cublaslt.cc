#include "runtime/cuda/cublaslt.h"

#include <memory>

namespace kiln {

namespace {

constexpr CublasStatus kCublasSuccess = 0;

Status resolve_cublaslt_api(const VendorLibrary& lib, CublasLtApi& a) {
  KILN_TRY(lib.resolve("cublasLtCreate", a.create));
  KILN_TRY(lib.resolve("cublasLtDestroy", a.destroy));
  KILN_TRY(lib.resolve("cublasLtMatmulDescCreate", a.desc_create));
  KILN_TRY(lib.resolve("cublasLtMatmulDescDestroy", a.desc_destroy));
  KILN_TRY(lib.resolve("cublasLtMatmulDescSetAttribute", a.desc_set));
  KILN_TRY(lib.resolve("cublasLtMatrixLayoutCreate", a.layout_create));
  KILN_TRY(lib.resolve("cublasLtMatrixLayoutDestroy", a.layout_destroy));
  KILN_TRY(lib.resolve("cublasLtMatrixLayoutSetAttribute", a.layout_set));
  KILN_TRY(lib.resolve("cublasLtMatmulPreferenceCreate", a.preference_create));
  KILN_TRY(lib.resolve("cublasLtMatmulPreferenceDestroy", a.preference_destroy));
  KILN_TRY(lib.resolve("cublasLtMatmulPreferenceSetAttribute", a.preference_set));
  KILN_TRY(lib.resolve("cublasLtMatmulAlgoGetHeuristic", a.heuristic));
  KILN_TRY(lib.resolve("cublasLtMatmul", a.matmul));
  KILN_TRY(lib.resolve("cublasLtGetStatusName", a.status_name));
  KILN_TRY(lib.resolve("cublasLtGetStatusString", a.status_string));
  return Status::ok();
}

Expected<VendorLibrary> open_cublaslt(const std::vector<std::string>& candidates) {
  return VendorLibrary::open(candidates, "cuBLASLt (libcublasLt.so.13)",
                             "install the CUDA 13 toolkit, or put its lib64 directory on LD_LIBRARY_PATH");
}

}  // namespace

Expected<CublasLtApi> CublasLt::load(const std::vector<std::string>& candidates) {
  KILN_ASSIGN_OR_RETURN(VendorLibrary lib, open_cublaslt(candidates));
  CublasLtApi api{};
  KILN_TRY(resolve_cublaslt_api(lib, api));
  return api;
}

Expected<CublasLt*> CublasLt::get() {
  static const Expected<std::unique_ptr<CublasLt>> lt = []() -> Expected<std::unique_ptr<CublasLt>> {
    KILN_ASSIGN_OR_RETURN(VendorLibrary lib, open_cublaslt(cuda_toolkit_library_candidates("libcublasLt.so.13")));
    CublasLtApi api{};
    KILN_TRY(resolve_cublaslt_api(lib, api));
    std::unique_ptr<CublasLt> made(new CublasLt(std::move(lib), api));
    KILN_TRY(made->check(api.create(&made->handle_), "cublasLtCreate"));
    return made;
  }();
  if (!lt) return lt.error();
  return lt->get();
}

CublasLt::~CublasLt() {
  if (handle_) (void)api_.destroy(handle_);
}

Status CublasLt::check(CublasStatus status, std::string_view call, std::string_view detail) const {
  if (status == kCublasSuccess) return Status::ok();
  const char* name = api_.status_name ? api_.status_name(status) : nullptr;
  const char* text = api_.status_string ? api_.status_string(status) : nullptr;
  std::string message =
      std::string(call) + ": " + (name ? name : "cuBLAS status") + " (" + std::to_string(status) + ")";
  if (text && *text) message += std::string(": ") + text;
  if (!detail.empty()) message += ", " + std::string(detail);
  return make_error(message);
}

bool CublasLt::find_algorithm(const std::string& key, CublasLtHeuristicResult& found) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = algorithms_.find(key);
  if (it == algorithms_.end()) return false;
  found = it->second;
  return true;
}

void CublasLt::keep_algorithm(const std::string& key, const CublasLtHeuristicResult& result) {
  std::lock_guard<std::mutex> lock(mutex_);
  algorithms_.emplace(key, result);
}

}  // namespace kiln
