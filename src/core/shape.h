// Shapes whose dimensions are integers or symbolic expressions ("B", "B*T"). Symbolic dims
// flow through the IR from capture with dynamic dims; they get values when a graph runs on
// real inputs.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/sym_expr.h"

namespace kiln {

// A dim: a static size, or a symbolic expression over named symbols (B, B*T, T+1,
// floor(T/2)). A dim whose expression folds to a constant is static. Arithmetic on static
// dims that overflows int64 throws SymExprOverflow, as symbolic arithmetic does.
class Dim {
 public:
  Dim(int64_t v = 0) : value_(v) {}  // NOLINT: dims read like integers
  explicit Dim(const SymExpr& e);
  static Dim symbol(const std::string& name) { return Dim(SymExpr::symbol(name)); }

  bool is_static() const { return !expr_.has_value(); }
  bool is_symbolic() const { return expr_.has_value(); }
  int64_t value() const;  // kiln::Error for a symbolic dim, which has no value until bound
  // Whether this is one bare symbol ("B", not "B*T").
  bool is_symbol() const { return expr_ && expr_->as_symbol().has_value(); }
  // The symbol's name for a bare symbol, else the expression's text ("B*T").
  std::string symbol_name() const { return expr_ ? expr_->to_string() : std::string(); }
  // The dim as an expression (a constant when static).
  SymExpr expr() const { return expr_ ? *expr_ : SymExpr(value_); }

  std::string to_string() const { return expr_ ? expr_->to_string() : std::to_string(value_); }
  bool operator==(const Dim& o) const { return value_ == o.value_ && expr_ == o.expr_; }
  bool operator==(int64_t v) const { return is_static() && value_ == v; }

  friend Dim operator+(const Dim& a, const Dim& b);
  friend Dim operator-(const Dim& a, const Dim& b);
  friend Dim operator*(const Dim& a, const Dim& b);
  // floor(a / d); kiln::Error for d <= 0.
  friend Dim floor_div(const Dim& a, int64_t d);

 private:
  int64_t value_ = 0;
  std::optional<SymExpr> expr_;  // set exactly when symbolic
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
  // kiln::Error unless is_static().
  std::vector<int64_t> sizes() const;
  int64_t numel() const;

  // Replaces symbols by their values where `bindings` has them (expressions are evaluated;
  // a partly bound one stays symbolic).
  Shape bind(const std::map<std::string, int64_t>& bindings) const;

  std::string to_string() const;  // "[B,16]", "[B*T,T+1]", "[]" for rank 0
  bool operator==(const Shape& o) const { return dims_ == o.dims_; }

 private:
  std::vector<Dim> dims_;
};

// Wraps a possibly negative dim index into [0, rank); nullopt when out of range.
std::optional<int> wrap_dim(int64_t dim, int rank);

}  // namespace kiln
