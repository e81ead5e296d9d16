// upsample_bilinear2d's source indices and weights (see upsample_geometry.h).
#include "ops/upsample_geometry.h"

#include <algorithm>
#include <cmath>

namespace kiln::upsample {

namespace {

template <typename T>
T scale_in(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  if (align_corners) return out > 1 ? static_cast<T>(in - 1) / static_cast<T>(out - 1) : T(0);
  if (scale && *scale > 0) return static_cast<T>(1.0 / *scale);
  return static_cast<T>(in) / static_cast<T>(out);
}

template <typename T>
Taps taps_in(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  const T s = scale_in<T>(in, out, align_corners, scale);
  Taps t;
  for (int64_t o = 0; o < out; ++o) {
    T src = align_corners ? s * static_cast<T>(o) : s * (static_cast<T>(o) + T(0.5)) - T(0.5);
    if (!align_corners && src < T(0)) src = T(0);
    const int64_t i0 = std::min(static_cast<int64_t>(std::floor(src)), in - 1);
    const T lambda = std::min(std::max(src - static_cast<T>(i0), T(0)), T(1));
    t.i0.push_back(i0);
    t.i1.push_back(i0 + (i0 < in - 1 ? 1 : 0));
    t.lambda1.push_back(static_cast<double>(lambda));
  }
  return t;
}

}  // namespace

int64_t scaled_size(int64_t in, double scale) {
  return static_cast<int64_t>(std::floor(static_cast<double>(in) * scale));
}

double source_scale(int64_t in, int64_t out, bool align_corners, std::optional<double> scale, bool f64) {
  return f64 ? scale_in<double>(in, out, align_corners, scale)
             : static_cast<double>(scale_in<float>(in, out, align_corners, scale));
}

Taps taps(int64_t in, int64_t out, bool align_corners, std::optional<double> scale, bool f64) {
  return f64 ? taps_in<double>(in, out, align_corners, scale) : taps_in<float>(in, out, align_corners, scale);
}

}  // namespace kiln::upsample
