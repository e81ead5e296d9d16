#include "ops/type_rules_util.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "support/check.h"

namespace kiln {

Expected<int> wrap_dim_or_error(std::string_view op, int64_t dim, int rank) {
  if (auto d = wrap_dim(dim, rank)) return *d;
  int64_t r = rank == 0 ? 1 : rank;
  return make_error(op, ": dimension out of range (expected to be in range of [", -r, ", ", r - 1, "], but got ", dim,
                    ")");
}

Expected<int64_t> static_dim(std::string_view op, const Dim& d, std::string_view what) {
  if (d.is_static()) return d.value();
  return make_error(op, ": ", what, " must be static, got symbolic dim ", d.symbol_name());
}

Expected<std::vector<Shape>> in_place_shape(const TypeCall& call, std::vector<Shape> b) {
  const Shape& self = operand_type(call, 0).shape;
  if (!(b[0] == self))
    return make_error(call.name(), ": output with shape ", self.to_string(), " doesn't match the broadcast shape ",
                      b[0].to_string());
  return b;
}

const TensorType& operand_type(const TypeCall& call, int i) {
  const TypeOperand& o = call.operands[static_cast<size_t>(i)];
  KILN_CHECK(o.is_tensor()) << call.name() << ": operand " << i << " is not a tensor";
  return *o.type;
}

std::vector<int64_t> split_sizes(int64_t size, int64_t split_size) {
  std::vector<int64_t> out;
  if (size == 0 || split_size == 0) return {size == 0 ? 0 : size};
  for (int64_t start = 0; start < size; start += split_size) out.push_back(std::min(split_size, size - start));
  return out;
}

std::vector<int64_t> chunk_sizes(int64_t size, int64_t chunks) {
  if (size == 0) return std::vector<int64_t>(static_cast<size_t>(chunks), 0);
  return split_sizes(size, (size + chunks - 1) / chunks);
}

SliceBounds slice_bounds(int64_t size, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step) {
  int64_t s = start.value_or(0), e = end.value_or(size);
  if (s < 0) s += size;
  if (e < 0) e += size;
  s = std::clamp<int64_t>(s, 0, size);
  e = std::clamp<int64_t>(e, 0, size);
  int64_t len = e > s ? (e - s + step - 1) / step : 0;
  return {s, len};
}

int64_t window_output_size(int64_t in, int64_t kernel, int64_t stride, int64_t pad, int64_t dilation, bool ceil_mode) {
  int64_t span = in + 2 * pad - dilation * (kernel - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  int64_t out = (span >= 0 ? span / stride : -((-span + stride - 1) / stride)) + 1;
  // With ceil_mode, the last window must start inside the input or left padding.
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

Dim window_output_dim(const Dim& in, int64_t kernel, int64_t stride, int64_t pad, int64_t dilation) {
  return floor_div(in + Dim(2 * pad - dilation * (kernel - 1) - 1), stride) + Dim(1);
}

Expected<std::vector<int64_t>> pair_attr(const OpCallBase& call, std::string_view name,
                                         const std::vector<int64_t>& fallback) {
  const std::vector<int64_t>& v = call.attr_ints(name);
  if (v.empty()) return fallback;
  if (v.size() == 1) return std::vector<int64_t>{v[0], v[0]};
  if (v.size() == 2) return v;
  return make_error(call.name(), ": ", name, " must have 1 or 2 values, got ", v.size());
}

Status scalar_fits_dtype(const OpCallBase& call, const Scalar& v, DType t) {
  if (!is_integral(t) || v.is_bool() || (v.is_int() && t == DType::I64)) return Status::ok();
  const double lo = is_signed(t) ? -std::ldexp(1.0, dtype_size(t) * 8 - 1) : 0.0;
  const double hi = std::ldexp(1.0, dtype_size(t) * 8 - (is_signed(t) ? 1 : 0));
  const double d = v.is_int() ? static_cast<double>(v.to_int()) : v.to_double();
  // Both bounds are powers of two, exact in a double: [lo, hi) is torch's range, untruncated
  // (-0.5 does not fit u8, 255.5 does, and -2^63 fits i64); NaN fits nothing.
  const bool fits = d >= lo && d < hi;
  if (fits) return Status::ok();
  return make_error(call.name(), ": value ", v.to_string(), " cannot be converted to ", dtype_name(t),
                    " without overflow");
}

}  // namespace kiln
