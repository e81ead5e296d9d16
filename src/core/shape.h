// Shapes whose dimensions are integers or named symbols ("B"). Symbolic dims flow through
// the IR from capture with dynamic dims; they get values when a graph runs on real inputs.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kiln {

class Dim {
 public:
  Dim(int64_t v = 0) : value_(v) {}  // NOLINT: dims read like integers
  static Dim symbol(std::string name) {
    Dim d;
    d.symbol_ = std::move(name);
    return d;
  }

  bool is_static() const { return symbol_.empty(); }
  bool is_symbolic() const { return !symbol_.empty(); }
  int64_t value() const { return value_; }  // only when is_static()
  const std::string& symbol_name() const { return symbol_; }

  std::string to_string() const { return is_static() ? std::to_string(value_) : symbol_; }
  bool operator==(const Dim& o) const { return value_ == o.value_ && symbol_ == o.symbol_; }
  bool operator==(int64_t v) const { return is_static() && value_ == v; }

 private:
  int64_t value_ = 0;
  std::string symbol_;
};

class Shape {
 public:
  Shape() = default;
  Shape(std::vector<Dim> dims) : dims_(std::move(dims)) {}  // NOLINT
  Shape(std::initializer_list<int64_t> sizes);
  static Shape from_sizes(const std::vector<int64_t>& sizes);

  int rank() const { return static_cast<int>(dims_.size()); }
  const Dim& operator[](int i) const { return dims_[static_cast<size_t>(i)]; }
  Dim& operator[](int i) { return dims_[static_cast<size_t>(i)]; }
  const std::vector<Dim>& dims() const { return dims_; }
  std::vector<Dim>& dims() { return dims_; }

  bool is_static() const;
  // Requires is_static().
  std::vector<int64_t> sizes() const;
  int64_t numel() const;

  // Replaces symbols by their values where `bindings` has them.
  Shape bind(const std::map<std::string, int64_t>& bindings) const;

  std::string to_string() const;  // "[B,16]", "[]" for rank 0
  bool operator==(const Shape& o) const { return dims_ == o.dims_; }

 private:
  std::vector<Dim> dims_;
};

// Wraps a possibly negative dim index into [0, rank); nullopt when out of range.
std::optional<int> wrap_dim(int64_t dim, int rank);

}  // namespace kiln
