// Float32 extern matmuls through oneDNN's matmul primitive, where oneDNN has a brgemm kernel
// for the operands' layout on this CPU (AVX-512 and later). On the 2-core Xeon those run the
// transformer block's GEMMs 10-25% faster than OpenBLAS, and attention's batched per-head
// products about 2x faster (docs/PERF.md). A primitive is made the first time a layout (sizes
// and strides of both operands) is seen and kept for the next runs; a layout whose best oneDNN
// kernel is not brgemm (older CPUs: AVX2 only, where oneDNN falls back to its own GEMM, no
// faster than OpenBLAS) is remembered as declined and left to OpenBLAS (blas_matmul.h).
#pragma once

#include <memory>

#include "core/tensor.h"
#include "ops/op_kind.h"

namespace kiln {

class DnnlMatmuls {
 public:
  DnnlMatmuls();
  ~DnnlMatmuls();
  DnnlMatmuls(const DnnlMatmuls&) = delete;
  DnnlMatmuls& operator=(const DnnlMatmuls&) = delete;

  // Computes `out` (contiguous) = op(a, b) for matmul, mm and bmm of float32 operands with
  // broadcast batch dims, plus `bias` (1-d and dense, one value per column of the result) when given,
  // added as the product is written; returns true, or returns false without touching `out`
  // when this layout is declined: another dtype, a 1-d operand, an empty dim, a uniform
  // operand (all strides 0, blas_matmul.h needs no product for it), or no brgemm kernel for
  // it. Safe to call from several threads at once.
  bool run(OpKind op, const Tensor& a, const Tensor& b, const Tensor& out, const Tensor* bias = nullptr);

  // How many layouts got a primitive, and how many were declined (tests, reports).
  int primitives() const;
  int declined() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kiln
