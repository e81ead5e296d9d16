#include "runtime/cpu/blas_matmul.h"

#include <cblas.h>
#include <omp.h>

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

// Whether every element of `t` is the one element it views: all strides 0, as autograd's
// expand of a scalar tangent (the gradient of a sum or mean loss) gives.
bool is_uniform(const Tensor& t) {
  for (int64_t s : t.strides())
    if (s != 0) return false;
  return true;
}

// scaled[j] = c * sum_kk b[kk*rs + j*cs] for j < m: each thread sums a range of whole rows
// (contiguous reads when cs is 1) into partial sums in double, then the partials are added.
// Summing column strips instead reads b with a stride of a row per step: 2x slower on
// b [1024, 1024] (the sum loss's weight gradient).
template <typename T>
void column_sums_by_row_ranges(const T* b, int64_t k, int64_t m, int64_t rs, int64_t cs, double c, T* scaled) {
  std::vector<double> partial(static_cast<size_t>(omp_get_max_threads() * m), 0.0);
#pragma omp parallel
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    double* s = partial.data() + static_cast<size_t>(t) * static_cast<size_t>(m);
    for (int64_t kk = k * t / nt; kk < k * (t + 1) / nt; ++kk) {
      const T* row = b + kk * rs;
#pragma omp simd
      for (int64_t j = 0; j < m; ++j) s[j] += static_cast<double>(row[j * cs]);
    }
#pragma omp barrier
#pragma omp for schedule(static)
    for (int64_t j = 0; j < m; ++j) {
      double acc = 0;
      for (int q = 0; q < nt; ++q)
        acc += partial[static_cast<size_t>(q) * static_cast<size_t>(m) + static_cast<size_t>(j)];
      scaled[j] = static_cast<T>(c * acc);
    }
  }
}

// out = op(a, b) where one operand is uniform with value c: every output row is c times the
// column sums of b (a uniform), or every output column is c times the row sums of a (b
// uniform). O(k*(n + m)) per batch instead of the product's O(n*m*k); sums run in double,
// once when the other operand has no batch dims of its own; the output is filled by all
// threads (it is the large part: the expanded tangent of a sum loss makes [B, T, width]).
template <typename T>
void uniform_matmul(const Tensor& a, const Tensor& b, const Tensor& out) {
  const int r = out.dim();
  const std::vector<int64_t> batch(out.sizes().begin(), out.sizes().end() - 2);
  const int64_t n = out.sizes()[static_cast<size_t>(r - 2)], m = out.sizes()[static_cast<size_t>(r - 1)];
  const int64_t k = a.sizes()[static_cast<size_t>(a.dim() - 1)];
  const bool a_uniform = is_uniform(a);
  const Tensor& other = a_uniform ? b : a;
  const double c = static_cast<double>((a_uniform ? a : b).template data<T>()[0]);
  const T* po = other.data<T>();
  const int64_t rs = other.strides()[static_cast<size_t>(other.dim() - 2)];
  const int64_t cs = other.strides()[static_cast<size_t>(other.dim() - 1)];
  const std::vector<int64_t> so = batch_strides(other, batch);
  const bool other_batched = std::any_of(so.begin(), so.end(), [](int64_t s) { return s != 0; });
  int64_t batches = 1;
  for (int64_t s : batch) batches *= s;
  const int64_t width = a_uniform ? m : n;  // one sum per output column (a uniform) or row
  // c times the sums of batch i's `other` (the first batch's when it has no batch dims). One
  // parallel region at a time: nested regions (even inside an inactive one) start new threads.
  const int64_t sum_batches = other_batched ? batches : 1;
  std::vector<T> scaled(static_cast<size_t>(sum_batches * width));
  auto sum_block = [&](int64_t i, int64_t j0, int64_t j1) {  // sums j0..j1-1 of batch i
    const T* base = po;
    for (int64_t d = static_cast<int64_t>(batch.size()) - 1, rest = i; d >= 0; --d) {
      base += (rest % batch[static_cast<size_t>(d)]) * so[static_cast<size_t>(d)];
      rest /= batch[static_cast<size_t>(d)];
    }
    std::vector<double> sums(static_cast<size_t>(j1 - j0), 0.0);
    if (a_uniform) {  // column sums of b [k, m]
      for (int64_t kk = 0; kk < k; ++kk)
        for (int64_t j = j0; j < j1; ++j)
          sums[static_cast<size_t>(j - j0)] += static_cast<double>(base[kk * rs + j * cs]);
    } else {  // row sums of a [n, k]
      for (int64_t row = j0; row < j1; ++row)
        for (int64_t kk = 0; kk < k; ++kk)
          sums[static_cast<size_t>(row - j0)] += static_cast<double>(base[row * rs + kk * cs]);
    }
    for (int64_t j = j0; j < j1; ++j)
      scaled[static_cast<size_t>(i * width + j)] = static_cast<T>(c * sums[static_cast<size_t>(j - j0)]);
  };
  const bool large = sum_batches * width * k > (int64_t{1} << 16);
  if (a_uniform && sum_batches == 1 && large) {
    column_sums_by_row_ranges(po, k, width, rs, cs, c, scaled.data());
  } else if (sum_batches > 1) {
#pragma omp parallel for schedule(static) if (large)
    for (int64_t i = 0; i < sum_batches; ++i) sum_block(i, 0, width);
  } else {
    constexpr int64_t kBlock = 64;
#pragma omp parallel for schedule(static) if (large)
    for (int64_t j0 = 0; j0 < width; j0 += kBlock) sum_block(0, j0, std::min(width, j0 + kBlock));
  }
  T* pc = out.data<T>();
#pragma omp parallel for schedule(static) if (batches * n * m > (int64_t{1} << 16))
  for (int64_t row = 0; row < batches * n; ++row) {
    const T* s = scaled.data() + (other_batched ? (row / n) * width : 0);
    T* dst = pc + row * m;
    if (a_uniform) {
      std::copy(s, s + m, dst);
    } else {
      std::fill(dst, dst + m, s[row % n]);
    }
  }
}

