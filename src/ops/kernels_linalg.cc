// Reference kernels of the contractions. Every op reduces to one batched matrix product over
// operands viewed (without copying) as [batch..., n, k] and [batch..., k, m]; floating
// dtypes accumulate in double, integral ones in int64 with wrap-around like torch.
#include <algorithm>
#include <cstdint>
#include <optional>

#include "ops/kernel_index_util.h"
#include "ops/kernel_util.h"
#include "ops/kernels.h"
#include "support/check.h"

namespace kiln {

namespace {

// A view of `t` (rank >= 2) with its batch dims broadcast to `batch`.
Tensor broadcast_batch(const Tensor& t, const std::vector<int64_t>& batch) {
  const int r = t.dim();
  std::vector<int64_t> sizes = batch, strides;
  Tensor batch_part = t.as_strided({t.sizes().begin(), t.sizes().end() - 2}, {t.strides().begin(), t.strides().end() - 2},
                                   t.offset());
  strides = broadcast_strides(batch_part, batch);
  sizes.push_back(t.sizes()[static_cast<size_t>(r - 2)]);
  sizes.push_back(t.sizes()[static_cast<size_t>(r - 1)]);
  strides.push_back(t.strides()[static_cast<size_t>(r - 2)]);
  strides.push_back(t.strides()[static_cast<size_t>(r - 1)]);
  return t.as_strided(sizes, strides, t.offset());
}

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
  std::vector<std::vector<int64_t>> strides = {
      {a.strides().begin(), a.strides().end() - 2},
      {b.strides().begin(), b.strides().end() - 2},
      {out.strides().begin(), out.strides().end() - 2}};
  const auto one_batch = [&](const int64_t* off) {
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < m; ++j) {
        const int64_t pa = off[0] + i * a_n, pb = off[1] + j * b_m, po = off[2] + i * o_n + j * o_m;
        if (fp) {
          double acc = 0;
          for (int64_t p = 0; p < k; ++p) acc += ea.get(pa + p * a_k) * eb.get(pb + p * b_k);
          eo.set(po, acc);
        } else {
          uint64_t acc = 0;  // unsigned: wraps instead of overflowing
          for (int64_t p = 0; p < k; ++p)
            acc += static_cast<uint64_t>(ea.get_int(pa + p * a_k)) * static_cast<uint64_t>(eb.get_int(pb + p * b_k));
          eo.set_int(po, static_cast<int64_t>(acc));
        }
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
  const Tensor wt = w.dim() == 2 ? w.as_strided({w.sizes()[1], w.sizes()[0]}, {w.strides()[1], w.strides()[0]}, w.offset())
                                 : w;
  Tensor p = matmul_tensors(call.operands[0].tensor, wt, call.result_types[0]);
  const KernelOperand* bias = call.operands.size() > 2 ? &call.operands[2] : nullptr;
  if (bias == nullptr || !bias->is_tensor()) return single(p);
  return single(add_scaled(p, bias, Scalar(int64_t{1}), Scalar(int64_t{1})));
}

}  // namespace kiln
