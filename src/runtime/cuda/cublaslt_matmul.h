// The matmul family's extern kernels (matmul, mm, bmm; linear with or without its bias; addmm and
// baddbmm whose `self` is a bias or a matrix laid out as the result) as
// cuBLASLt calls: which kernels qualify and the call's matrices (pure, testable without a GPU),
// then the call itself with its algorithm chosen once per shape (CublasLt keeps it).
//
// cuBLASLt is column-major; kiln's buffers are row-major views. A row-major D[m,n] = X[m,k] @
// Y[k,n] is the column-major D^T = Y^T @ X^T, so cuBLASLt's A is Y, its B is X and D is written
// as an n x m column-major matrix. A transposed operand is a layout (op T over the stored
// matrix), never a copy. A batch is one strided batch over the innermost batch dims that
// collapse to one stride per operand (a broadcast batch has stride 0), and one such call per
// index of the dims before them, all on the program's stream. addmm and baddbmm compute
// alpha * (X @ Y) + beta * self: a `self` of n contiguous elements with beta 1 is the bias
// epilogue; one of the result's exact layout is cuBLASLt's C. Other kernels of the family (any
// other `self`, a vector operand, mixed dtypes) run on the host.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "lower/loop_ir.h"
#include "runtime/cuda/cublaslt.h"

namespace kiln {

// One matrix as cuBLASLt stores it: `rows` x `cols`, column-major with leading dimension `ld`
// (elements), `transposed` when the call uses it as op T; its element 0 at `offset` elements
// into buffer `buffer`, each batch `batch_stride` elements after the one before; a call of the
// outer batch dims starts outer_strides[i] elements on per index of dim i.
struct LtMatrix {
  int buffer = -1;
  int64_t offset = 0;
  int64_t rows = 0, cols = 0, ld = 0;
  bool transposed = false;
  int64_t batch_stride = 0;
  std::vector<int64_t> outer_strides = {};
};

struct LtMatmulPlan {
  DType dtype = DType::F32;    // of every operand and the result
  int64_t batch = 1;           // the inner batch: one strided-batch call
  std::vector<int64_t> outer;  // the outer batch dims (size-1 dims left out): a call per index
  LtMatrix a, b, d;            // cuBLASLt's A (kiln's right operand), B (the left one) and D (the result)
  int bias = -1;               // the bias buffer (n elements, contiguous) of linear, addmm or baddbmm; or -1
  int64_t bias_offset = 0;
  LtMatrix c;  // beta's matrix (addmm's, baddbmm's self), laid out as d; buffer -1 when beta is 0
  float alpha = 1.0f, beta = 0.0f;

  // The shape as the algorithm cache keys it: dtype, batch (and the calls), every matrix's
  // layout, the bias.
  std::string key() const;
};

// The cuBLASLt call that runs extern kernel `k` of `p`, or nothing when it runs on the host.
std::optional<LtMatmulPlan> plan_lt_matmul(const LoopProgram& p, const LoopKernel& k);

// The ops of `p`'s extern kernels that no cuBLASLt call runs, in flat kernel order (control
// kernels' bodies included), each once: CudaProgram runs them on the host.
std::vector<OpKind> host_copied_ops(const LoopProgram& p);

// One planned call's descriptors and algorithm, made once when the program loads.
class LtMatmul {
 public:
  // `tf32`: f32 products through TF32 tensor cores (10 mantissa bits) instead of full f32 FMA.
  // Errors: cuBLASLt's, or no algorithm for the shape within `max_workspace_bytes`.
  static Expected<LtMatmul> create(CublasLt& lt, const LtMatmulPlan& plan, bool tf32, uint64_t max_workspace_bytes);
  LtMatmul(LtMatmul&& other) noexcept;
  LtMatmul& operator=(LtMatmul&&) = delete;
  ~LtMatmul();

  // The device addresses of the buffers the plan names (offsets are added by run).
  struct Buffers {
    CuDevicePtr a = 0, b = 0, c = 0, d = 0, bias = 0;
  };
  // Queues the product on `stream`: a call per index of the plan's outer batch dims.
  Status run(const Buffers& buffers, CuDevicePtr workspace, uint64_t workspace_bytes, CuStream stream) const;
  const LtMatmulPlan& plan() const { return plan_; }
  uint64_t workspace_bytes() const { return algorithm_.workspace_bytes; }

 private:
  LtMatmul(CublasLt& lt, LtMatmulPlan plan) : lt_(&lt), plan_(std::move(plan)) {}

  CublasLt* lt_;
  LtMatmulPlan plan_;
  CublasLtMatmulDesc desc_ = nullptr;
  CublasLtMatrixLayout layouts_[3] = {nullptr, nullptr, nullptr};  // a, b, d
  CublasLtHeuristicResult algorithm_{};
};

}  // namespace kiln
