// The statistics of one line of softmax, log_softmax and the losses that apply log_softmax
// first (cross_entropy), written once so that they agree on infinities and NaN as torch does.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>

namespace kiln {

struct SoftmaxLine {
  double max;  // the shift: the line's max, NaN when an element is NaN, 0 for a line of -inf
  double sum;  // sum(exp(x - max))
};

// softmax is exp(x - max) / sum, log_softmax x - max - log(sum). A line with +inf gives NaN
// (inf - inf), a line of -inf gives NaN (log 0 = -inf, then -inf - -inf), as torch.
inline SoftmaxLine softmax_line(std::span<const double> x) {
  double mx = -std::numeric_limits<double>::infinity();
  for (double v : x) mx = std::isnan(v) || std::isnan(mx) ? std::numeric_limits<double>::quiet_NaN() : std::max(mx, v);
  if (std::isinf(mx) && mx < 0) mx = 0;  // exp(-inf - 0) = 0 keeps the sum 0
  double sum = 0;
  for (double v : x) sum += std::exp(v - mx);
  return {mx, sum};
}

}  // namespace kiln
