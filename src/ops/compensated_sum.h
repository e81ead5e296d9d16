// A sum in double with Neumaier's compensation: the rounding error of each addition is kept in
// a second double and added at the end, so the result is within a few ulps of double of the
// exact sum, whatever the number of terms. A plain double sum of 10^8 copies of 0.1 is off by
// 1.9e-9, beyond float64's comparison tolerance (1e-9). The reference kernels' reductions and
// the loop-IR evaluator's floating sums use it: they are the oracle of every backend.
// Infinities and NaN give what a plain sum gives (no compensation once the sum is not finite).
#pragma once

#include <cmath>

namespace kiln {

class CompensatedSum {
 public:
  void add(double x) {
    const double t = sum_ + x;
    if (std::isfinite(t)) compensation_ += std::fabs(sum_) >= std::fabs(x) ? (sum_ - t) + x : (x - t) + sum_;
    sum_ = t;
  }
  double value() const { return std::isfinite(sum_) ? sum_ + compensation_ : sum_; }

 private:
  double sum_ = 0, compensation_ = 0;
};

}  // namespace kiln
