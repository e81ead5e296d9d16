#include "core/tensor_compare.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <utility>

#include "support/check.h"
#include "support/error.h"

namespace kiln {

std::string Tolerance::to_string() const {
  char buf[64];
  std::snprintf(buf, sizeof buf, "rtol %g atol %g", rtol, atol);
  return buf;
}

Tolerance default_tolerance(DType t) {
  switch (t) {
    case DType::F64: return {1e-9, 1e-12};
    case DType::F32: return {1e-5, 1e-5};
    case DType::F16:
    case DType::BF16: return {1e-2, 1e-2};
    default: return {0, 0};
  }
}

std::optional<Mismatch> worst_mismatch(const Tensor& want, const Tensor& got, Tolerance tol) {
  KILN_CHECK(want.dtype() == got.dtype() && want.sizes() == got.sizes()) << "worst_mismatch of different types";
  for (const auto& [t, what] : {std::pair{&want, "the expected tensor"}, std::pair{&got, "the computed tensor"}})
    if (Status on_host = require_on_host(*t, what, "worst_mismatch"); !on_host) throw Error(on_host.error());
  std::optional<Mismatch> worst;
  double worst_excess = 0;
  const double inf = std::numeric_limits<double>::infinity();
  for (int64_t i = 0; i < want.numel(); ++i) {
    const double a = want.item_double(i), b = got.item_double(i);
    double excess;  // how many tolerances apart (inf: never within any)
    if (!is_floating(want.dtype())) {
      if (want.item_int(i) == got.item_int(i)) continue;
      excess = inf;
    } else if (std::isnan(a) || std::isnan(b) || std::isinf(a) || std::isinf(b)) {
      if ((std::isnan(a) && std::isnan(b)) || a == b) continue;
      excess = inf;
    } else {
      const double err = std::fabs(a - b), allowed = tol.atol + tol.rtol * std::fabs(a);
      if (err <= allowed) continue;
      excess = allowed > 0 ? err / allowed : inf;
    }
    if (!worst || excess > worst_excess) {
      worst = Mismatch{i, a, b};
      worst_excess = excess;
    }
  }
  return worst;
}

}  // namespace kiln
