#include "passes/conv_taps.h"

#include "ops/type_rules_util.h"
#include "support/check.h"

namespace kiln::conv {

namespace {

// Attribute `name` of a verified conv2d node as two ints.
std::vector<int64_t> pair(const OpCallBase& attrs, std::string_view name, int64_t fallback) {
  Expected<std::vector<int64_t>> v = pair_attr(attrs, name, {fallback, fallback});
  KILN_CHECK(v.has_value()) << v.error().to_string();
  return *v;
}

}  // namespace

Geometry geometry(const OpCallBase& attrs, const Shape& input, const Shape& weight, const Shape& result) {
  const std::vector<int64_t> stride = pair(attrs, "stride", 1), pad = pair(attrs, "padding", 0),
                             dil = pair(attrs, "dilation", 1);
  Geometry geo;
  for (size_t d = 0; d < 2; ++d) {
    const int in = input.rank() - 2 + static_cast<int>(d), out = result.rank() - 2 + static_cast<int>(d);
    KILN_CHECK(input[in].is_static() && result[out].is_static())
        << "conv2d: symbolic spatial size in " << input.to_string() << " -> " << result.to_string();
    geo.stride[d] = stride[d];
    geo.pad[d] = pad[d];
    geo.dil[d] = dil[d];
    geo.k[d] = weight[2 + static_cast<int>(d)].value();
    geo.out[d] = result[out].value();
    geo.padded[d] = input[in].value() + 2 * pad[d];
  }
  return geo;
}

Value* pad_hw(GraphBuilder& b, Value* v, int64_t h_lo, int64_t h_hi, int64_t w_lo, int64_t w_hi) {
  return b.apply1(OpKind::ConstantPadNd, {v}, {{"pad", AttrValue::Ints{w_lo, w_hi, h_lo, h_hi}}});
}

Value* tap(GraphBuilder& b, Value* xpad, const Geometry& geo, const int64_t (&at)[2]) {
  Value* v = xpad;
  for (int d = 0; d < 2; ++d) {
    const int64_t start = at[d] * geo.dil[d];
    v = b.apply1(OpKind::Slice, {v},
                 {{"dim", int64_t{2 + d}},
                  {"start", start},
                  {"end", start + (geo.out[d] - 1) * geo.stride[d] + 1},
                  {"step", geo.stride[d]}});
  }
  return v;
}

}  // namespace kiln::conv
