#include "core/shape.h"

#include "support/error.h"

namespace kiln {

int64_t Dim::value() const {
  if (expr_)
    throw Error(make_error("Dim::value(): the dim ", expr_->to_string(), " is symbolic and has no value until bound"));
  return value_;
}

Dim::Dim(const SymExpr& e) {
  if (e.is_constant())
    value_ = e.constant_value();
  else
    expr_ = e;
}

namespace {

template <typename IntOp, typename ExprOp>
Dim combine(const Dim& a, const Dim& b, IntOp int_op, ExprOp expr_op) {
  if (a.is_static() && b.is_static()) {
    int64_t r = 0;
    if (int_op(a.value(), b.value(), &r))
      throw SymExprOverflow("dim arithmetic overflows int64 on " + a.to_string() + " and " + b.to_string());
    return Dim(r);
  }
  return Dim(expr_op(a.expr(), b.expr()));
}

}  // namespace

Dim operator+(const Dim& a, const Dim& b) {
  return combine(
      a, b, [](int64_t x, int64_t y, int64_t* r) { return __builtin_add_overflow(x, y, r); },
      [](const SymExpr& x, const SymExpr& y) { return x + y; });
}

Dim operator-(const Dim& a, const Dim& b) {
  return combine(
      a, b, [](int64_t x, int64_t y, int64_t* r) { return __builtin_sub_overflow(x, y, r); },
      [](const SymExpr& x, const SymExpr& y) { return x - y; });
}

Dim operator*(const Dim& a, const Dim& b) {
  return combine(
      a, b, [](int64_t x, int64_t y, int64_t* r) { return __builtin_mul_overflow(x, y, r); },
      [](const SymExpr& x, const SymExpr& y) { return x * y; });
}

Dim floor_div(const Dim& a, int64_t d) { return Dim(SymExpr::floor_div(a.expr(), d)); }

Shape::Shape(std::initializer_list<int64_t> sizes) {
  for (int64_t s : sizes) dims_.emplace_back(s);
}

Shape Shape::from_sizes(const std::vector<int64_t>& sizes) {
  Shape s;
  for (int64_t v : sizes) s.dims_.emplace_back(v);
  return s;
}

bool Shape::is_static() const {
  for (const Dim& d : dims_)
    if (!d.is_static()) return false;
  return true;
}

std::vector<int64_t> Shape::sizes() const {
  std::vector<int64_t> out;
  out.reserve(dims_.size());
  for (const Dim& d : dims_) {
    if (d.is_symbolic()) throw Error(make_error("Shape::sizes(): the shape ", to_string(), " is symbolic"));
    out.push_back(d.value());
  }
  return out;
}

int64_t Shape::numel() const {
  int64_t n = 1;
  for (int64_t s : sizes()) n *= s;
  return n;
}

Shape Shape::bind(const std::map<std::string, int64_t>& bindings) const {
  Shape out = *this;
  for (Dim& d : out.dims_) {
    if (d.is_symbolic()) d = Dim(d.expr().substitute(bindings));
  }
  return out;
}

std::string Shape::to_string() const {
  std::string s = "[";
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (i) s += ",";
    s += dims_[i].to_string();
  }
  return s + "]";
}

std::optional<int> wrap_dim(int64_t dim, int rank) {
  int64_t r = rank == 0 ? 1 : rank;  // like torch, a 0-d tensor accepts dim 0 and -1
  if (dim < -r || dim >= r) return std::nullopt;
  return static_cast<int>(dim < 0 ? dim + r : dim);
}

}  // namespace kiln
