#include "ops/attr.h"

#include <algorithm>
#include <cstring>

#include "support/error.h"

namespace kiln {

namespace {

[[noreturn]] void throw_symbolic(const AttrValue& v, std::string_view wanted) {
  throw Error(make_error("the attribute value ", v.to_string(), " is symbolic where ", wanted,
                         " is needed (specialize the graph to its input sizes first)"));
}

}  // namespace

AttrValue AttrValue::from_sym_int(const SymExpr& e) {
  if (e.is_constant()) return AttrValue(e.constant_value());
  AttrValue v;
  v.v_ = e;
  return v;
}

AttrValue AttrValue::from_sym_ints(SymInts v) {
  if (std::all_of(v.begin(), v.end(), [](const SymExpr& e) { return e.is_constant(); })) {
    Ints ints;
    for (const SymExpr& e : v) ints.push_back(e.constant_value());
    return AttrValue(std::move(ints));
  }
  AttrValue out;
  out.v_ = std::move(v);
  return out;
}

int64_t AttrValue::as_int() const {
  if (is_sym_int()) throw_symbolic(*this, "an integer");
  return std::get<2>(v_);
}

double AttrValue::as_float() const {
  if (is_sym_int()) throw_symbolic(*this, "a number");
  return is_int() ? static_cast<double>(as_int()) : std::get<3>(v_);
}

const AttrValue::Ints& AttrValue::as_ints() const {
  if (is_sym_ints()) throw_symbolic(*this, "a static list of integers");
  return std::get<5>(v_);
}

SymExpr AttrValue::to_sym_int() const { return is_sym_int() ? as_sym_int() : SymExpr(as_int()); }

AttrValue::SymInts AttrValue::to_sym_ints() const {
  if (is_sym_ints()) return as_sym_ints();
  const Ints& ints = as_ints();
  return SymInts(ints.begin(), ints.end());
}

void AttrValue::collect_symbols(std::set<std::string>& out) const {
  if (is_sym_int()) as_sym_int().collect_symbols(out);
  if (is_sym_ints())
    for (const SymExpr& e : as_sym_ints()) e.collect_symbols(out);
}

AttrValue AttrValue::substitute(const std::map<std::string, int64_t>& bindings) const {
  if (is_sym_int()) return from_sym_int(as_sym_int().substitute(bindings));
  if (is_sym_ints()) {
    SymInts out;
    for (const SymExpr& e : as_sym_ints()) out.push_back(e.substitute(bindings));
    return from_sym_ints(std::move(out));
  }
  return *this;
}

AttrValue AttrValue::from_scalar(const Scalar& s) {
  if (s.is_bool()) return AttrValue(s.to_bool());
  if (s.is_int()) return AttrValue(s.to_int());
  if (s.is_float()) return AttrValue(s.to_double());
  return AttrValue();
}

Scalar AttrValue::as_scalar() const {
  if (is_sym_int()) throw_symbolic(*this, "a number");
  if (is_bool()) return Scalar(as_bool());
  if (is_int()) return Scalar(as_int());
  if (is_float()) return Scalar(as_float());
  return Scalar();
}

std::string quote_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          static const char* kHex = "0123456789abcdef";
          out += "\\x";
          out += kHex[(c >> 4) & 0xf];
          out += kHex[c & 0xf];
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string AttrValue::to_string() const {
  switch (v_.index()) {
    case 1: return as_bool() ? "true" : "false";
    case 2: return std::to_string(as_int());
    case 3: return format_double(std::get<3>(v_));
    case 4: return quote_string(as_string());
    case 5: {
      std::string s = "[";
      const Ints& v = as_ints();
      for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
      return s + "]";
    }
    case 6: return std::string(dtype_name(as_dtype()));
    case 7: return "(" + as_sym_int().to_string() + ")";
    case 8: {
      std::string s = "[";
      const SymInts& v = as_sym_ints();
      for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i].to_string();
      return s + "]";
    }
    default: return "none";
  }
}

bool AttrValue::operator==(const AttrValue& o) const {
  if (v_.index() != o.v_.index()) return false;
  if (is_float()) {
    double a = std::get<3>(v_), b = std::get<3>(o.v_);
    return std::memcmp(&a, &b, sizeof a) == 0;
  }
  return v_ == o.v_;
}

AttrMap::AttrMap(std::initializer_list<std::pair<std::string, AttrValue>> init) {
  for (const auto& [k, v] : init) set(k, v);
}

void AttrMap::set(std::string_view name, AttrValue v) {
  auto it = std::lower_bound(items_.begin(), items_.end(), name,
                             [](const auto& item, std::string_view n) { return item.first < n; });
  if (it != items_.end() && it->first == name)
    it->second = std::move(v);
  else
    items_.insert(it, {std::string(name), std::move(v)});
}

const AttrValue* AttrMap::find(std::string_view name) const {
  auto it = std::lower_bound(items_.begin(), items_.end(), name,
                             [](const auto& item, std::string_view n) { return item.first < n; });
  return it != items_.end() && it->first == name ? &it->second : nullptr;
}

bool AttrMap::erase(std::string_view name) {
  auto it = std::lower_bound(items_.begin(), items_.end(), name,
                             [](const auto& item, std::string_view n) { return item.first < n; });
  if (it == items_.end() || it->first != name) return false;
  items_.erase(it);
  return true;
}

bool AttrMap::is_symbolic() const {
  return std::any_of(items_.begin(), items_.end(), [](const auto& item) { return item.second.is_symbolic(); });
}

AttrMap AttrMap::substitute(const std::map<std::string, int64_t>& bindings) const {
  AttrMap out;
  out.items_.reserve(items_.size());
  for (const auto& [name, value] : items_) out.items_.emplace_back(name, value.substitute(bindings));
  return out;
}

std::string AttrMap::to_string() const {
  if (items_.empty()) return "";
  std::string s = "{";
  for (size_t i = 0; i < items_.size(); ++i)
    s += (i ? ", " : "") + items_[i].first + "=" + items_[i].second.to_string();
  return s + "}";
}

}  // namespace kiln
