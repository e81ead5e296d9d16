#include "core/scalar.h"

#include <charconv>
#include <cmath>
#include <cstring>

namespace kiln {

bool Scalar::to_bool() const {
  switch (v_.index()) {
    case 1: return std::get<1>(v_);
    case 2: return std::get<2>(v_) != 0;
    case 3: return std::get<3>(v_) != 0.0;
    default: return false;
  }
}

int64_t Scalar::to_int() const {
  switch (v_.index()) {
    case 1: return std::get<1>(v_) ? 1 : 0;
    case 2: return std::get<2>(v_);
    case 3: return static_cast<int64_t>(std::get<3>(v_));
    default: return 0;
  }
}

double Scalar::to_double() const {
  switch (v_.index()) {
    case 1: return std::get<1>(v_) ? 1.0 : 0.0;
    case 2: return static_cast<double>(std::get<2>(v_));
    case 3: return std::get<3>(v_);
    default: return 0.0;
  }
}

DType Scalar::natural_dtype() const {
  if (is_bool()) return DType::Bool;
  if (is_int()) return DType::I64;
  return kDefaultFloat;
}

std::string format_double(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  std::string s(buf, res.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string Scalar::to_string() const {
  switch (v_.index()) {
    case 1: return std::get<1>(v_) ? "true" : "false";
    case 2: return std::to_string(std::get<2>(v_));
    case 3: return format_double(std::get<3>(v_));
    default: return "none";
  }
}

bool Scalar::operator==(const Scalar& o) const {
  if (v_.index() != o.v_.index()) return false;
  if (is_float()) {
    double a = std::get<3>(v_), b = std::get<3>(o.v_);
    return std::memcmp(&a, &b, sizeof(double)) == 0;  // bitwise: nan == nan, 0.0 != -0.0
  }
  return v_ == o.v_;
}

}  // namespace kiln
