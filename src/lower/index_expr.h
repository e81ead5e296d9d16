// Index expressions of the loop IR: affine sums over loop variables with floor division and
// modulo by positive constants, kept in one canonical form so that equal expressions print
// (and compare) equal:
//   8*i0 + i1 + 3          2*div(4*i0 + i1, 6) + mod(4*i0 + i1, 6)
// A canonical expression has its terms sorted (variables by number, then div, then mod terms
// by divisor and inner text), like terms merged, no zero coefficients, and the constant last.
// In lowering, the variables of a view's map are the view's coordinates ("placeholders");
// substitute() replaces them by the coordinates of a consumer, which composes views.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace kiln {

struct IndexExpr;

struct IndexTerm {
  enum class Kind : uint8_t { Var, Div, Mod };
  Kind kind = Kind::Var;
  int64_t coeff = 1;
  int var = 0;                   // Var: the variable's number (i<var>)
  std::vector<IndexExpr> inner;  // Div, Mod: exactly one expression
  int64_t divisor = 1;           // Div, Mod: > 0
};

struct IndexExpr {
  std::vector<IndexTerm> terms;
  int64_t constant = 0;

  static IndexExpr constant_of(int64_t c);
  static IndexExpr var(int v);
  // floor(e / d) and e mod d (result in [0, d)) for d > 0, simplified where exact.
  static IndexExpr floor_div(IndexExpr e, int64_t d);
  static IndexExpr mod(IndexExpr e, int64_t d);

  IndexExpr plus(const IndexExpr& o) const;
  IndexExpr scaled(int64_t k) const;
  // Replaces variable v by repl[v] (every variable must have a replacement).
  IndexExpr substitute(std::span<const IndexExpr> repl) const;

  // The same value where variable v runs over [0, extents[v]) (variables past the end: any
  // value): div and mod terms whose inner part splits into a multiple of the divisor plus a
  // remainder that stays in [0, divisor) become affine (div(64*i0 + i1, 64) = i0 when
  // i1 < 64), and variables of extent 1 become 0.
  IndexExpr simplified(std::span<const int64_t> extents) const;

  bool is_constant() const { return terms.empty(); }
  // The coefficient of variable v among the Var terms (0 if absent).
  int64_t coeff_of(int v) const;
  // Whether every term is a plain variable (an affine, strided map).
  bool is_affine() const;
  // Whether variable v appears anywhere (inside div/mod terms too).
  bool uses_var(int v) const;
  // Whether variable v appears only as a plain term (coeff*i<v>), never inside div/mod.
  bool is_affine_in(int v) const;
  // The largest variable number used, or -1.
  int max_var() const;
  // Value at the given variable values (vars[v] for i<v>); nullopt when a variable is out of
  // range. Wrapping int64 arithmetic.
  std::optional<int64_t> evaluate(std::span<const int64_t> vars) const;

  std::string to_string() const;  // "8*i0 + i1 + 3", "0"
  bool operator==(const IndexExpr& o) const { return to_string() == o.to_string(); }
};

struct IndexRange {
  int64_t lo = 0, hi = 0;  // inclusive
};

// The range of `e` when variable v runs over [0, extents[v]) (extents > 0), by interval
// arithmetic (exact for affine expressions, an over-approximation with div/mod); nullopt
// when a partial sum or product could overflow int64.
std::optional<IndexRange> index_range(const IndexExpr& e, std::span<const int64_t> extents);

}  // namespace kiln
