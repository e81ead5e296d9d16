// Reference kernels of topk, sort and histc. topk and sort stable-sort each line along `dim`
// (NaN above every number, equal elements in index order, ops.def); histc bins as torch's
// histogramdd_cpu_contiguous does with linear interpolation, rounding each step to self's dtype.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <optional>
#include <vector>

#include "ops/kernel_util.h"
#include "ops/kernels.h"
#include "ops/type_rules_util.h"

namespace kiln {

namespace {

// One element of a line: its value (double for floating dtypes, int64 else) and its index.
struct Entry {
  double f = 0;
  int64_t i = 0;
  int64_t index = 0;
};

// Whether a comes before b: larger first when `descending`, NaN the largest; ties keep the
// order of the stable sort that applies this.
bool before(const Entry& a, const Entry& b, bool floating, bool descending) {
  if (!floating) return descending ? a.i > b.i : a.i < b.i;
  const bool an = std::isnan(a.f), bn = std::isnan(b.f);
  if (an || bn) return descending ? an && !bn : bn && !an;
  return descending ? a.f > b.f : a.f < b.f;
}

// Sorts every line of self along `dim` and writes the first `keep` entries of each into
// values and indices (results 0 and 1).
Expected<std::vector<Tensor>> sort_lines(const KernelCall& call, int64_t keep, bool descending) {
  const Tensor& in = call.operands[0].tensor;
  Tensor values = new_result(call, 0), indices = new_result(call, 1);
  if (in.dim() == 0) {  // one element, kept whatever k is (0 or 1, as torch)
    values.copy_from(in);
    store_int(indices.data_bytes(), DType::I64, 0, 0);
    return std::vector<Tensor>{values, indices};
  }
  KILN_ASSIGN_OR_RETURN(int d, wrap_dim_or_error(call.name(), call.attr_int("dim"), in.dim()));
  const size_t ud = static_cast<size_t>(d);
  std::vector<int64_t> outer = in.sizes();
  const int64_t len = outer[ud];
  outer[ud] = 1;
  const bool floating = is_floating(in.dtype());
  const int64_t in_step = in.strides()[ud], v_step = values.strides()[ud], i_step = indices.strides()[ud];
  std::vector<Entry> line(static_cast<size_t>(len));
  for_each_index(outer, {in.strides(), values.strides(), indices.strides()}, [&](int64_t, const int64_t* off) {
    for (int64_t j = 0; j < len; ++j) {
      Entry& e = line[static_cast<size_t>(j)];
      e.index = j;
      if (floating)
        e.f = load_double(in.data_bytes(), in.dtype(), off[0] + j * in_step);
      else
        e.i = load_int(in.data_bytes(), in.dtype(), off[0] + j * in_step);
    }
    std::stable_sort(line.begin(), line.end(),
                     [&](const Entry& a, const Entry& b) { return before(a, b, floating, descending); });
    for (int64_t j = 0; j < keep; ++j) {
      const Entry& e = line[static_cast<size_t>(j)];
      if (floating)
        store_double(values.data_bytes(), values.dtype(), off[1] + j * v_step, e.f);
      else
        store_int(values.data_bytes(), values.dtype(), off[1] + j * v_step, e.i);
      store_int(indices.data_bytes(), DType::I64, off[2] + j * i_step, e.index);
    }
  });
  return std::vector<Tensor>{values, indices};
}

// `v` rounded to dtype `t` (a floating dtype), as a value of t would hold it.
double round_to(DType t, double v) {
  alignas(8) std::array<std::byte, 8> buf{};
  store_double(buf.data(), t, 0, v);
  return load_double(buf.data(), t, 0);
}

}  // namespace

Expected<std::vector<Tensor>> kernel_topk(const KernelCall& call) {
  const Tensor& in = call.operands[0].tensor;
  const int64_t k = call.attr_int("k");
  const int64_t keep = in.dim() == 0 ? 1 : k;
  return sort_lines(call, keep, call.attr_bool("largest"));
}

Expected<std::vector<Tensor>> kernel_sort(const KernelCall& call) {
  const Tensor& in = call.operands[0].tensor;
  KILN_ASSIGN_OR_RETURN(int d, wrap_dim_or_error("sort", call.attr_int("dim"), in.dim()));
  const int64_t len = in.dim() == 0 ? 1 : in.sizes()[static_cast<size_t>(d)];
  return sort_lines(call, len, call.attr_bool("descending"));
}

// torch.histc: edges lo and hi (the attributes, or the data's extremes when they are equal)
// rounded to self's dtype; x in [lo, hi] goes to bin (x - lo) * bins / (hi - lo), each step
// rounded to self's dtype and truncated, hi itself to the last bin.
Expected<std::vector<Tensor>> kernel_histc(const KernelCall& call) {
  const Tensor& in = call.operands[0].tensor;
  const DType t = in.dtype();
  const int64_t bins = call.attr_int("bins");
  double lo = call.attr_scalar("min").to_double(), hi = call.attr_scalar("max").to_double();
  std::vector<double> xs;
  xs.reserve(static_cast<size_t>(in.numel()));
  for_each_index(in.sizes(), {in.strides()},
                 [&](int64_t, const int64_t* off) { xs.push_back(load_double(in.data_bytes(), t, off[0])); });
  if (lo == hi && !xs.empty()) {
    lo = xs[0];
    hi = xs[0];
    for (double x : xs) {
      if (std::isnan(x) || std::isnan(lo)) {
        lo = hi = x + lo;
        break;
      }
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  lo = round_to(t, lo);
  hi = round_to(t, hi);
  if (std::isnan(lo) || std::isnan(hi) || std::isinf(lo) || std::isinf(hi))
    return make_error("histc: range of [", lo, ", ", hi, "] is not finite");
  if (!(lo < hi)) return make_error("histc: max must be larger than min (min=", lo, ", max=", hi, ")");
  std::vector<int64_t> counts(static_cast<size_t>(bins), 0);
  const double width = round_to(t, hi - lo), scale = round_to(t, static_cast<double>(bins));
  for (double x : xs) {
    if (!(x >= lo && x <= hi)) continue;
    const double scaled = round_to(t, round_to(t, x - lo) * scale);
    int64_t pos = static_cast<int64_t>(round_to(t, scaled / width));
    if (pos == bins) pos = bins - 1;
    ++counts[static_cast<size_t>(pos)];
  }
  Tensor out = new_result(call);
  for (int64_t b = 0; b < bins; ++b)
    store_double(out.data_bytes(), out.dtype(), b, static_cast<double>(counts[static_cast<size_t>(b)]));
  return std::vector<Tensor>{out};
}

}  // namespace kiln
