// Attribute values of IR nodes (`{dim=[1], keepdim=true}`) and a small sorted map of them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "core/dtype.h"
#include "core/scalar.h"

namespace kiln {

class AttrValue {
 public:
  using Ints = std::vector<int64_t>;
  AttrValue() = default;                             // none
  AttrValue(bool v) : v_(v) {}                       // NOLINT
  AttrValue(int v) : v_(static_cast<int64_t>(v)) {}  // NOLINT
  AttrValue(int64_t v) : v_(v) {}                    // NOLINT
  AttrValue(double v) : v_(v) {}                     // NOLINT
  AttrValue(std::string v) : v_(std::move(v)) {}     // NOLINT
  AttrValue(const char* v) : v_(std::string(v)) {}   // NOLINT
  AttrValue(Ints v) : v_(std::move(v)) {}            // NOLINT
  AttrValue(DType v) : v_(v) {}                      // NOLINT
  static AttrValue from_scalar(const Scalar& s);

  bool is_none() const { return v_.index() == 0; }
  bool is_bool() const { return v_.index() == 1; }
  bool is_int() const { return v_.index() == 2; }
  bool is_float() const { return v_.index() == 3; }
  bool is_string() const { return v_.index() == 4; }
  bool is_ints() const { return v_.index() == 5; }
  bool is_dtype() const { return v_.index() == 6; }

  bool as_bool() const { return std::get<1>(v_); }
  int64_t as_int() const { return std::get<2>(v_); }
  double as_float() const { return is_int() ? static_cast<double>(as_int()) : std::get<3>(v_); }
  const std::string& as_string() const { return std::get<4>(v_); }
  const Ints& as_ints() const { return std::get<5>(v_); }
  DType as_dtype() const { return std::get<6>(v_); }
  Scalar as_scalar() const;  // none/bool/int/float

  // IR text: `none`, `true`, `3`, `1e-05`, `"tanh"`, `[1, 2]`, `f32`.
  std::string to_string() const;
  bool operator==(const AttrValue& o) const;

 private:
  std::variant<std::monostate, bool, int64_t, double, std::string, Ints, DType> v_;
};

// Attributes given explicitly on a node, sorted by name. Defaults live in the schema.
class AttrMap {
 public:
  AttrMap() = default;
  AttrMap(std::initializer_list<std::pair<std::string, AttrValue>> init);

  void set(std::string_view name, AttrValue v);
  const AttrValue* find(std::string_view name) const;
  bool erase(std::string_view name);
  bool empty() const { return items_.empty(); }
  size_t size() const { return items_.size(); }
  const std::vector<std::pair<std::string, AttrValue>>& items() const { return items_; }

  std::string to_string() const;  // "{dim=[1], keepdim=true}", "" when empty
  bool operator==(const AttrMap& o) const { return items_ == o.items_; }

 private:
  std::vector<std::pair<std::string, AttrValue>> items_;
};

// Quotes and escapes a string for IR text: "a\"b\n".
std::string quote_string(std::string_view s);

}  // namespace kiln
