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
  if (call.attr("size").is_sym_ints()) {
    std::vector<Dim> dims;
    for (const SymExpr& e : call.attr("size").as_sym_ints()) {
      if (e.is_constant() && e.constant_value() < 0)
        return make_error(call.name(), ": negative dimension ", e.constant_value(), " in size");
      dims.push_back(Dim(e));
    }
    return std::vector<Shape>{Shape(std::move(dims))};
  }
  const std::vector<int64_t>& size = call.attr_ints("size");
  for (int64_t s : size)
    if (s < 0) return make_error(call.name(), ": negative dimension ", s, " in size");
  return std::vector<Shape>{Shape::from_sizes(size)};
}

// arange with a symbolic bound (`end=(T)`): integer bounds and a positive static step give
// ceil((end - start) / step) = floor((end - start + step - 1) / step) elements, assuming
// end >= start (a guard, unless end - start is one symbol, a dim and so never negative).
Expected<std::vector<Shape>> arange_symbolic(const TypeCall& call) {
  std::vector<SymExpr> bound;
  for (const char* name : {"start", "end", "step"}) {
    const AttrValue& v = call.attr(name);
    if (!v.is_sym_int() && !v.is_int())
      return make_error(call.name(), ": a symbolic bound needs integer bounds and step, but ", name, " is ",
                        v.to_string());
    bound.push_back(v.to_sym_int());
  }
  if (!bound[2].is_constant() || bound[2].constant_value() <= 0)
    return make_error(call.name(), ": a symbolic bound needs a positive static step, got ", bound[2].to_string());
  const int64_t step = bound[2].constant_value();
  const SymExpr span = bound[1] - bound[0];
  if (!span.as_symbol()) call.assume(ShapeGuard{bound[1], GuardRel::Ge, bound[0]});  // a dim is >= 0
  const SymExpr count = step == 1 ? span : SymExpr::floor_div(span + SymExpr(step - 1), step);
  return std::vector<Shape>{Shape({Dim(count)})};
}

Expected<std::vector<Shape>> shape_rule_arange(const TypeCall& call) {
  for (const char* name : {"start", "end", "step"})
    if (call.attr(name).is_sym_int()) return arange_symbolic(call);
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
  for (const char* name : {"start", "end", "step"}) any_float |= call.attr(name).is_float();
  return std::vector<DType>{any_float ? kDefaultFloat : DType::I64};
}

Expected<std::vector<DType>> dtype_rule_like(const TypeCall& call) {
  KILN_CHECK(!call.operands.empty() && call.operands[0].is_tensor()) << call.name() << ": operand 0 is not a tensor";
  const DType t = call.attr_dtype("dtype").value_or(call.operands[0].type->dtype);
  if (call.op() == OpKind::FullLike) KILN_TRY(scalar_fits_dtype(call, call.attr_scalar("fill_value"), t));
  return std::vector<DType>{t};
}

}  // namespace kiln
