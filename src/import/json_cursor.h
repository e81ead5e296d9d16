// JsonCursor: a position in a parsed nlohmann::json document together with its path
// ("graph_module.graph.nodes[2].target"), so that every error a reader reports names where in
// the file it is. Its accessors throw JsonShapeError; the readers catch it once at their entry
// point and turn it into a Diagnostic (pt2_program.cc). Included only by the .pt2 reader's
// files, which are compiled only where nlohmann-json is installed.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace kiln::pt2 {

class JsonShapeError : public std::runtime_error {
 public:
  JsonShapeError(std::string path, const std::string& what) : std::runtime_error(what), path_(std::move(path)) {}
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

class JsonCursor {
 public:
  JsonCursor(const nlohmann::json& j, std::string path) : j_(&j), path_(std::move(path)) {}

  const std::string& path() const { return path_; }
  const nlohmann::json& json() const { return *j_; }
  bool is_null() const { return j_->is_null(); }
  bool is_object() const { return j_->is_object(); }

  // The member `key` of an object; an error when this is not an object or lacks it.
  JsonCursor operator[](std::string_view key) const;
  // The member, or nullopt when absent or null.
  std::optional<JsonCursor> find(std::string_view key) const;
  // The elements of an array.
  std::vector<JsonCursor> elements() const;
  // The members of an object, sorted by key (nlohmann::json keeps objects in a std::map).
  std::vector<std::pair<std::string, JsonCursor>> members() const;
  // The only member of an object that serde writes as a union ({"as_int": 3}): its key and value.
  std::pair<std::string, JsonCursor> union_member() const;

  const std::string& string() const;
  int64_t integer() const;
  // A number, or one of the strings serde writes for non-finite floats: "Infinity",
  // "-Infinity", "NaN".
  double number() const;
  bool boolean() const;

  [[noreturn]] void fail(const std::string& what) const { throw JsonShapeError(path_, what); }

 private:
  [[noreturn]] void fail_type(std::string_view expected) const;
  const nlohmann::json* j_;
  std::string path_;
};

}  // namespace kiln::pt2
