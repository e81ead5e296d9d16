// Reference kernels of the contractions. Every op reduces to one batched matrix product over
// operands viewed (without copying) as [batch..., n, k] and [batch..., k, m]; floating
// dtypes accumulate in double, integral ones in int64 with wrap-around like torch.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "ops/kernel_index_util.h"
#include "ops/kernel_util.h"
#include "ops/kernels.h"
#include "support/check.h"

// Results must not depend on the target: a fused multiply-add would round a*b+c once instead
// of twice and change the sums' bits.
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

namespace kiln {

namespace {

// The floating product of one batch, computed over contiguous double copies so the hot loop
// touches plain arrays. Every output element is the same sum as the textbook loop
// `double acc = 0; for p in 0..k-1: acc += a[i][p] * b[p][j]`, rounded once to the output
// dtype: blocking only reorders which (i, j) is worked on, never the order of p within one
// element, and no fused multiply-add is allowed (the pragmas at the top of the file).
class FloatingMatmul {
 public:
  FloatingMatmul(int64_t n, int64_t k, int64_t m)
      : n_(n),
        k_(k),
        m_(m),
        a_(static_cast<size_t>(n * k)),
        b_(static_cast<size_t>(k * m)),
        c_(static_cast<size_t>(n * m)) {}

  // Copies a (n x k, element strides a_n, a_k from a_off) and b (k x m) into the buffers.
  void load(const ElementAccess& ea, int64_t a_off, int64_t a_n, int64_t a_k, const ElementAccess& eb, int64_t b_off,
            int64_t b_k, int64_t b_m) {
    for (int64_t i = 0; i < n_; ++i)
      for (int64_t p = 0; p < k_; ++p) a_[static_cast<size_t>(i * k_ + p)] = ea.get(a_off + i * a_n + p * a_k);
    for (int64_t p = 0; p < k_; ++p)
      for (int64_t j = 0; j < m_; ++j) b_[static_cast<size_t>(p * m_ + j)] = eb.get(b_off + p * b_k + j * b_m);
  }

  void multiply() {
    std::fill(c_.begin(), c_.end(), 0.0);
    // Column blocks of kCols keep a row of c in L1; depth blocks of kDepth keep the b panel
    // (kDepth x kCols doubles, 256 KiB) in L2. p blocks run in ascending order.
    for (int64_t j0 = 0; j0 < m_; j0 += kCols)
      for (int64_t p0 = 0; p0 < k_; p0 += kDepth) {
        const int64_t cols = std::min(kCols, m_ - j0), p1 = std::min(p0 + kDepth, k_);
        for (int64_t i = 0; i < n_; ++i) {
          double* c = c_.data() + i * m_ + j0;
          const double* a = a_.data() + i * k_;
          const double* b = b_.data() + j0;
          if (cols == kCols)
            accumulate_row<kCols>(c, a, b, p0, p1, kCols);
          else
            accumulate_row<0>(c, a, b, p0, p1, cols);
        }
      }
  }

  // Rounds the sums into out (element strides o_n, o_m from o_off).
  void store(const ElementAccess& eo, int64_t o_off, int64_t o_n, int64_t o_m) const {
    for (int64_t i = 0; i < n_; ++i)
      for (int64_t j = 0; j < m_; ++j) eo.set(o_off + i * o_n + j * o_m, c_[static_cast<size_t>(i * m_ + j)]);
  }

 private:
  static constexpr int64_t kCols = 128, kDepth = 256;

  // c[j] += a[p] * b[p * m + j] for p in [p0, p1), j in [0, cols); a fixed `Width` (when not 0)
  // lets the compiler vectorize the j loop without a remainder.
  template <int64_t Width>
  void accumulate_row(double* c, const double* a, const double* b, int64_t p0, int64_t p1, int64_t cols) const {
    const int64_t width = Width != 0 ? Width : cols;
    for (int64_t p = p0; p < p1; ++p) {
      const double ap = a[p];
      const double* bp = b + p * m_;
      for (int64_t j = 0; j < width; ++j) c[j] += ap * bp[j];
    }
  }

