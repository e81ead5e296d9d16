// Reference kernels of softmax, log_softmax and the normalizations (layer_norm, rms_norm,
// batch_norm, group_norm). Statistics are computed in double over strided groups of
// elements; variances are biased (divide by the count), as the normalizations use them.
#include <cmath>
#include <limits>

#include "ops/kernel_index_util.h"
#include "ops/kernel_util.h"
#include "ops/kernels.h"
#include "ops/softmax_line.h"
#include "ops/type_rules_util.h"

namespace kiln {

namespace {

Expected<std::vector<Tensor>> single(Tensor t) { return std::vector<Tensor>{std::move(t)}; }

// Calls f(in_offsets, out_offsets) for each 1-D line of `in` along dim `d` (every other
// index fixed); offsets list the line's elements in order.
template <typename F>
void for_each_line(const Tensor& in, const Tensor& out, int d, F&& f) {
  std::vector<int64_t> sizes = in.sizes();
  const int64_t n = in.dim() == 0 ? 1 : sizes[static_cast<size_t>(d)];
  const int64_t in_step = in.dim() == 0 ? 0 : in.strides()[static_cast<size_t>(d)];
  const int64_t out_step = out.dim() == 0 ? 0 : out.strides()[static_cast<size_t>(d)];
  if (in.dim() > 0) sizes[static_cast<size_t>(d)] = 1;
  std::vector<int64_t> io(static_cast<size_t>(n)), oo(static_cast<size_t>(n));
  if (n == 0) return;
  for_each_index(sizes, {in.strides(), out.strides()}, [&](int64_t, const int64_t* off) {
    for (int64_t i = 0; i < n; ++i) {
      io[static_cast<size_t>(i)] = off[0] + i * in_step;
      oo[static_cast<size_t>(i)] = off[1] + i * out_step;
    }
    f(io, oo);
  });
}

Expected<std::vector<Tensor>> softmax_like(const KernelCall& call, bool log) {
  const Tensor& in = call.operands[0].tensor;
  KILN_ASSIGN_OR_RETURN(int d, wrap_dim_or_error(call.name(), call.attr_int("dim"), in.dim()));
  Tensor out = new_result(call);
  const ElementAccess ei(in), eo(out);
  std::vector<double> x;
  for_each_line(in, out, d, [&](const std::vector<int64_t>& io, const std::vector<int64_t>& oo) {
    x.resize(io.size());
    for (size_t i = 0; i < io.size(); ++i) x[i] = ei.get(io[i]);
    const SoftmaxLine line = softmax_line(x);
    const double lse = std::log(line.sum);
    for (size_t i = 0; i < io.size(); ++i)
      eo.set(oo[i], log ? x[i] - line.max - lse : std::exp(x[i] - line.max) / line.sum);
  });
  return single(out);
}

const Tensor* optional_tensor(const KernelCall& call, size_t i) {
  return i < call.operands.size() && call.operands[i].is_tensor() ? &call.operands[i].tensor : nullptr;
}

// Checks that an affine parameter has `want` sizes.
Status check_param(std::string_view op, const Tensor* p, std::string_view what, const std::vector<int64_t>& want) {
  if (p == nullptr || p->sizes() == want) return Status::ok();
  return make_error(op, ": expected ", what, " of shape ", Shape::from_sizes(want).to_string(), ", got ",
                    p->shape().to_string());
}

// Normalizes `in` over trailing dims of `inner` elements (layer_norm, rms_norm): out = (x -
// mean) * rstd * w + b, with mean = 0 when `center` is false.
Expected<std::vector<Tensor>> normalize_trailing(const KernelCall& call, bool center, double eps) {
  const Tensor& in = call.operands[0].tensor;
  const std::vector<int64_t>& norm = call.attr_ints("normalized_shape");
  const std::string_view op = call.name();
  const size_t k = norm.size();
  if (k == 0) return make_error(op, ": normalized_shape must have at least one dim");
  const bool matches =
      k <= in.sizes().size() && std::equal(norm.begin(), norm.end(), in.sizes().end() - static_cast<int64_t>(k));
  if (!matches)
    return make_error(op, ": given normalized_shape=", Shape::from_sizes(norm).to_string(),
                      ", expected input with shape [*, ", Shape::from_sizes(norm).to_string().substr(1),
                      ", but got input of size", in.shape().to_string());
  const Tensor* w = optional_tensor(call, 1);
  const Tensor* b = center ? optional_tensor(call, 2) : nullptr;
  KILN_TRY(check_param(op, w, "weight", norm));
  KILN_TRY(check_param(op, b, "bias", norm));
  const Tensor x = in.contiguous();
  const Tensor wc = w ? w->contiguous() : Tensor(), bc = b ? b->contiguous() : Tensor();
  Tensor out = new_result(call);
  const int64_t inner = numel_of(norm), outer = inner == 0 ? 0 : x.numel() / inner;
  const ElementAccess ex(x), eo(out);
  for (int64_t r = 0; r < outer; ++r) {
    double mean = 0, sq = 0;
    for (int64_t i = 0; i < inner; ++i) mean += ex.get(r * inner + i);
    mean = center ? mean / static_cast<double>(inner) : 0;
    for (int64_t i = 0; i < inner; ++i) {
      const double c = ex.get(r * inner + i) - mean;
      sq += c * c;
    }
    const double rstd = 1 / std::sqrt(sq / static_cast<double>(inner) + eps);
    for (int64_t i = 0; i < inner; ++i) {
      double y = (ex.get(r * inner + i) - mean) * rstd;
      if (w) y *= ElementAccess(wc).get(i);
      if (b) y += ElementAccess(bc).get(i);
      eo.set(r * inner + i, y);
    }
  }
  return single(out);
}

// out[n, c, ...] = (x - mean[n or -, c]) * rstd * w[c] + b[c] for channel groups of a
// contiguous input viewed as [N, G, C/G * spatial].
void affine_channels(const Tensor& x, const Tensor& out, const Tensor* w, const Tensor* b, int64_t c, int64_t spatial,
                     const std::vector<double>& mean, const std::vector<double>& rstd, bool per_sample) {
  const ElementAccess ex(x), eo(out);
  const int64_t n = c * spatial == 0 ? 0 : x.numel() / (c * spatial);
  const int64_t stat_c =
      static_cast<int64_t>(per_sample ? mean.size() / static_cast<size_t>(std::max<int64_t>(n, 1)) : mean.size());
  for (int64_t s = 0; s < n; ++s)
    for (int64_t ch = 0; ch < c; ++ch) {
      const size_t stat = static_cast<size_t>(per_sample ? s * stat_c + ch / (c / stat_c) : ch);
      const double wv = w ? w->item_double(ch) : 1, bv = b ? b->item_double(ch) : 0;
      for (int64_t i = 0; i < spatial; ++i) {
        const int64_t o = (s * c + ch) * spatial + i;
        eo.set(o, (ex.get(o) - mean[stat]) * rstd[stat] * wv + bv);
      }
    }
}

}  // namespace

Expected<std::vector<Tensor>> kernel_softmax(const KernelCall& call) { return softmax_like(call, false); }

Expected<std::vector<Tensor>> kernel_log_softmax(const KernelCall& call) { return softmax_like(call, true); }

Expected<std::vector<Tensor>> kernel_layer_norm(const KernelCall& call) {
  return normalize_trailing(call, true, call.attr_float("eps"));
}

Expected<std::vector<Tensor>> kernel_rms_norm(const KernelCall& call) {
  const double eps = call.attr_opt_float("eps").value_or(dtype_epsilon(call.operands[0].tensor.dtype()));
  return normalize_trailing(call, false, eps);
}

Expected<std::vector<Tensor>> kernel_batch_norm(const KernelCall& call) {
  const Tensor& in = call.operands[0].tensor;
  if (in.dim() < 2) return make_error("batch_norm: expected input with at least 2 dims, got ", in.shape().to_string());
  const int64_t c = in.sizes()[1], n = in.sizes()[0], spatial = numel_of(in.sizes(), 2);
  const Tensor *w = optional_tensor(call, 1), *b = optional_tensor(call, 2);
  const Tensor *rm = optional_tensor(call, 3), *rv = optional_tensor(call, 4);
  for (auto [p, what] : {std::pair{w, "weight"}, {b, "bias"}, {rm, "running_mean"}, {rv, "running_var"}})
    KILN_TRY(check_param("batch_norm", p, what, {c}));
  const bool training = call.attr_bool("training");
  const double eps = call.attr_float("eps");
  std::vector<double> mean(static_cast<size_t>(c)), rstd(static_cast<size_t>(c));
  const Tensor x = in.contiguous();
  if (training) {
    if (n * spatial <= 1)
      return make_error("batch_norm: expected more than 1 value per channel when training, got input size ",
                        in.shape().to_string());
    const ElementAccess ex(x);
    for (int64_t ch = 0; ch < c; ++ch) {
      double sum = 0, sq = 0;
      for (int64_t s = 0; s < n; ++s)
        for (int64_t i = 0; i < spatial; ++i) sum += ex.get((s * c + ch) * spatial + i);
      const double m = sum / static_cast<double>(n * spatial);
      for (int64_t s = 0; s < n; ++s)
        for (int64_t i = 0; i < spatial; ++i) {
          const double d = ex.get((s * c + ch) * spatial + i) - m;
          sq += d * d;
        }
      mean[static_cast<size_t>(ch)] = m;
      rstd[static_cast<size_t>(ch)] = 1 / std::sqrt(sq / static_cast<double>(n * spatial) + eps);
    }
  } else {
    if (rm == nullptr || rv == nullptr)
      return make_error("batch_norm: running_mean and running_var must be defined in evaluation mode");
    for (int64_t ch = 0; ch < c; ++ch) {
      mean[static_cast<size_t>(ch)] = rm->item_double(ch);
      rstd[static_cast<size_t>(ch)] = 1 / std::sqrt(rv->item_double(ch) + eps);
    }
  }
  Tensor out = new_result(call);
  affine_channels(x, out, w, b, c, spatial, mean, rstd, false);
  return single(out);
}

Expected<std::vector<Tensor>> kernel_group_norm(const KernelCall& call) {
  const Tensor& in = call.operands[0].tensor;
  const int64_t g = call.attr_int("num_groups");
  if (in.dim() < 2) return make_error("group_norm: expected input with at least 2 dims, got ", in.shape().to_string());
  const int64_t n = in.sizes()[0], c = in.sizes()[1], spatial = numel_of(in.sizes(), 2);
  if (g <= 0 || c % g != 0)
    return make_error(
        "group_norm: expected number of channels in input to be divisible by num_groups, but got input "
        "of shape ",
        in.shape().to_string(), " and num_groups=", g);
  const Tensor *w = optional_tensor(call, 1), *b = optional_tensor(call, 2);
  KILN_TRY(check_param("group_norm", w, "weight", {c}));
  KILN_TRY(check_param("group_norm", b, "bias", {c}));
  const Tensor x = in.contiguous();
  const ElementAccess ex(x);
  const int64_t group_size = c / g * spatial;
  std::vector<double> mean(static_cast<size_t>(n * g)), rstd(static_cast<size_t>(n * g));
  for (int64_t k = 0; k < n * g; ++k) {
    double sum = 0, sq = 0;
    for (int64_t i = 0; i < group_size; ++i) sum += ex.get(k * group_size + i);
    const double m = group_size == 0 ? 0 : sum / static_cast<double>(group_size);
    for (int64_t i = 0; i < group_size; ++i) {
      const double d = ex.get(k * group_size + i) - m;
      sq += d * d;
    }
    mean[static_cast<size_t>(k)] = m;
    rstd[static_cast<size_t>(k)] = 1 / std::sqrt(sq / static_cast<double>(group_size) + call.attr_float("eps"));
  }
  Tensor out = new_result(call);
  affine_channels(x, out, w, b, c, spatial, mean, rstd, true);
  return single(out);
}

}  // namespace kiln
