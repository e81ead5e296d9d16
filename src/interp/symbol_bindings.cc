#include "interp/symbol_bindings.h"

#include "support/check.h"

namespace kiln {

Status SymbolBindings::bind(const TensorType& declared, const TensorType& actual, const std::string& what) {
  if (declared.dtype != actual.dtype || declared.shape.rank() != actual.shape.rank())
    return make_error(what, ": expected ", declared.to_string(), ", got ", actual.to_string());
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
    auto [it, inserted] = values_.emplace(want.symbol_name(), got.value());
    if (inserted) {
      origin_[want.symbol_name()] = what;
    } else if (it->second != got.value()) {
      return make_error(what, ": dim ", d, " gives symbol ", want.symbol_name(), " the value ", got.value(),
                        ", but ", origin_[want.symbol_name()], " gave it ", it->second);
    }
  }
  return Status::ok();
}

}  // namespace kiln
