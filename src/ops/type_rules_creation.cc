// Shape and dtype rules of creation ops (full, zeros, arange, rand, ..., *_like).
#include <cmath>
#include <vector>

#include "ops/arange_count.h"
#include "ops/type_rules.h"
#include "ops/type_rules_util.h"
#include "support/check.h"

namespace kiln {

Expected<int64_t> arange_count(const OpCallBase& call) {
  const Scalar start = call.attr_scalar("start"), end = call.attr_scalar("end"), step = call.attr_scalar("step");
  if (step.to_double() == 0) return make_error(call.name(), ": step must be nonzero");
  const double span = end.to_double() - start.to_double();
  if ((span > 0 && step.to_double() < 0) || (span < 0 && step.to_double() > 0))
    return make_error(call.name(), ": upper bound and lower bound inconsistent with step sign");
  if (!start.is_float() && !end.is_float() && !step.is_float()) {
    // Exact for integers, where the double formula could round for large bounds.
    const int64_t s = step.to_int();
    int64_t d = 0, n = 0;
    if (__builtin_sub_overflow(end.to_int(), start.to_int(), &d) || __builtin_add_overflow(d, s - (s > 0 ? 1 : -1), &n))
      return make_error(call.name(), ": the range is too large");
    return n / s;
  }
  const double count = std::ceil(span / step.to_double());
  if (!std::isfinite(count) || count >= 9.0e18)
    return make_error(call.name(), ": the range is not finite or too large");
  return static_cast<int64_t>(count);
}

Expected<std::vector<Shape>> shape_rule_size_attr(const TypeCall& call) {
  const std::vector<int64_t>& size = call.attr_ints("size");
  for (int64_t s : size)
    if (s < 0) return make_error(call.name(), ": negative dimension ", s, " in size");
  return std::vector<Shape>{Shape::from_sizes(size)};
}

Expected<std::vector<Shape>> shape_rule_arange(const TypeCall& call) {
  KILN_ASSIGN_OR_RETURN(int64_t n, arange_count(call));
  return std::vector<Shape>{Shape{n}};
}

Expected<std::vector<Shape>> shape_rule_randperm(const TypeCall& call) {
  const int64_t n = call.attr_int("n");
  if (n < 0) return make_error(call.name(), ": n must be non-negative, got ", n);
  return std::vector<Shape>{Shape{n}};
}

Expected<std::vector<DType>> dtype_rule_full(const TypeCall& call) {
  const Scalar value = call.attr_scalar("fill_value");
  const DType t = call.attr_dtype("dtype").value_or(value.natural_dtype());
  KILN_TRY(scalar_fits_dtype(call, value, t));
  return std::vector<DType>{t};
}

Expected<std::vector<DType>> dtype_rule_factory(const TypeCall& call) {
  return std::vector<DType>{call.attr_dtype("dtype").value_or(kDefaultFloat)};
}

Expected<std::vector<DType>> dtype_rule_factory_float(const TypeCall& call) {
  const DType t = call.attr_dtype("dtype").value_or(kDefaultFloat);
  if (!is_floating(t)) return make_error(call.name(), ": dtype must be floating, not ", dtype_name(t));
  return std::vector<DType>{t};
}

Expected<std::vector<DType>> dtype_rule_factory_index(const TypeCall& call) {
  const DType t = call.attr_dtype("dtype").value_or(DType::I64);
  if (t == DType::Bool) return make_error(call.name(), ": dtype must not be bool");
  return std::vector<DType>{t};
}

// Integer bounds give i64, any floating bound gives the default float.
Expected<std::vector<DType>> dtype_rule_arange(const TypeCall& call) {
  if (std::optional<DType> d = call.attr_dtype("dtype")) return std::vector<DType>{*d};
  bool any_float = false;
  for (const char* name : {"start", "end", "step"}) any_float |= call.attr_scalar(name).is_float();
  return std::vector<DType>{any_float ? kDefaultFloat : DType::I64};
}

Expected<std::vector<DType>> dtype_rule_like(const TypeCall& call) {
  KILN_CHECK(!call.operands.empty() && call.operands[0].is_tensor()) << call.name() << ": operand 0 is not a tensor";
  const DType t = call.attr_dtype("dtype").value_or(call.operands[0].type->dtype);
  if (call.op() == OpKind::FullLike) KILN_TRY(scalar_fits_dtype(call, call.attr_scalar("fill_value"), t));
  return std::vector<DType>{t};
}

}  // namespace kiln
