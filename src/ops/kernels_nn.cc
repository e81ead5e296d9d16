// Reference kernels of conv2d, the 2-D poolings and dropout: direct loops over an input
// viewed as [N, C, H, W] (a 3-D input is one unbatched image), in double.
#include <cmath>
#include <limits>

#include "core/random.h"
#include "ops/kernel_index_util.h"
#include "ops/kernel_util.h"
#include "ops/kernels.h"
#include "ops/rng_state.h"
#include "ops/type_rules_util.h"
#include "ops/upsample_geometry.h"

namespace kiln {

namespace {

Expected<std::vector<Tensor>> single(Tensor t) { return std::vector<Tensor>{std::move(t)}; }

// A 3-D or 4-D tensor as a 4-D view (unbatched images get a leading 1).
Tensor as_batched(const Tensor& t) {
  if (t.dim() == 4) return t;
  std::vector<int64_t> sizes = t.sizes(), strides = t.strides();
  sizes.insert(sizes.begin(), 1);
  strides.insert(strides.begin(), 0);
  return t.as_strided(sizes, strides, t.offset());
}

// Window geometry of a 2-D sliding op, read from the attributes the shape rule validated.
struct Window {
  int64_t k[2], stride[2], pad[2], dil[2] = {1, 1};
};

Window pool_window(const KernelCall& call) {
  Window w;
  const std::vector<int64_t> k = *pair_attr(call, "kernel_size", {});
  const std::vector<int64_t> s = *pair_attr(call, "stride", k);
  const std::vector<int64_t> p = *pair_attr(call, "padding", {0, 0});
  for (int i = 0; i < 2; ++i) {
    w.k[i] = k[static_cast<size_t>(i)];
    w.stride[i] = s[static_cast<size_t>(i)];
    w.pad[i] = p[static_cast<size_t>(i)];
  }
  if (call.op() == OpKind::MaxPool2d) {
    const std::vector<int64_t> d = *pair_attr(call, "dilation", {1, 1});
    w.dil[0] = d[0];
    w.dil[1] = d[1];
  }
  return w;
}

// Calls f(in4, out4, n, c, oh, ow) for every output element of a pooling op.
template <typename F>
Tensor pool(const KernelCall& call, F&& f) {
  Tensor out = new_result(call);
  const Tensor in4 = as_batched(call.operands[0].tensor), out4 = as_batched(out);
  const auto& s = out4.sizes();
  for (int64_t n = 0; n < s[0]; ++n)
    for (int64_t c = 0; c < s[1]; ++c)
      for (int64_t oh = 0; oh < s[2]; ++oh)
        for (int64_t ow = 0; ow < s[3]; ++ow) f(in4, out4, n, c, oh, ow);
  return out;
}

int64_t off4(const Tensor& t, int64_t n, int64_t c, int64_t h, int64_t w) {
  const auto& st = t.strides();
  return n * st[0] + c * st[1] + h * st[2] + w * st[3];
}

}  // namespace

Expected<std::vector<Tensor>> kernel_conv2d(const KernelCall& call) {
  const Tensor in = as_batched(call.operands[0].tensor);
  const Tensor& w = call.operands[1].tensor;
  const Tensor* bias = call.operands.size() > 2 && call.operands[2].is_tensor() ? &call.operands[2].tensor : nullptr;
  const std::vector<int64_t> stride = *pair_attr(call, "stride", {1, 1});
  const std::vector<int64_t> pad = *pair_attr(call, "padding", {0, 0});
  const std::vector<int64_t> dil = *pair_attr(call, "dilation", {1, 1});
  const int64_t groups = call.attr_int("groups");
  Tensor out = new_result(call);
  const Tensor out4 = as_batched(out);
  const auto& os = out4.sizes();
  const int64_t out_c = w.sizes()[0], in_cg = w.sizes()[1], kh = w.sizes()[2], kw = w.sizes()[3];
  const int64_t out_cg = out_c / groups, H = in.sizes()[2], W = in.sizes()[3];
  const ElementAccess ei(in), ew(w), eo(out4);
  for (int64_t n = 0; n < os[0]; ++n)
    for (int64_t oc = 0; oc < out_c; ++oc) {
      const int64_t g = oc / out_cg;
      for (int64_t oh = 0; oh < os[2]; ++oh)
        for (int64_t ow = 0; ow < os[3]; ++ow) {
          double acc = bias ? bias->item_double(oc) : 0;
          for (int64_t ic = 0; ic < in_cg; ++ic)
            for (int64_t i = 0; i < kh; ++i) {
              const int64_t h = oh * stride[0] - pad[0] + i * dil[0];
              if (h < 0 || h >= H) continue;
              for (int64_t j = 0; j < kw; ++j) {
                const int64_t x = ow * stride[1] - pad[1] + j * dil[1];
                if (x < 0 || x >= W) continue;
                acc += ei.get(off4(in, n, g * in_cg + ic, h, x)) * ew.get(off4(w, oc, ic, i, j));
              }
            }
          eo.set(off4(out4, n, oc, oh, ow), acc);
        }
    }
  return single(out);
}

Expected<std::vector<Tensor>> kernel_max_pool2d(const KernelCall& call) {
  const Window win = pool_window(call);
  const bool fp = is_floating(call.result_types[0].dtype);
  return single(pool(call, [&](const Tensor& in, const Tensor& out, int64_t n, int64_t c, int64_t oh, int64_t ow) {
    const ElementAccess ei(in), eo(out);
    const int64_t H = in.sizes()[2], W = in.sizes()[3];
    double best = -std::numeric_limits<double>::infinity();
    int64_t best_int = std::numeric_limits<int64_t>::min();
    for (int64_t i = 0; i < win.k[0]; ++i) {
      const int64_t h = oh * win.stride[0] - win.pad[0] + i * win.dil[0];
      if (h < 0 || h >= H) continue;
      for (int64_t j = 0; j < win.k[1]; ++j) {
        const int64_t x = ow * win.stride[1] - win.pad[1] + j * win.dil[1];
        if (x < 0 || x >= W) continue;
        const int64_t o = off4(in, n, c, h, x);
        if (fp) {
          const double v = ei.get(o);
          if (v > best || std::isnan(v)) best = std::isnan(best) ? best : v;  // NaN wins and stays
        } else {
          best_int = std::max(best_int, ei.get_int(o));
        }
      }
    }
    if (fp)
      eo.set(off4(out, n, c, oh, ow), best);
    else
      eo.set_int(off4(out, n, c, oh, ow), best_int);
  }));
}

Expected<std::vector<Tensor>> kernel_avg_pool2d(const KernelCall& call) {
  const Window win = pool_window(call);
  const bool count_pad = call.attr_bool("count_include_pad");
  const std::optional<int64_t> divisor = call.attr_opt_int("divisor_override");
  if (divisor && *divisor == 0) return make_error("avg_pool2d: divisor must be not zero");
  return single(pool(call, [&](const Tensor& in, const Tensor& out, int64_t n, int64_t c, int64_t oh, int64_t ow) {
    const ElementAccess ei(in), eo(out);
    const int64_t H = in.sizes()[2], W = in.sizes()[3];
    // ATen's window: clipped to the padded input for the count, then to the input for the sum.
    int64_t h0 = oh * win.stride[0] - win.pad[0], w0 = ow * win.stride[1] - win.pad[1];
    int64_t h1 = std::min(h0 + win.k[0], H + win.pad[0]), w1 = std::min(w0 + win.k[1], W + win.pad[1]);
    const int64_t pool_size = (h1 - h0) * (w1 - w0);
    h0 = std::max<int64_t>(h0, 0);
    w0 = std::max<int64_t>(w0, 0);
    h1 = std::min(h1, H);
    w1 = std::min(w1, W);
    if (h0 >= h1 || w0 >= w1) {
      eo.set(off4(out, n, c, oh, ow), 0);
      return;
    }
    double sum = 0;
    for (int64_t h = h0; h < h1; ++h)
      for (int64_t x = w0; x < w1; ++x) sum += ei.get(off4(in, n, c, h, x));
    const int64_t div = divisor ? *divisor : count_pad ? pool_size : (h1 - h0) * (w1 - w0);
    eo.set(off4(out, n, c, oh, ow), sum / static_cast<double>(div));
  }));
}

Expected<std::vector<Tensor>> kernel_adaptive_avg_pool2d(const KernelCall& call) {
  return single(pool(call, [&](const Tensor& in, const Tensor& out, int64_t n, int64_t c, int64_t oh, int64_t ow) {
    const ElementAccess ei(in), eo(out);
    const int64_t H = in.sizes()[2], W = in.sizes()[3], OH = out.sizes()[2], OW = out.sizes()[3];
    // Bin [floor(o * in / out), ceil((o + 1) * in / out)).
    const int64_t h0 = oh * H / OH, h1 = ((oh + 1) * H + OH - 1) / OH;
    const int64_t w0 = ow * W / OW, w1 = ((ow + 1) * W + OW - 1) / OW;
    double sum = 0;
    for (int64_t h = h0; h < h1; ++h)
      for (int64_t x = w0; x < w1; ++x) sum += ei.get(off4(in, n, c, h, x));
    eo.set(off4(out, n, c, oh, ow), sum / static_cast<double>((h1 - h0) * (w1 - w0)));
  }));
}

// Each output blends the four inputs at the taps of its row and column (ops/upsample_geometry.h,
// PyTorch's indices and weights), in double, rounded once.
Expected<std::vector<Tensor>> kernel_upsample_bilinear2d(const KernelCall& call) {
  const Tensor& in = call.operands[0].tensor;
  Tensor out = new_result(call);
  const bool f64 = call.result_types[0].dtype == DType::F64, corners = call.attr_bool("align_corners");
  const upsample::Taps th =
      upsample::taps(in.sizes()[2], out.sizes()[2], corners, call.attr_opt_float("scales_h"), f64);
  const upsample::Taps tw =
      upsample::taps(in.sizes()[3], out.sizes()[3], corners, call.attr_opt_float("scales_w"), f64);
  const ElementAccess ei(in), eo(out);
  const auto& s = out.sizes();
  for (int64_t n = 0; n < s[0]; ++n)
    for (int64_t c = 0; c < s[1]; ++c)
      for (int64_t oh = 0; oh < s[2]; ++oh) {
        const auto oh_index = static_cast<size_t>(oh);
        const int64_t h[2] = {th.i0[oh_index], th.i1[oh_index]};
        const double lh[2] = {1 - th.lambda1[oh_index], th.lambda1[oh_index]};
        for (int64_t ow = 0; ow < s[3]; ++ow) {
          const auto ow_index = static_cast<size_t>(ow);
          const int64_t w[2] = {tw.i0[ow_index], tw.i1[ow_index]};
          const double lw[2] = {1 - tw.lambda1[ow_index], tw.lambda1[ow_index]};
          double v = 0;
          for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 2; ++j) v += lh[i] * lw[j] * ei.get(off4(in, n, c, h[i], w[j]));
          eo.set(off4(out, n, c, oh, ow), v);
        }
      }
  return single(out);
}

Expected<std::vector<Tensor>> kernel_dropout(const KernelCall& call) {
  const Tensor& in = call.operands[0].tensor;
  const double p = call.attr_float("p");
  if (p < 0 || p > 1) return make_error("dropout: dropout probability has to be between 0 and 1, but got ", p);
  Tensor out = new_result(call);
  if (!call.attr_bool("train")) {
    out.copy_from(in);
    return single(out);
  }
  // Element i (row-major) is kept when uniform_double(stream, i) < 1 - p; every backend draws
  // the same numbers, so the same elements survive everywhere.
  const RandomStream stream = random_stream(call);
  const double scale = p == 1 ? 0 : 1 / (1 - p);
  const ElementAccess ei(in), eo(out);
  for_each_index(in.sizes(), {in.strides()}, [&](int64_t flat, const int64_t* off) {
    const bool keep = uniform_double(stream, static_cast<uint64_t>(flat)) < 1 - p;
    eo.set(flat, keep ? ei.get(off[0]) * scale : 0);
  });
  return single(out);
}

}  // namespace kiln