  int64_t n_, k_, m_;
  std::vector<double> a_, b_, c_;
};

// out[b] = a[b] @ b[b] where a, b, out share batch sizes (out is [batch..., n, m]).
void batched_matmul(const Tensor& a, const Tensor& b, const Tensor& out) {
  const int r = out.dim();
  const std::vector<int64_t> batch(out.sizes().begin(), out.sizes().end() - 2);
  const int64_t n = out.sizes()[static_cast<size_t>(r - 2)], m = out.sizes()[static_cast<size_t>(r - 1)];
  const int64_t k = a.sizes()[static_cast<size_t>(r - 1)];
  const auto at = [](const Tensor& t, int i) { return t.strides()[static_cast<size_t>(i)]; };
  const int64_t a_n = at(a, r - 2), a_k = at(a, r - 1), b_k = at(b, r - 2), b_m = at(b, r - 1);
  const int64_t o_n = at(out, r - 2), o_m = at(out, r - 1);
  const ElementAccess ea(a), eb(b), eo(out);
  const bool fp = is_floating(out.dtype());
  std::vector<std::vector<int64_t>> strides = {{a.strides().begin(), a.strides().end() - 2},
                                               {b.strides().begin(), b.strides().end() - 2},
                                               {out.strides().begin(), out.strides().end() - 2}};
  std::optional<FloatingMatmul> floating;
  if (fp) floating.emplace(n, k, m);
  const auto one_batch = [&](const int64_t* off) {
    if (fp) {
      floating->load(ea, off[0], a_n, a_k, eb, off[1], b_k, b_m);
      floating->multiply();
      floating->store(eo, off[2], o_n, o_m);
      return;
    }
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < m; ++j) {
        const int64_t pa = off[0] + i * a_n, pb = off[1] + j * b_m, po = off[2] + i * o_n + j * o_m;
        uint64_t acc = 0;  // unsigned: wraps instead of overflowing
        for (int64_t p = 0; p < k; ++p)
          acc += static_cast<uint64_t>(ea.get_int(pa + p * a_k)) * static_cast<uint64_t>(eb.get_int(pb + p * b_k));
        eo.set_int(po, static_cast<int64_t>(acc));
      }
  };
  if (batch.empty()) {
    const int64_t zero[3] = {0, 0, 0};
    one_batch(zero);
  } else {
    for_each_index(batch, strides, [&](int64_t, const int64_t* off) { one_batch(off); });
  }
}

// torch.matmul of any ranks into a fresh tensor of `result` type.
Tensor matmul_tensors(const Tensor& a0, const Tensor& b0, const TensorType& result) {
  const Tensor a = a0.dim() == 1 ? a0.as_strided({1, a0.sizes()[0]}, {0, a0.strides()[0]}, a0.offset()) : a0;
  const Tensor b = b0.dim() == 1 ? b0.as_strided({b0.sizes()[0], 1}, {b0.strides()[0], 0}, b0.offset()) : b0;
  // Batch dims: broadcast of both operands' leading dims.
  const std::vector<int64_t> ba(a.sizes().begin(), a.sizes().end() - 2), bb(b.sizes().begin(), b.sizes().end() - 2);
  std::vector<int64_t> batch(std::max(ba.size(), bb.size()), 1);
  for (size_t i = 0; i < batch.size(); ++i) {
    const int64_t ia = static_cast<int64_t>(i) - static_cast<int64_t>(batch.size() - ba.size());
    const int64_t ib = static_cast<int64_t>(i) - static_cast<int64_t>(batch.size() - bb.size());
    const int64_t sa = ia >= 0 ? ba[static_cast<size_t>(ia)] : 1, sb = ib >= 0 ? bb[static_cast<size_t>(ib)] : 1;
    batch[i] = sa == 1 ? sb : sa;
  }
  std::vector<int64_t> full = batch;
  full.push_back(a.sizes()[a.sizes().size() - 2]);
  full.push_back(b.sizes().back());
  Tensor out = Tensor::empty(full, result.dtype);
  batched_matmul(broadcast_batch(a, batch), broadcast_batch(b, batch), out);
  const std::vector<int64_t> sizes = result.shape.sizes();
  return out.as_strided(sizes, contiguous_strides(sizes), 0);
}

// out = beta * self + alpha * product, with self broadcast to out (addmm, baddbmm, linear).
Tensor add_scaled(const Tensor& product, const KernelOperand* self, const Scalar& beta, const Scalar& alpha) {
  Tensor out = product;
  const ElementAccess eo(out);
  const bool fp = is_floating(out.dtype());
  const bool use_self = self != nullptr && self->is_tensor();
  const std::vector<int64_t> no_strides(out.sizes().size(), 0);
  std::vector<std::vector<int64_t>> strides = {use_self ? broadcast_strides(self->tensor, out.sizes()) : no_strides,
                                               out.strides()};
  std::optional<ElementAccess> es;
  if (use_self) es.emplace(self->tensor);
  for_each_index(out.sizes(), strides, [&](int64_t, const int64_t* off) {
    if (fp) {
      double v = alpha.to_double() * eo.get(off[1]);
      // beta == 0 ignores self entirely (NaN and inf in self do not propagate), as in torch.
      if (use_self && beta.to_double() != 0) v += beta.to_double() * es->get(off[0]);
      eo.set(off[1], v);
    } else {
      uint64_t v = static_cast<uint64_t>(alpha.to_int()) * static_cast<uint64_t>(eo.get_int(off[1]));
      if (use_self && beta.to_int() != 0)
        v += static_cast<uint64_t>(beta.to_int()) * static_cast<uint64_t>(es->get_int(off[0]));
      eo.set_int(off[1], static_cast<int64_t>(v));
    }
  });
  return out;
}

Expected<std::vector<Tensor>> single(Tensor t) { return std::vector<Tensor>{std::move(t)}; }

}  // namespace

