// Reference kernels of the reductions and cumsum. Each output element gathers its group of
// input values (in row-major order of the reduced dims) and folds them in double or in
// wrapping int64; ties and NaN handling follow torch (first max wins, NaN is the max). Floating
// sums are compensated (ops/compensated_sum.h): exact to a few ulps of double at any length.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>
#include <vector>

#include "ops/compensated_sum.h"
#include "ops/kernel_util.h"
#include "ops/kernels.h"
#include "ops/reduce_dims.h"

namespace kiln {

namespace {

// Values of `in` grouped by output element (output in row-major order, keepdim layout).
// torch casts the input to a reduction's dtype first (load_int_as): a bool result reads x != 0
// (0.5 is true, and 1 + -1 is two trues), other integer results truncate.
int64_t load_as(const Tensor& in, int64_t index, DType to) {
  return load_int_as(in.data_bytes(), in.dtype(), index, to);
}

template <typename T>
struct Groups {
  std::vector<std::vector<T>> values;
  int64_t group_size = 1;
};

template <typename T>
Expected<Groups<T>> gather_groups(const KernelCall& call) {
  const Tensor& in = call.operands[0].tensor;
  KILN_ASSIGN_OR_RETURN(std::vector<bool> reduced, reduced_dims(call, in.dim()));
  std::vector<int64_t> kept_sizes = in.sizes();
  Groups<T> g;
  for (size_t d = 0; d < reduced.size(); ++d) {
    if (!reduced[d]) continue;
    g.group_size *= kept_sizes[d];
    kept_sizes[d] = 1;
  }
  std::vector<int64_t> kept_strides = contiguous_strides(kept_sizes);
  for (size_t d = 0; d < reduced.size(); ++d)
    if (reduced[d]) kept_strides[d] = 0;
  int64_t n_out = 1;
  for (int64_t s : kept_sizes) n_out *= s;
  g.values.resize(static_cast<size_t>(n_out));
  for_each_index(in.sizes(), {in.strides(), kept_strides}, [&](int64_t, const int64_t* off) {
    if constexpr (std::is_same_v<T, double>) {
      g.values[static_cast<size_t>(off[1])].push_back(load_double(in.data_bytes(), in.dtype(), off[0]));
    } else {
      g.values[static_cast<size_t>(off[1])].push_back(load_as(in, off[0], call.result_types[0].dtype));
    }
  });
  return g;
}

// Writes fold(group) into a new result for every group; the fold works in double when the
// result (or, for argmax/any, the input) is floating, else in int64.
template <typename FloatFold, typename IntFold>
Expected<std::vector<Tensor>> reduce(const KernelCall& call, bool float_path, FloatFold&& ff, IntFold&& fi) {
  Tensor out = new_result(call);
  if (float_path) {
    KILN_ASSIGN_OR_RETURN(Groups<double> g, gather_groups<double>(call));
    for (size_t i = 0; i < g.values.size(); ++i)
      store_double(out.data_bytes(), out.dtype(), static_cast<int64_t>(i), ff(g.values[i]));
  } else {
    KILN_ASSIGN_OR_RETURN(Groups<int64_t> g, gather_groups<int64_t>(call));
    for (size_t i = 0; i < g.values.size(); ++i)
      store_int(out.data_bytes(), out.dtype(), static_cast<int64_t>(i), fi(g.values[i]));
  }
  return std::vector<Tensor>{out};
}

bool result_is_floating(const KernelCall& call) { return is_floating(call.result_types[0].dtype); }
bool input_is_floating(const KernelCall& call) { return is_floating(call.operands[0].tensor.dtype()); }

// amax, amin, argmax and argmin have no identity, so an empty group is an error.
Status check_nonempty_groups(const KernelCall& call) {
  const Tensor& in = call.operands[0].tensor;
  KILN_ASSIGN_OR_RETURN(std::vector<bool> reduced, reduced_dims(call, in.dim()));
  for (size_t d = 0; d < reduced.size(); ++d)
    if (reduced[d] && in.sizes()[d] == 0)
      return make_error(call.name(), ": cannot reduce over a zero-size dimension (dim ", d, ")");
  return Status::ok();
}

double sum_of(const std::vector<double>& v) {
  CompensatedSum s;
  for (double x : v) s.add(x);
  return s.value();
}

template <typename T>
T extreme(const std::vector<T>& v, bool want_max) {
  T best = v[0];
  for (T x : v) {
    if constexpr (std::is_same_v<T, double>) {
      if (std::isnan(x)) return x;
    }
    if (want_max ? x > best : x < best) best = x;
  }
  return best;
}

// Index of the first extreme element; the first NaN counts as the extreme.
template <typename T>
int64_t arg_extreme(const std::vector<T>& v, bool want_max) {
  size_t best = 0;
  for (size_t i = 1; i < v.size(); ++i) {
    if constexpr (std::is_same_v<T, double>) {
      if (std::isnan(v[best])) break;
      if (std::isnan(v[i])) {
        best = i;
        break;
      }
    }
    if (want_max ? v[i] > v[best] : v[i] < v[best]) best = i;
  }
  return static_cast<int64_t>(best);
}

double variance(const std::vector<double>& v, double correction) {
  const double n = static_cast<double>(v.size());
  const double mean = sum_of(v) / n;
  CompensatedSum sq;
  for (double x : v) sq.add((x - mean) * (x - mean));
  return sq.value() / std::max(0.0, n - correction);
}

double correction_of(const KernelCall& call) {
  const Scalar c = call.attr_scalar("correction");
  return c.is_none() ? 1.0 : c.to_double();
}

}  // namespace

Expected<std::vector<Tensor>> kernel_sum(const KernelCall& call) {
  return reduce(call, result_is_floating(call), sum_of, [](const std::vector<int64_t>& v) {
    int64_t s = 0;
    for (int64_t x : v) s = wrap_add(s, x);
    return s;
  });
}

Expected<std::vector<Tensor>> kernel_prod(const KernelCall& call) {
  return reduce(
      call, result_is_floating(call),
      [](const std::vector<double>& v) {
        double p = 1;
        for (double x : v) p *= x;
        return p;
      },
      [](const std::vector<int64_t>& v) {
        int64_t p = 1;
        for (int64_t x : v) p = wrap_mul(p, x);
        return p;
      });
}

// The mean of an empty group is 0/0 = NaN, as in torch.
Expected<std::vector<Tensor>> kernel_mean(const KernelCall& call) {
  return reduce(
      call, true, [](const std::vector<double>& v) { return sum_of(v) / static_cast<double>(v.size()); },
      [](const std::vector<int64_t>&) { return int64_t{0}; });
}

Expected<std::vector<Tensor>> kernel_amax(const KernelCall& call) {
  KILN_TRY(check_nonempty_groups(call));
  return reduce(
      call, result_is_floating(call), [](const std::vector<double>& v) { return extreme(v, true); },
      [](const std::vector<int64_t>& v) { return extreme(v, true); });
}

Expected<std::vector<Tensor>> kernel_amin(const KernelCall& call) {
  KILN_TRY(check_nonempty_groups(call));
  return reduce(
      call, result_is_floating(call), [](const std::vector<double>& v) { return extreme(v, false); },
      [](const std::vector<int64_t>& v) { return extreme(v, false); });
}

Expected<std::vector<Tensor>> kernel_argmax(const KernelCall& call) {
  KILN_TRY(check_nonempty_groups(call));
  return reduce(
      call, input_is_floating(call),
      [](const std::vector<double>& v) { return static_cast<double>(arg_extreme(v, true)); },
      [](const std::vector<int64_t>& v) { return arg_extreme(v, true); });
}

Expected<std::vector<Tensor>> kernel_argmin(const KernelCall& call) {
  KILN_TRY(check_nonempty_groups(call));
  return reduce(
      call, input_is_floating(call),
      [](const std::vector<double>& v) { return static_cast<double>(arg_extreme(v, false)); },
      [](const std::vector<int64_t>& v) { return arg_extreme(v, false); });
}

// With fewer elements than `correction` the divisor is clamped to 0 (giving inf or NaN).
Expected<std::vector<Tensor>> kernel_var(const KernelCall& call) {
  const double c = correction_of(call);
  return reduce(
      call, true, [&](const std::vector<double>& v) { return variance(v, c); },
      [](const std::vector<int64_t>&) { return int64_t{0}; });
}

Expected<std::vector<Tensor>> kernel_std(const KernelCall& call) {
  const double c = correction_of(call);
  return reduce(
      call, true, [&](const std::vector<double>& v) { return std::sqrt(variance(v, c)); },
      [](const std::vector<int64_t>&) { return int64_t{0}; });
}

// Shifted by the group's max, which counts as 0 when infinite (so all -inf gives -inf and
// any +inf gives +inf instead of NaN).
Expected<std::vector<Tensor>> kernel_logsumexp(const KernelCall& call) {
  return reduce(
      call, true,
      [](const std::vector<double>& v) {
        double m = -std::numeric_limits<double>::infinity();
        for (double x : v) m = std::isnan(x) || std::isnan(m) ? x + m : std::max(m, x);
        if (std::isinf(m)) m = 0;
        CompensatedSum s;
        for (double x : v) s.add(std::exp(x - m));
        return std::log(s.value()) + m;
      },
      [](const std::vector<int64_t>&) { return int64_t{0}; });
}

Expected<std::vector<Tensor>> kernel_any(const KernelCall& call) {
  return reduce(
      call, input_is_floating(call),
      [](const std::vector<double>& v) {
        for (double x : v)
          if (x != 0) return 1.0;
        return 0.0;
      },
      [](const std::vector<int64_t>& v) -> int64_t {
        for (int64_t x : v)
          if (x != 0) return 1;
        return 0;
      });
}

Expected<std::vector<Tensor>> kernel_all(const KernelCall& call) {
  return reduce(
      call, input_is_floating(call),
      [](const std::vector<double>& v) {
        for (double x : v)
          if (x == 0) return 0.0;
        return 1.0;
      },
      [](const std::vector<int64_t>& v) -> int64_t {
        for (int64_t x : v)
          if (x == 0) return 0;
        return 1;
      });
}

// Running sums along `dim`, accumulated in double or wrapping int64 and rounded per element.
Expected<std::vector<Tensor>> kernel_cumsum(const KernelCall& call) {
  const Tensor& in = call.operands[0].tensor;
  const int64_t dim_attr = call.attr_int("dim");
  std::optional<int> dim = wrap_dim(dim_attr, in.dim() == 0 ? 1 : in.dim());
  if (!dim) return make_error(call.name(), ": dim ", dim_attr, " is out of range for a tensor of rank ", in.dim());
  Tensor out = new_result(call);
  if (in.dim() == 0) {
    out.copy_from(in);
    return std::vector<Tensor>{out};
  }
  // Iterate the outer index space with the scanned dim collapsed to 1, then walk along it.
  std::vector<int64_t> outer = in.sizes();
  const int64_t len = outer[static_cast<size_t>(*dim)];
  outer[static_cast<size_t>(*dim)] = 1;
  const int64_t in_step = in.strides()[static_cast<size_t>(*dim)], out_step = out.strides()[static_cast<size_t>(*dim)];
  const bool float_path = is_floating(out.dtype());
  for_each_index(outer, {in.strides(), out.strides()}, [&](int64_t, const int64_t* off) {
    double acc = 0;
    int64_t iacc = 0;
    for (int64_t k = 0; k < len; ++k) {
      if (float_path) {
        acc += load_double(in.data_bytes(), in.dtype(), off[0] + k * in_step);
        store_double(out.data_bytes(), out.dtype(), off[1] + k * out_step, acc);
      } else {
        iacc = wrap_add(iacc, load_as(in, off[0] + k * in_step, out.dtype()));
        store_int(out.data_bytes(), out.dtype(), off[1] + k * out_step, iacc);
      }
    }
  });
  return std::vector<Tensor>{out};
}

}  // namespace kiln