bool layout_ok(const Tensor& t) {
  MatrixLayout l;
  return layout_of(t, l);
}

template <typename T>
void gemm(const MatrixLayout& la, const MatrixLayout& lb, int64_t n, int64_t m, int64_t k, const T* a, const T* b,
          T* c) {
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

// Multiply-adds under which one GEMM of a batch is not worth splitting over threads.
constexpr int64_t kSmallGemmMultiplyAdds = int64_t{1} << 22;

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
  auto one = [&](int64_t i) {
    int64_t oa = 0, ob = 0, rest = i;
    for (size_t d = batch.size(); d-- > 0;) {
      const int64_t at = rest % batch[d];
      rest /= batch[d];
      oa += at * sa[d];
      ob += at * sb[d];
    }
    gemm<T>(la, lb, n, m, k, pa + oa, pb + ob, pc + i * n * m);
  };
  // Small GEMMs (attention's per-head products) are spread over the threads, one whole GEMM
  // per thread at a time; OpenBLAS (its OpenMP build) runs each on its calling thread. Large
  // ones run one after another, each threaded by OpenBLAS. Not through `parallel for if
  // (false)`: inside even an inactive parallel region OpenBLAS runs on one thread (that cost
  // the weight-gradient GEMMs 2.5x).
  if (batches > 1 && n * m * k <= kSmallGemmMultiplyAdds) {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < batches; ++i) one(i);
  } else {
    for (int64_t i = 0; i < batches; ++i) one(i);
  }
}

template <typename T>
void add_bias_rows(const Tensor& bias, const Tensor& out) {
  const int64_t m = out.sizes()[static_cast<size_t>(out.dim() - 1)], rows = out.numel() / m;
  const int64_t bs = bias.strides()[0];
  const T* pb = bias.data<T>();
  T* po = out.data<T>();
#pragma omp parallel for schedule(static) if (out.numel() > (int64_t{1} << 16))
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < m; ++j) po[r * m + j] += pb[j * bs];
}

}  // namespace

Tensor transposed_weight(const Tensor& w) {
  return w.as_strided({w.sizes()[1], w.sizes()[0]}, {w.strides()[1], w.strides()[0]}, w.offset());
}

bool blas_linear(const Tensor& x, const Tensor& w, const Tensor* bias, const Tensor& out) {
  if (w.dim() != 2 || out.dim() < 1) return false;
  const int64_t m = out.sizes()[static_cast<size_t>(out.dim() - 1)];
  if (bias && (bias->dim() != 1 || bias->dtype() != out.dtype() || bias->sizes()[0] != m)) return false;
  if (!blas_matmul(OpKind::Matmul, x, transposed_weight(w), out)) return false;
  if (bias && out.dtype() == DType::F32) add_bias_rows<float>(*bias, out);
  if (bias && out.dtype() == DType::F64) add_bias_rows<double>(*bias, out);
  return true;
}

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
  if (is_uniform(a) || is_uniform(b)) {
    if (dt == DType::F32)
      uniform_matmul<float>(a, b, out);
    else
      uniform_matmul<double>(a, b, out);
    return true;
  }
  // An operand BLAS cannot take as it is (general strides) is copied to a contiguous tensor
  // first: a copy is far cheaper than the product.
  const Tensor ca = a.is_contiguous() || layout_ok(a) ? a : a.contiguous();
  const Tensor cb = b.is_contiguous() || layout_ok(b) ? b : b.contiguous();
  MatrixLayout la, lb;
  if (!layout_of(ca, la) || !layout_of(cb, lb)) return false;
  if (dt == DType::F32)
    run<float>(ca, cb, out, la, lb);
  else
    run<double>(ca, cb, out, la, lb);
  return true;
}

}  // namespace kiln
