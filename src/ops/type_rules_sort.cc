// Shape and dtype rules of the ordering and counting ops: topk, sort (values and i64 indices
// along a dim) and histc (counts in `bins` bins), with torch's error texts.
#include <cmath>
#include <vector>

#include "ops/type_rules.h"
#include "ops/type_rules_util.h"

namespace kiln {

Expected<std::vector<Shape>> shape_rule_topk(const TypeCall& call) {
  Shape s = operand_type(call, 0).shape;
  KILN_ASSIGN_OR_RETURN(int d, wrap_dim_or_error("topk", call.attr_int("dim"), s.rank()));
  const int64_t k = call.attr_int("k");
  // A 0-d self is a line of one element; torch accepts k 0 and 1 there and returns it whole.
  if (s.rank() == 0) {
    if (k < 0 || k > 1)
      return make_error("topk: selected index k out of range (k=", k, ", a 0-d tensor has 1 element)");
    return std::vector<Shape>{s, s};
  }
  if (k < 0) return make_error("topk: selected index k out of range (k=", k, " is negative)");
  KILN_ASSIGN_OR_RETURN(int64_t size, static_dim("topk", s[d], "the size of dim"));
  if (k > size) return make_error("topk: selected index k out of range (k=", k, ", dim ", d, " has size ", size, ")");
  s[d] = k;
  return std::vector<Shape>{s, s};
}

Expected<std::vector<DType>> dtype_rule_topk(const TypeCall& call) {
  const DType t = operand_type(call, 0).dtype;
  if (t == DType::Bool) return make_error("topk: does not support bool input (as torch on CPU)");
  return std::vector<DType>{t, DType::I64};
}

Expected<std::vector<Shape>> shape_rule_sort(const TypeCall& call) {
  const Shape& s = operand_type(call, 0).shape;
  KILN_TRY(wrap_dim_or_error("sort", call.attr_int("dim"), s.rank()));
  return std::vector<Shape>{s, s};
}

Expected<std::vector<DType>> dtype_rule_sort(const TypeCall& call) {
  return std::vector<DType>{operand_type(call, 0).dtype, DType::I64};
}

Expected<std::vector<Shape>> shape_rule_histc(const TypeCall& call) {
  const int64_t bins = call.attr_int("bins");
  if (bins <= 0) return make_error("histc: bins must be > 0, but got ", bins);
  const Scalar lo = call.attr_scalar("min"), hi = call.attr_scalar("max");
  if (lo.is_none() || hi.is_none()) return make_error("histc: min and max must be numbers, not none");
  const double a = lo.to_double(), b = hi.to_double();
  if (std::isnan(a) || std::isnan(b) || std::isinf(a) || std::isinf(b))
    return make_error("histc: range of [", a, ", ", b, "] is not finite");
  if (a > b) return make_error("histc: max must be larger than min (min=", a, ", max=", b, ")");
  return std::vector<Shape>{Shape{bins}};
}

Expected<std::vector<DType>> dtype_rule_histc(const TypeCall& call) {
  const DType t = operand_type(call, 0).dtype;
  if (!is_floating(t)) return make_error("histc: not implemented for '", dtype_name(t), "' (self must be floating)");
  return std::vector<DType>{t};
}

}  // namespace kiln
