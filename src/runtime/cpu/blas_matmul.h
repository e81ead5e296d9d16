// Extern matmuls through OpenBLAS: matmul, mm and bmm of float32/float64 operands whose
// matrices are row- or column-major (unit stride in one of their last two dims), with
// broadcast batch dims. A batch of row-major left operands times one right matrix (a linear
// layer's `x @ w.T`) is a single GEMM over all rows. An operand in another layout (general
// strides) is copied to a contiguous tensor first. A uniform operand (all strides 0: the
// expanded scalar tangent of a sum or mean loss) needs no product at all: the result is the
// other operand's row or column sums times that value. Integer dtypes and 1-d operands are
// left to the op's reference kernel.
#pragma once

#include "core/tensor.h"
#include "ops/op_kind.h"

namespace kiln {

// Computes `out` (contiguous, the op's result type) = op(a, b) and returns true, or returns
// false without touching `out` when OpenBLAS does not apply.
bool blas_matmul(OpKind op, const Tensor& a, const Tensor& b, const Tensor& out);

// linear(x, w, bias) = x @ w.T + bias into `out` (contiguous): the product through
// blas_matmul, then the bias (1-d, one value per output feature; may be null) added to each
// row. False without touching `out` when blas_matmul does not apply, the weight is not 2-d or
// the bias is not a vector of out's dtype and last size.
bool blas_linear(const Tensor& x, const Tensor& w, const Tensor* bias, const Tensor& out);

// w [out_features, in_features] viewed as its transpose [in, out] (no copy).
Tensor transposed_weight(const Tensor& w);

}  // namespace kiln
