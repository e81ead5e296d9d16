// cuBLASLt, loaded at run time: dlopen of libcublasLt.so.13 (found where NVRTC is:
// vendor_library.h's cuda_toolkit_library_candidates) and the few entry points kiln uses,
// declared by their C signatures (no CUDA header). The process has one library and one handle,
// made on first use (it needs the driver and a device), and the algorithm cuBLASLt's heuristic
// picks for each matmul shape, asked once and kept. Every failure is an error naming the call
// and cuBLASLt's name for the status, never an abort.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "runtime/cuda/cuda_driver.h"
#include "runtime/cuda/vendor_library.h"
#include "support/diagnostic.h"

namespace kiln {

// cuBLASLt's handle types and result, by their C ABI (cublasLt.h).
using CublasStatus = int;
using CublasLtHandle = struct CublasLtOpaque*;
using CublasLtMatmulDesc = struct CublasLtMatmulDescOpaque*;
using CublasLtMatrixLayout = struct CublasLtMatrixLayoutOpaque*;
using CublasLtMatmulPreference = struct CublasLtMatmulPreferenceOpaque*;
struct CublasLtMatmulAlgo {
  uint64_t data[8];
};
struct CublasLtHeuristicResult {
  CublasLtMatmulAlgo algo;
  size_t workspace_bytes;
  CublasStatus state;
  float waves;
  int reserved[4];
};

struct CublasLtApi {
  CublasStatus (*create)(CublasLtHandle* handle);                                           // cublasLtCreate
  CublasStatus (*destroy)(CublasLtHandle handle);                                           // cublasLtDestroy
  CublasStatus (*desc_create)(CublasLtMatmulDesc* desc, int compute_type, int scale_type);  // cublasLtMatmulDescCreate
  CublasStatus (*desc_destroy)(CublasLtMatmulDesc desc);                                    // cublasLtMatmulDescDestroy
  CublasStatus (*desc_set)(CublasLtMatmulDesc desc, int attribute, const void* value,
                           size_t bytes);  // cublasLtMatmulDescSetAttribute
  CublasStatus (*layout_create)(CublasLtMatrixLayout* layout, int type, uint64_t rows, uint64_t cols,
                                int64_t ld);                    // cublasLtMatrixLayoutCreate
  CublasStatus (*layout_destroy)(CublasLtMatrixLayout layout);  // cublasLtMatrixLayoutDestroy
  CublasStatus (*layout_set)(CublasLtMatrixLayout layout, int attribute, const void* value,
                             size_t bytes);                                 // cublasLtMatrixLayoutSetAttribute
  CublasStatus (*preference_create)(CublasLtMatmulPreference* preference);  // cublasLtMatmulPreferenceCreate
  CublasStatus (*preference_destroy)(CublasLtMatmulPreference preference);  // cublasLtMatmulPreferenceDestroy
  CublasStatus (*preference_set)(CublasLtMatmulPreference preference, int attribute, const void* value,
                                 size_t bytes);  // cublasLtMatmulPreferenceSetAttribute
  CublasStatus (*heuristic)(CublasLtHandle handle, CublasLtMatmulDesc desc, CublasLtMatrixLayout a,
                            CublasLtMatrixLayout b, CublasLtMatrixLayout c, CublasLtMatrixLayout d,
                            CublasLtMatmulPreference preference, int requested, CublasLtHeuristicResult* results,
                            int* returned);  // cublasLtMatmulAlgoGetHeuristic
  CublasStatus (*matmul)(CublasLtHandle handle, CublasLtMatmulDesc desc, const void* alpha, const void* a,
                         CublasLtMatrixLayout a_layout, const void* b, CublasLtMatrixLayout b_layout, const void* beta,
                         const void* c, CublasLtMatrixLayout c_layout, void* d, CublasLtMatrixLayout d_layout,
                         const CublasLtMatmulAlgo* algo, void* workspace, size_t workspace_bytes,
                         CuStream stream);            // cublasLtMatmul
  const char* (*status_name)(CublasStatus status);    // cublasLtGetStatusName
  const char* (*status_string)(CublasStatus status);  // cublasLtGetStatusString
};

class CublasLt {
 public:
  // The process's cuBLASLt: loaded and its handle made once (the calling thread must have a
  // current context: CudaContext); later calls return it or the same error. Errors: the library
  // not found, an entry point missing, cublasLtCreate failing.
  static Expected<CublasLt*> get();
  // Loads `candidates` (tests: a path that cannot exist) without making a handle.
  static Expected<CublasLtApi> load(const std::vector<std::string>& candidates);

  const CublasLtApi& api() const { return api_; }
  CublasLtHandle handle() const { return handle_; }
  // Ok for CUBLAS_STATUS_SUCCESS; else "<call>: <name> (<status>): <description>, <detail>".
  Status check(CublasStatus status, std::string_view call, std::string_view detail = {}) const;

  // The algorithm found for `key` (a matmul shape: LtMatmulPlan::key()) before, if any; and
  // keeping one.
  bool find_algorithm(const std::string& key, CublasLtHeuristicResult& found);
  void keep_algorithm(const std::string& key, const CublasLtHeuristicResult& result);

  CublasLt(const CublasLt&) = delete;
  CublasLt& operator=(const CublasLt&) = delete;
  ~CublasLt();

 private:
  CublasLt(VendorLibrary library, const CublasLtApi& api) : library_(std::move(library)), api_(api) {}

  VendorLibrary library_;
  CublasLtApi api_;
  CublasLtHandle handle_ = nullptr;
  std::mutex mutex_;
  std::map<std::string, CublasLtHeuristicResult> algorithms_;
};

}  // namespace kiln
