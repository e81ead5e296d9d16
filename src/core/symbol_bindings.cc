#include "core/symbol_bindings.h"

#include "support/check.h"

namespace kiln {

Status SymbolBindings::bind(const TensorType& declared, const TensorType& actual, const std::string& what) {
  if (declared.dtype != actual.dtype || declared.shape.rank() != actual.shape.rank())
    return make_error(what, ": expected ", declared.to_string(), ", got ", actual.to_string());
  // Bare symbols first, so an expression dim (T+1) can use a symbol bound by this same type.
  for (int d = 0; d < declared.shape.rank(); ++d) {
    const Dim& want = declared.shape[d];
    const Dim& got = actual.shape[d];
    KILN_CHECK(got.is_static()) << what << ": a concrete tensor has a symbolic dim";
    if (want.is_static()) {
      if (want.value() != got.value())
        return make_error(what, ": expected ", declared.to_string(), ", got ", actual.to_string(), " (dim ", d, " is ",
                          got.value(), ", not ", want.value(), ")");
      continue;
    }
    if (!want.is_symbol()) continue;
    std::string name = want.symbol_name();
    auto [it, inserted] = values_.emplace(name, got.value());
    if (inserted) {
      origin_[name] = what;
    } else if (it->second != got.value()) {
      return make_error(what, ": dim ", d, " gives symbol ", name, " the value ", got.value(), ", but ", origin_[name],
                        " gave it ", it->second);
    }
  }
  for (int d = 0; d < declared.shape.rank(); ++d) {
    const Dim& want = declared.shape[d];
    if (want.is_static() || want.is_symbol()) continue;
    std::optional<int64_t> v = want.expr().evaluate(values_);
    if (!v)
      return make_error(what, ": dim ", d, " is the expression ", want.to_string(),
                        ", whose symbols no earlier bare dim has bound");
    if (*v != actual.shape[d].value())
      return make_error(what, ": expected ", declared.to_string(), ", got ", actual.to_string(), " (dim ", d, " is ",
                        actual.shape[d].value(), ", but ", want.to_string(), " is ", *v, ")");
  }
  return Status::ok();
}

}  // namespace kiln
