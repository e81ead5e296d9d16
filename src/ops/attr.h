// Attribute values of IR nodes (`{dim=[1], keepdim=true}`) and a small sorted map of them.
// An integer or an integer list of an attribute whose schema type is SymInt[] or SymScalar
// may hold symbolic expressions of the graph's dims (`{size=[B, T, -1, 16]}`, `{end=(T)}`).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "core/dtype.h"
#include "core/scalar.h"
#include "core/sym_expr.h"

namespace kiln {

class AttrValue {
 public:
  using Ints = std::vector<int64_t>;
  using SymInts = std::vector<SymExpr>;
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
  // A symbolic int, or the plain int when `e` is a constant: symbolic values are never
  // constant, so each value has one representation.
  static AttrValue from_sym_int(const SymExpr& e);
  // A symbolic int list, or the plain int[] when every element is a constant.
  static AttrValue from_sym_ints(SymInts v);

  bool is_none() const { return v_.index() == 0; }
  bool is_bool() const { return v_.index() == 1; }
  bool is_int() const { return v_.index() == 2; }
  bool is_float() const { return v_.index() == 3; }
  bool is_string() const { return v_.index() == 4; }
  bool is_ints() const { return v_.index() == 5; }
  bool is_dtype() const { return v_.index() == 6; }
  bool is_sym_int() const { return v_.index() == 7; }   // never a constant
  bool is_sym_ints() const { return v_.index() == 8; }  // at least one element not a constant
  bool is_symbolic() const { return is_sym_int() || is_sym_ints(); }

  // The static accessors throw kiln::Error (support/error.h) on a symbolic value, naming it:
  // code that has not been taught symbolic sizes reports them instead of crashing (shape
  // rules turn the throw into the op's error; run time specializes attributes first).
  bool as_bool() const { return std::get<1>(v_); }
  int64_t as_int() const;
  double as_float() const;
  const std::string& as_string() const { return std::get<4>(v_); }
  const Ints& as_ints() const;
  DType as_dtype() const { return std::get<6>(v_); }
  Scalar as_scalar() const;  // none/bool/int/float
  const SymExpr& as_sym_int() const { return std::get<7>(v_); }
  const SymInts& as_sym_ints() const { return std::get<8>(v_); }
  // An int or a symbolic int as an expression.
  SymExpr to_sym_int() const;
  // An int[] or a symbolic int[] as expressions.
  SymInts to_sym_ints() const;

  // The symbols a symbolic value names (none for the others).
  void collect_symbols(std::set<std::string>& out) const;
  // Bound symbols replaced by their values; a value whose symbols are all bound becomes the
  // plain int or int[] (the others are returned unchanged).
  AttrValue substitute(const std::map<std::string, int64_t>& bindings) const;

  // IR text: `none`, `true`, `3`, `1e-05`, `"tanh"`, `[1, 2]`, `f32`; symbolic values
  // `[B, T*16, -1]` and `(T+1)` (a scalar in parentheses, so that no symbol name reads as
  // `true`, `inf` or a dtype).
  std::string to_string() const;
  bool operator==(const AttrValue& o) const;

 private:
  std::variant<std::monostate, bool, int64_t, double, std::string, Ints, DType, SymExpr, SymInts> v_;
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
  bool is_symbolic() const;       // whether some value is symbolic
  // Every value substituted (AttrValue::substitute).
  AttrMap substitute(const std::map<std::string, int64_t>& bindings) const;
  bool operator==(const AttrMap& o) const { return items_ == o.items_; }

 private:
  std::vector<std::pair<std::string, AttrValue>> items_;
};

// Quotes and escapes a string for IR text: "a\"b\n".
std::string quote_string(std::string_view s);

}  // namespace kiln
