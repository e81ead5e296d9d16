#include "runtime/cpu/blas_matmul.h"

#include <cblas.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace kiln {

namespace {

// One operand's matrix layout: CblasNoTrans with leading dimension ld when its last dim has
// unit stride, CblasTrans when its second-last does.
struct MatrixLayout {
  CBLAS_TRANSPOSE trans = CblasNoTrans;
  int64_t ld = 0;
};

bool layout_of(const Tensor& t, MatrixLayout& l) {
  const int r = t.dim();
  const int64_t rows = t.sizes()[static_cast<size_t>(r - 2)], cols = t.sizes()[static_cast<size_t>(r - 1)];
  const int64_t rs = t.strides()[static_cast<size_t>(r - 2)], cs = t.strides()[static_cast<size_t>(r - 1)];
  if (cs == 1 && rs >= std::max<int64_t>(1, cols)) {
    l = {CblasNoTrans, rs};
    return true;
  }
  if (rs == 1 && cs >= std::max<int64_t>(1, rows)) {
    l = {CblasTrans, cs};
    return true;
  }
  if (rows == 1 && cs == 1) {  // a single row: any row stride
    l = {CblasNoTrans, std::max<int64_t>(1, cols)};
    return true;
  }
  return false;
}

// A contiguous copy of `t`; a broadcast constant (every stride 0: autograd's expanded ones)
// is filled directly.
Tensor dense(const Tensor& t) {
  bool constant = true;
  for (int64_t s : t.strides()) constant = constant && s == 0;
  if (!constant) return t.contiguous();
  const int64_t n = t.numel();
  Tensor out = Tensor::over_storage(Storage::uninitialized(static_cast<size_t>(n * dtype_size(t.dtype()))), t.dtype(),
                                    t.sizes(), contiguous_strides(t.sizes()), 0);
  if (t.dtype() == DType::F32) std::fill_n(out.data<float>(), n, t.data<float>()[0]);
  else std::fill_n(out.data<double>(), n, t.data<double>()[0]);
  return out;
}

bool layout_ok(const Tensor& t) {
  MatrixLayout l;
  return layout_of(t, l);
}

template <typename T>
void gemm(const MatrixLayout& la, const MatrixLayout& lb, int64_t n, int64_t m, int64_t k, const T* a, const T* b, T* c) {
  if constexpr (sizeof(T) == 4) {
    cblas_sgemm(CblasRowMajor, la.trans, lb.trans, static_cast<blasint>(n), static_cast<blasint>(m),
                static_cast<blasint>(k), 1.0f, a, static_cast<blasint>(la.ld), b, static_cast<blasint>(lb.ld), 0.0f, c,
                static_cast<blasint>(m));
  } else {
    cblas_dgemm(CblasRowMajor, la.trans, lb.trans, static_cast<blasint>(n), static_cast<blasint>(m),
                static_cast<blasint>(k), 1.0, a, static_cast<blasint>(la.ld), b, static_cast<blasint>(lb.ld), 0.0, c,
                static_cast<blasint>(m));
  }
}

// Strides (in elements) of `t`'s batch dims aligned to `batch` (missing or size-1 dims: 0).
std::vector<int64_t> batch_strides(const Tensor& t, const std::vector<int64_t>& batch) {
  const size_t tb = static_cast<size_t>(t.dim() - 2);
  std::vector<int64_t> s(batch.size(), 0);
  for (size_t j = 0; j < tb; ++j) {
    const size_t d = batch.size() - tb + j;
    s[d] = t.sizes()[j] == 1 ? 0 : t.strides()[j];
  }
  return s;
}

template <typename T>
void run(const Tensor& a, const Tensor& b, const Tensor& out, const MatrixLayout& la, const MatrixLayout& lb) {
  const int r = out.dim();
  const std::vector<int64_t> batch(out.sizes().begin(), out.sizes().end() - 2);
  const int64_t n = out.sizes()[static_cast<size_t>(r - 2)], m = out.sizes()[static_cast<size_t>(r - 1)];
  const int64_t k = a.sizes()[static_cast<size_t>(a.dim() - 1)];
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();
  T* pc = out.data<T>();
  int64_t batches = 1;
  for (int64_t s : batch) batches *= s;
  // One GEMM over every row: b has no batch, and a's batch and row dims flatten (row-major).
  bool b_batched = false;
  for (int64_t s : batch_strides(b, batch)) b_batched = b_batched || s != 0;
  bool a_flat = la.trans == CblasNoTrans && a.dim() == r;
  for (int d = 0; a_flat && d < r - 2; ++d)
    a_flat = a.strides()[static_cast<size_t>(d)] ==
             a.strides()[static_cast<size_t>(d + 1)] * a.sizes()[static_cast<size_t>(d + 1)];
  if (!b_batched && a_flat && batches > 1) {
    gemm<T>(la, lb, batches * n, m, k, pa, pb, pc);
    return;
  }
  const std::vector<int64_t> sa = batch_strides(a, batch), sb = batch_strides(b, batch);
  std::vector<int64_t> idx(batch.size(), 0);
  for (int64_t i = 0; i < batches; ++i) {
    int64_t oa = 0, ob = 0;
    for (size_t d = 0; d < batch.size(); ++d) {
      oa += idx[d] * sa[d];
      ob += idx[d] * sb[d];
    }
    gemm<T>(la, lb, n, m, k, pa + oa, pb + ob, pc + i * n * m);
    for (size_t d = batch.size(); d-- > 0;) {
      if (++idx[d] < batch[d]) break;
      idx[d] = 0;
    }
  }
}

}  // namespace

bool blas_matmul(OpKind op, const Tensor& a, const Tensor& b, const Tensor& out) {
  if (op != OpKind::Matmul && op != OpKind::Mm && op != OpKind::Bmm) return false;
  const DType dt = out.dtype();
  if ((dt != DType::F32 && dt != DType::F64) || a.dtype() != dt || b.dtype() != dt) return false;
  if (a.dim() < 2 || b.dim() < 2 || out.dim() < 2 || !out.is_contiguous()) return false;
  const int64_t k = a.sizes()[static_cast<size_t>(a.dim() - 1)];
  if (k != b.sizes()[static_cast<size_t>(b.dim() - 2)]) return false;
  for (int64_t s : out.sizes())
    if (s == 0) return false;  // nothing to multiply: the reference kernel fills zeros
  if (k == 0 || out.numel() > (int64_t{1} << 31)) return false;
  // An operand BLAS cannot take as it is (a broadcast constant with zero strides, general
  // strides) is copied to a contiguous tensor first: a copy is far cheaper than the product.
  const Tensor ca = a.is_contiguous() || layout_ok(a) ? a : dense(a);
  const Tensor cb = b.is_contiguous() || layout_ok(b) ? b : dense(b);
  MatrixLayout la, lb;
  if (!layout_of(ca, la) || !layout_of(cb, lb)) return false;
  if (dt == DType::F32) run<float>(ca, cb, out, la, lb);
  else run<double>(ca, cb, out, la, lb);
  return true;
}

}  // namespace kiln
