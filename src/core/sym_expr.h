// Symbolic integer expressions for tensor dims: constants, symbols, +, -, * and floor
// division by a positive constant ("B*T", "T+1", "floor((H+1)/2)-1"). Every expression is
// kept in one canonical form (a sum of products with sorted terms, like terms combined,
// constants folded), so equal expressions compare equal and print the same text.
// Arithmetic whose coefficients or constants would overflow int64 throws
// SymExprOverflow; the IR parser turns it into an error at the dim, elsewhere it is a bug.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "support/diagnostic.h"

namespace kiln {

struct SymExprOverflow : std::overflow_error {
  using std::overflow_error::overflow_error;
};

struct SymTerm;  // below

// Immutable and cheap to copy: a shared pointer to a normalized polynomial.
//
// The canonical form is  c1*m1 + c2*m2 + ... + c0  where each monomial m is a sorted product
// of atoms, an atom being a symbol or floor(p/d) for a polynomial p and a constant d >= 2
// that does not divide p. floor(p/d) keeps only the remainder part inside: floor((2*T+1)/2)
// is T + floor(1/2) = T. Terms print by degree (highest first), then by their atoms' text,
// and the constant last.
class SymExpr {
 public:
  SymExpr(int64_t c = 0);  // NOLINT: constants read like integers
  // The symbol `name`; a name check_symbol_name refuses is a kiln::Error (support/error.h).
  static SymExpr symbol(const std::string& name);
  // Ok when `name` can name a dim symbol: a letter or '_', then letters, digits or '_' (as the
  // graph text writes it), and not `floor`, which the text reads as floor division.
  static Status check_symbol_name(std::string_view name);
  // floor(a / d) for d > 0 (kiln::Error otherwise).
  static SymExpr floor_div(const SymExpr& a, int64_t d);

  bool is_constant() const;
  int64_t constant_value() const;  // kiln::Error unless is_constant()
  // The name when this is a bare symbol ("B"), else nullopt.
  std::optional<std::string> as_symbol() const;

  friend SymExpr operator+(const SymExpr& a, const SymExpr& b);
  friend SymExpr operator-(const SymExpr& a, const SymExpr& b);
  friend SymExpr operator*(const SymExpr& a, const SymExpr& b);
  SymExpr operator-() const;
  // The sum and the product of many expressions. Each binary operation costs time in the size
  // of its result, so a chain of n of them (a parser's `B*B*...*B`) costs O(n^2); these take
  // O(n log n) for n operands: the sum canonicalizes all terms once, the product multiplies
  // halves. The empty sum is 0 and the empty product 1.
  static SymExpr sum(std::span<const SymExpr> operands);
  static SymExpr product(std::span<const SymExpr> factors);

  // The value with every symbol bound; nullopt when some symbol has no binding.
  std::optional<int64_t> evaluate(const std::map<std::string, int64_t>& bindings) const;
  // Bound symbols replaced by their values, the others kept.
  SymExpr substitute(const std::map<std::string, int64_t>& bindings) const;
  void collect_symbols(std::set<std::string>& out) const;

  // q with a == q * b exactly when b is one term (c*m) dividing every term of a
  // (B*T*16 / (16*T) = B); nullopt when that cannot be shown symbolically.
  static std::optional<SymExpr> exact_div(const SymExpr& a, const SymExpr& b);

  // The canonical form's parts, for code that computes the expression elsewhere (the ONNX
  // exporter builds it from ops): to_string() is constant_term() plus the sum of terms().
  std::vector<SymTerm> terms() const;
  int64_t constant_term() const;

  std::string to_string() const;
  friend bool operator==(const SymExpr& a, const SymExpr& b);
  friend bool operator<(const SymExpr& a, const SymExpr& b);  // a total order, for sorting and maps

  struct Rep;

 private:
  explicit SymExpr(std::shared_ptr<const Rep> rep) : rep_(std::move(rep)) {}
  std::shared_ptr<const Rep> rep_;  // never null
};

// A factor of a term: a symbol, or floor(num / den) with den >= 2 when `num` is set.
struct SymFactor {
  std::string symbol;
  std::optional<SymExpr> num;
  int64_t den = 0;
};
// coeff * the product of the factors (never empty).
struct SymTerm {
  int64_t coeff = 0;
  std::vector<SymFactor> factors;
};

// A relation between dims that a shape rule assumed ("B*T == 4096", "T >= 1"). Rules record
// guards instead of failing when the answer depends on the symbols' values; a run binds the
// symbols and the concrete shapes then either satisfy them or fail in the op's rule.
enum class GuardRel { Eq, Ge };

struct ShapeGuard {
  SymExpr lhs;
  GuardRel rel = GuardRel::Eq;
  SymExpr rhs;

  std::string to_string() const;  // "B*T == 4096", "T >= 1"
  bool operator==(const ShapeGuard& o) const { return lhs == o.lhs && rel == o.rel && rhs == o.rhs; }
  // Whether the bindings satisfy it; nullopt when some symbol is unbound.
  std::optional<bool> holds(const std::map<std::string, int64_t>& bindings) const;
};

}  // namespace kiln
