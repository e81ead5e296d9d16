// A number that appears inline in the IR (`mul(%2, 0.5)`) or as an attribute:
// none, bool, int (int64) or float (double). The kind is kept so printing round-trips.
#pragma once

#include <cstdint>
#include <string>
#include <variant>

#include "core/dtype.h"

namespace kiln {

class Scalar {
 public:
  Scalar() = default;                             // none
  Scalar(bool b) : v_(b) {}                       // NOLINT
  Scalar(int v) : v_(static_cast<int64_t>(v)) {}  // NOLINT
  Scalar(int64_t v) : v_(v) {}                    // NOLINT
  Scalar(double v) : v_(v) {}                     // NOLINT
  static Scalar none() { return Scalar(); }

  bool is_none() const { return v_.index() == 0; }
  bool is_bool() const { return v_.index() == 1; }
  bool is_int() const { return v_.index() == 2; }
  bool is_float() const { return v_.index() == 3; }

  bool to_bool() const;
  int64_t to_int() const;  // float truncates toward zero
  double to_double() const;

  // The dtype a Python number of this kind has in torch: bool, i64 or the default float.
  DType natural_dtype() const;

  // IR text: `none`, `true`, `3`, `0.5`, `1.0`, `1e-05`, `inf`, `-inf`, `nan`.
  // Floats always contain '.', 'e', "inf" or "nan" and parse back to the same double.
  std::string to_string() const;

  bool operator==(const Scalar& o) const;

 private:
  std::variant<std::monostate, bool, int64_t, double> v_;
};

// Shortest text that parses back to exactly `v` and reads as a float literal.
std::string format_double(double v);

}  // namespace kiln
