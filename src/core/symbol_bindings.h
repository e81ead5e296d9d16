// Values of symbolic dims (B, T, ...) while a graph runs: each symbol takes the value of the
// first concrete dim matched against it, and every later match must agree.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "core/tensor_type.h"
#include "support/diagnostic.h"

namespace kiln {

class SymbolBindings {
 public:
  // Matches the concrete type `actual` against `declared`: same dtype and rank, equal static
  // dims, and one value per symbol. `what` names the value in errors ("input %x").
  Status bind(const TensorType& declared, const TensorType& actual, const std::string& what);

  const std::map<std::string, int64_t>& values() const { return values_; }

 private:
  std::map<std::string, int64_t> values_;
  std::map<std::string, std::string> origin_;  // symbol -> the value that bound it, for errors
};

}  // namespace kiln
