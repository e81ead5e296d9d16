// Reference kernel of scaled_dot_product_attention, PyTorch's math path:
// softmax(q @ k^T * scale + mask) @ v, with a causal or explicit mask (bool: keep where
// true; float: added) and optional dropout of the attention weights.
#include <cmath>
#include <limits>

#include "core/random.h"
#include "ops/kernel_index_util.h"
#include "ops/kernel_util.h"
#include "ops/kernels.h"
#include "ops/rng_state.h"

namespace kiln {

Expected<std::vector<Tensor>> kernel_scaled_dot_product_attention(const KernelCall& call) {
  const Tensor &q0 = call.operands[0].tensor, &k0 = call.operands[1].tensor, &v0 = call.operands[2].tensor;
  const Tensor* mask0 = call.operands.size() > 3 && call.operands[3].is_tensor() ? &call.operands[3].tensor : nullptr;
  const bool causal = call.attr_bool("is_causal");
  if (causal && mask0 != nullptr)
    return make_error("scaled_dot_product_attention: explicit attn_mask should not be set when is_causal=True");
  const double p = call.attr_float("dropout_p");
  if (p < 0 || p > 1) return make_error("scaled_dot_product_attention: dropout_p must be in [0, 1], got ", p);
  Tensor out = new_result(call);
  const std::vector<int64_t>& os = out.sizes();
  const std::vector<int64_t> batch(os.begin(), os.end() - 2);
  const Tensor q = broadcast_batch(q0, batch), k = broadcast_batch(k0, batch), v = broadcast_batch(v0, batch);
  const size_t r = os.size();
  const int64_t L = q.sizes()[r - 2], E = q.sizes()[r - 1], S = k.sizes()[r - 2], Ev = v.sizes()[r - 1];
  std::vector<int64_t> score_sizes = batch;
  score_sizes.push_back(L);
  score_sizes.push_back(S);
  std::optional<Tensor> mask;
  if (mask0) mask = mask0->as_strided(score_sizes, broadcast_strides(*mask0, score_sizes), mask0->offset());
  const double scale = call.attr_opt_float("scale").value_or(1 / std::sqrt(static_cast<double>(E)));
  const RandomStream stream = random_stream(call);
  const ElementAccess eq(q), ek(k), ev(v), eo(out);
  std::optional<ElementAccess> em;
  if (mask) em.emplace(*mask);
  const auto st = [](const Tensor& t, size_t i) { return t.strides()[i]; };
  std::vector<double> w(static_cast<size_t>(S));
  for_each_index(batch,
                 {{q.strides().begin(), q.strides().end() - 2},
                  {k.strides().begin(), k.strides().end() - 2},
                  {v.strides().begin(), v.strides().end() - 2},
                  {out.strides().begin(), out.strides().end() - 2},
                  mask ? std::vector<int64_t>(mask->strides().begin(), mask->strides().end() - 2)
                       : std::vector<int64_t>(batch.size(), 0)},
                 [&](int64_t flat_batch, const int64_t* off) {
                   for (int64_t i = 0; i < L; ++i) {
                     double mx = -std::numeric_limits<double>::infinity();
                     for (int64_t j = 0; j < S; ++j) {
                       double s = 0;
                       for (int64_t e = 0; e < E; ++e)
                         s += eq.get(off[0] + i * st(q, r - 2) + e * st(q, r - 1)) *
                              ek.get(off[1] + j * st(k, r - 2) + e * st(k, r - 1));
                       s *= scale;
                       if (causal && j > i) s = -std::numeric_limits<double>::infinity();
                       if (mask) {
                         const int64_t mo = off[4] + i * st(*mask, r - 2) + j * st(*mask, r - 1);
                         if (mask->dtype() == DType::Bool)
                           s = em->get_int(mo) != 0 ? s : -std::numeric_limits<double>::infinity();
                         else
                           s += em->get(mo);
                       }
                       w[static_cast<size_t>(j)] = s;
                       mx = std::isnan(s) || std::isnan(mx) ? std::nan("") : std::max(mx, s);
                     }
                     // A fully masked row (every score -inf) gets zero weights, as torch's _safe_softmax does.
                     const bool masked_row = std::isinf(mx) && mx < 0;
                     const double shift = std::isinf(mx) ? 0 : mx;
                     double sum = 0;
                     for (double& x : w) sum += (x = std::exp(x - shift));
                     for (int64_t j = 0; j < S; ++j) {
                       double& x = w[static_cast<size_t>(j)];
                       x = masked_row ? 0 : x / sum;
                       if (p > 0) {
                         // Weight (b, i, j) is kept when uniform_double(stream, its row-major index) < 1 - p.
                         const uint64_t index = static_cast<uint64_t>((flat_batch * L + i) * S + j);
                         x = p < 1 && uniform_double(stream, index) < 1 - p ? x / (1 - p) : 0;
                       }
                     }
                     for (int64_t e = 0; e < Ev; ++e) {
                       double acc = 0;
                       for (int64_t j = 0; j < S; ++j)
                         acc += w[static_cast<size_t>(j)] * ev.get(off[2] + j * st(v, r - 2) + e * st(v, r - 1));
                       eo.set(off[3] + i * st(out, r - 2) + e * st(out, r - 1), acc);
                     }
                   }
                 });
  return std::vector<Tensor>{out};
}

}  // namespace kiln