Expected<std::vector<Tensor>> kernel_mm(const KernelCall& call) {
  return single(matmul_tensors(call.operands[0].tensor, call.operands[1].tensor, call.result_types[0]));
}

Expected<std::vector<Tensor>> kernel_bmm(const KernelCall& call) {
  return single(matmul_tensors(call.operands[0].tensor, call.operands[1].tensor, call.result_types[0]));
}

Expected<std::vector<Tensor>> kernel_matmul(const KernelCall& call) {
  return single(matmul_tensors(call.operands[0].tensor, call.operands[1].tensor, call.result_types[0]));
}

Expected<std::vector<Tensor>> kernel_addmm(const KernelCall& call) {
  Tensor p = matmul_tensors(call.operands[1].tensor, call.operands[2].tensor, call.result_types[0]);
  return single(add_scaled(p, &call.operands[0], call.attr_scalar("beta"), call.attr_scalar("alpha")));
}

Expected<std::vector<Tensor>> kernel_baddbmm(const KernelCall& call) {
  Tensor p = matmul_tensors(call.operands[1].tensor, call.operands[2].tensor, call.result_types[0]);
  return single(add_scaled(p, &call.operands[0], call.attr_scalar("beta"), call.attr_scalar("alpha")));
}

Expected<std::vector<Tensor>> kernel_linear(const KernelCall& call) {
  const Tensor& w = call.operands[1].tensor;
  const Tensor wt =
      w.dim() == 2 ? w.as_strided({w.sizes()[1], w.sizes()[0]}, {w.strides()[1], w.strides()[0]}, w.offset()) : w;
  Tensor p = matmul_tensors(call.operands[0].tensor, wt, call.result_types[0]);
  const KernelOperand* bias = call.operands.size() > 2 ? &call.operands[2] : nullptr;
  if (bias == nullptr || !bias->is_tensor()) return single(p);
  return single(add_scaled(p, bias, Scalar(int64_t{1}), Scalar(int64_t{1})));
}

}  // namespace kiln
