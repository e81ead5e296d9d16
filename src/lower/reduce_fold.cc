#include "lower/reduce_fold.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kiln {

namespace {

int64_t wrap_add(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
int64_t wrap_mul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

}  // namespace

ReduceFold::ReduceFold(ReduceKind kind, bool floating) : kind_(kind), floating_(floating) {
  switch (kind) {
    case ReduceKind::Prod:
      f_ = 1;
      i_ = 1;
      break;
    case ReduceKind::Max:
      f_ = -std::numeric_limits<double>::infinity();
      i_ = std::numeric_limits<int64_t>::min();
      break;
    case ReduceKind::Min:
      f_ = std::numeric_limits<double>::infinity();
      i_ = std::numeric_limits<int64_t>::max();
      break;
    default: break;
  }
}

void ReduceFold::add(double f, int64_t i, int64_t index) {
  const bool fl = floating_;
  switch (kind_) {
    case ReduceKind::Sum:
      if (fl)
        sum_.add(f);
      else
        i_ = wrap_add(i_, i);
      return;
    case ReduceKind::Prod:
      if (fl)
        f_ *= f;
      else
        i_ = wrap_mul(i_, i);
      return;
    case ReduceKind::Max:
      if (fl) {
        if (std::isnan(f) || f > f_) f_ = f;
      } else
        i_ = std::max(i_, i);
      return;
    case ReduceKind::Min:
      if (fl) {
        if (std::isnan(f) || f < f_) f_ = f;
      } else
        i_ = std::min(i_, i);
      return;
    case ReduceKind::Argmax:
    case ReduceKind::Argmin: {
      // The smallest index among the extreme points, a NaN being the extreme: the order of the
      // points does not matter, so code generation may fold them in any order.
      const bool max = kind_ == ReduceKind::Argmax;
      bool take = index_ < 0;
      if (!take && fl) {
        const bool nan = std::isnan(f), best_nan = std::isnan(f_);
        if (nan || best_nan)
          take = nan && (!best_nan || index < index_);
        else
          take = (max ? f > f_ : f < f_) || (f == f_ && index < index_);
      } else if (!take) {
        take = (max ? i > i_ : i < i_) || (i == i_ && index < index_);
      }
      if (take) {
        f_ = f;
        i_ = i;
        index_ = index;
      }
      return;
    }
    case ReduceKind::WelfordMean:
    case ReduceKind::WelfordM2: {
      // The mean is the sum over the count (an infinity or NaN propagates as in a sum);
      // Welford's running mean, which an infinity turns into NaN, only serves m2.
      const double x = fl ? f : static_cast<double>(i);
      ++count_;
      if (kind_ == ReduceKind::WelfordMean) {
        sum_.add(x);
        return;
      }
      const double d = x - mean_;
      mean_ += d / static_cast<double>(count_);
      sum_.add(d * (x - mean_));  // m2
      return;
    }
  }
}

bool ReduceFold::result_floating() const {
  if (kind_ == ReduceKind::WelfordMean || kind_ == ReduceKind::WelfordM2) return true;
  return floating_ && kind_ != ReduceKind::Argmax && kind_ != ReduceKind::Argmin;
}

double ReduceFold::result_f() const {
  if (kind_ == ReduceKind::WelfordMean)
    return count_ > 0 ? sum_.value() / static_cast<double>(count_) : std::numeric_limits<double>::quiet_NaN();
  return kind_ == ReduceKind::Sum || kind_ == ReduceKind::WelfordM2 ? sum_.value() : f_;
}

int64_t ReduceFold::result_i() const {
  return kind_ == ReduceKind::Argmax || kind_ == ReduceKind::Argmin ? index_ : i_;
}

}  // namespace kiln
