// JsonCursor's accessors (json_cursor.h); compiled only with nlohmann-json (CMakeLists.txt).
#include "import/json_cursor.h"

#include <cmath>
#include <limits>

namespace kiln::pt2 {

void JsonCursor::fail_type(std::string_view expected) const {
  fail("expected " + std::string(expected) + ", got " + std::string(j_->type_name()));
}

JsonCursor JsonCursor::operator[](std::string_view key) const {
  std::optional<JsonCursor> c = find(key);
  if (!c) {
    if (!j_->is_object()) fail_type("an object");
    fail("missing member '" + std::string(key) + "'");
  }
  return *c;
}

std::optional<JsonCursor> JsonCursor::find(std::string_view key) const {
  if (!j_->is_object()) fail_type("an object");
  auto it = j_->find(key);
  if (it == j_->end() || it->is_null()) return std::nullopt;
  return JsonCursor(*it, path_.empty() ? std::string(key) : path_ + "." + std::string(key));
}

std::vector<JsonCursor> JsonCursor::elements() const {
  if (!j_->is_array()) fail_type("an array");
  std::vector<JsonCursor> out;
  out.reserve(j_->size());
  for (size_t i = 0; i < j_->size(); ++i) out.emplace_back((*j_)[i], path_ + "[" + std::to_string(i) + "]");
  return out;
}

std::vector<std::pair<std::string, JsonCursor>> JsonCursor::members() const {
  if (!j_->is_object()) fail_type("an object");
  std::vector<std::pair<std::string, JsonCursor>> out;
  for (auto it = j_->begin(); it != j_->end(); ++it)
    out.emplace_back(it.key(), JsonCursor(it.value(), path_ + "." + it.key()));
  return out;
}

std::pair<std::string, JsonCursor> JsonCursor::union_member() const {
  if (!j_->is_object()) fail_type("an object");
  if (j_->size() != 1) fail("expected one member (a union), got " + std::to_string(j_->size()));
  auto it = j_->begin();
  return {it.key(), JsonCursor(it.value(), path_ + "." + it.key())};
}

const std::string& JsonCursor::string() const {
  if (!j_->is_string()) fail_type("a string");
  return j_->get_ref<const std::string&>();
}

int64_t JsonCursor::integer() const {
  if (j_->is_number_integer()) return j_->get<int64_t>();
  // An unsigned value past int64's range reads as number_unsigned.
  if (j_->is_number_unsigned()) fail("integer " + j_->dump() + " is out of range");
  fail_type("an integer");
}

double JsonCursor::number() const {
  if (j_->is_number()) return j_->get<double>();
  if (j_->is_string()) {
    const std::string& s = string();
    if (s == "Infinity") return std::numeric_limits<double>::infinity();
    if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
    if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
    fail("expected a number, \"Infinity\", \"-Infinity\" or \"NaN\", got \"" + s + "\"");
  }
  fail_type("a number");
}

bool JsonCursor::boolean() const {
  if (!j_->is_boolean()) fail_type("a boolean");
  return j_->get<bool>();
}

}  // namespace kiln::pt2
