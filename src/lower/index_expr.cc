#include "lower/index_expr.h"

#include <algorithm>
#include <optional>
#include <tuple>
#include <utility>

namespace kiln {

namespace {

int64_t wadd(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)); }
int64_t wmul(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)); }

int64_t floor_div_const(int64_t a, int64_t d) {
  int64_t q = a / d;
  if ((a % d != 0) && (a < 0)) --q;
  return q;
}
int64_t mod_const(int64_t a, int64_t d) {
  int64_t r = a % d;
  return r < 0 ? r + d : r;
}

// Sort key of a term: kind, then variable number or (divisor, inner text).
std::tuple<int, int, int64_t, std::string> key(const IndexTerm& t) {
  if (t.kind == IndexTerm::Kind::Var) return {0, t.var, 0, std::string()};
  return {t.kind == IndexTerm::Kind::Div ? 1 : 2, 0, t.divisor, t.inner.front().to_string()};
}

// Sorts, merges like terms and drops zero coefficients.
IndexExpr canonical(std::vector<IndexTerm> terms, int64_t constant) {
  std::stable_sort(terms.begin(), terms.end(), [](const IndexTerm& a, const IndexTerm& b) { return key(a) < key(b); });
  IndexExpr out;
  out.constant = constant;
  for (IndexTerm& t : terms) {
    if (!out.terms.empty() && key(out.terms.back()) == key(t)) {
      out.terms.back().coeff = wadd(out.terms.back().coeff, t.coeff);
    } else {
      out.terms.push_back(std::move(t));
    }
    if (out.terms.back().coeff == 0) out.terms.pop_back();
  }
  return out;
}

std::string term_body(const IndexTerm& t) {
  if (t.kind == IndexTerm::Kind::Var) return "i" + std::to_string(t.var);
  return std::string(t.kind == IndexTerm::Kind::Div ? "div(" : "mod(") + t.inner.front().to_string() + ", " +
         std::to_string(t.divisor) + ")";
}

std::string magnitude(int64_t v) {
  // The magnitude of a negative value as text, INT64_MIN included.
  return std::to_string(static_cast<uint64_t>(0) - static_cast<uint64_t>(v));
}

}  // namespace

IndexExpr IndexExpr::constant_of(int64_t c) {
  IndexExpr e;
  e.constant = c;
  return e;
}

IndexExpr IndexExpr::var(int v) {
  IndexExpr e;
  IndexTerm t;
  t.var = v;
  e.terms.push_back(std::move(t));
  return e;
}

IndexExpr IndexExpr::floor_div(IndexExpr e, int64_t d) {
  if (d == 1) return e;
  // e = d*q + r where r holds the terms d does not divide and e's constant mod d:
  // floor(e / d) = q + floor(r / d).
  std::vector<IndexTerm> quotient, rest;
  for (IndexTerm& t : e.terms) {
    if (t.coeff % d == 0) {
      t.coeff /= d;
      quotient.push_back(std::move(t));
    } else {
      rest.push_back(std::move(t));
    }
  }
  IndexExpr q = canonical(std::move(quotient), floor_div_const(e.constant, d));
  if (rest.empty()) return q;
  IndexTerm t;
  t.kind = IndexTerm::Kind::Div;
  t.divisor = d;
  t.inner.push_back(canonical(std::move(rest), mod_const(e.constant, d)));
  return q.plus(canonical({std::move(t)}, 0));
}

IndexExpr IndexExpr::mod(IndexExpr e, int64_t d) {
  if (d == 1) return constant_of(0);
  std::vector<IndexTerm> kept;
  for (IndexTerm& t : e.terms)
    if (t.coeff % d != 0) kept.push_back(std::move(t));
  IndexExpr inner = canonical(std::move(kept), mod_const(e.constant, d));
  if (inner.is_constant()) return constant_of(inner.constant);
  IndexTerm t;
  t.kind = IndexTerm::Kind::Mod;
  t.divisor = d;
  t.inner.push_back(std::move(inner));
  return canonical({std::move(t)}, 0);
}

IndexExpr IndexExpr::plus(const IndexExpr& o) const {
  std::vector<IndexTerm> all = terms;
  all.insert(all.end(), o.terms.begin(), o.terms.end());
  return canonical(std::move(all), wadd(constant, o.constant));
}

IndexExpr IndexExpr::scaled(int64_t k) const {
  std::vector<IndexTerm> all = terms;
  for (IndexTerm& t : all) t.coeff = wmul(t.coeff, k);
  return canonical(std::move(all), wmul(constant, k));
}

IndexExpr IndexExpr::substitute(std::span<const IndexExpr> repl) const {
  IndexExpr out = constant_of(constant);
  for (const IndexTerm& t : terms) {
    IndexExpr part;
    if (t.kind == IndexTerm::Kind::Var) {
      part = repl[static_cast<size_t>(t.var)];
    } else {
      IndexExpr inner = t.inner.front().substitute(repl);
      part = t.kind == IndexTerm::Kind::Div ? floor_div(std::move(inner), t.divisor) : mod(std::move(inner), t.divisor);
    }
    out = out.plus(part.scaled(t.coeff));
  }
  return out;
}

namespace {

std::optional<int64_t> add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// [lo, hi] * c, with overflow checks.
std::optional<IndexRange> scale(IndexRange r, int64_t c) {
  int64_t a, b;
  if (__builtin_mul_overflow(r.lo, c, &a) || __builtin_mul_overflow(r.hi, c, &b)) return std::nullopt;
  return c >= 0 ? IndexRange{a, b} : IndexRange{b, a};
}

std::optional<IndexRange> term_range(const IndexTerm& t, std::span<const int64_t> extents) {
  IndexRange r;
  if (t.kind == IndexTerm::Kind::Var) {
    if (t.var < 0 || static_cast<size_t>(t.var) >= extents.size()) return std::nullopt;
    r = {0, extents[static_cast<size_t>(t.var)] - 1};
  } else {
    std::optional<IndexRange> in = index_range(t.inner.front(), extents);
    if (!in || t.divisor <= 0) return std::nullopt;
    const int64_t d = t.divisor;
    if (t.kind == IndexTerm::Kind::Div) {
      r = {floor_div_const(in->lo, d), floor_div_const(in->hi, d)};
    } else if (floor_div_const(in->lo, d) == floor_div_const(in->hi, d)) {
      r = {mod_const(in->lo, d), mod_const(in->hi, d)};
    } else {
      r = {0, d - 1};
    }
  }
  return scale(r, t.coeff);
}

}  // namespace

std::optional<IndexRange> index_range(const IndexExpr& e, std::span<const int64_t> extents) {
  IndexRange sum{0, 0};
  bool first = true;
  for (const IndexTerm& t : e.terms) {
    std::optional<IndexRange> r = term_range(t, extents);
    if (!r) return std::nullopt;
    if (first) {
      sum = *r;
      first = false;
      continue;
    }
    std::optional<int64_t> lo = add(sum.lo, r->lo), hi = add(sum.hi, r->hi);
    if (!lo || !hi) return std::nullopt;
    sum = {*lo, *hi};
  }
  std::optional<int64_t> lo = add(sum.lo, e.constant), hi = add(sum.hi, e.constant);
  if (!lo || !hi) return std::nullopt;
  return IndexRange{*lo, *hi};
}

IndexExpr IndexExpr::simplified(std::span<const int64_t> extents) const {
  IndexExpr out = constant_of(constant);
  for (const IndexTerm& t : terms) {
    IndexExpr part;
    if (t.kind == IndexTerm::Kind::Var) {
      const bool unit =
          t.var >= 0 && static_cast<size_t>(t.var) < extents.size() && extents[static_cast<size_t>(t.var)] == 1;
      part = unit ? IndexExpr() : var(t.var);
    } else {
      const IndexExpr inner = t.inner.front().simplified(extents);
      const int64_t d = t.divisor;
      // inner = d*q + r, with r holding the terms whose coefficients d does not divide.
      std::vector<IndexTerm> qterms, rterms;
      for (const IndexTerm& it : inner.terms) (it.coeff % d == 0 ? qterms : rterms).push_back(it);
      IndexExpr q = canonical(std::move(qterms), floor_div_const(inner.constant, d) * d);
      IndexExpr r = canonical(std::move(rterms), mod_const(inner.constant, d));
      std::optional<IndexRange> rr = index_range(r, extents);
      if (rr && rr->lo >= 0 && rr->hi < d) {  // floor(r / d) = 0, r mod d = r
        part = t.kind == IndexTerm::Kind::Div ? floor_div(std::move(q), d) : std::move(r);
      } else {
        part = t.kind == IndexTerm::Kind::Div ? floor_div(inner, d) : mod(inner, d);
      }
    }
    out = out.plus(part.scaled(t.coeff));
  }
  return out;
}

int64_t IndexExpr::coeff_of(int v) const {
  for (const IndexTerm& t : terms)
    if (t.kind == IndexTerm::Kind::Var && t.var == v) return t.coeff;
  return 0;
}

bool IndexExpr::is_affine() const {
  return std::all_of(terms.begin(), terms.end(), [](const IndexTerm& t) { return t.kind == IndexTerm::Kind::Var; });
}

bool IndexExpr::uses_var(int v) const {
  return std::any_of(terms.begin(), terms.end(), [v](const IndexTerm& t) {
    return t.kind == IndexTerm::Kind::Var ? t.var == v : t.inner.front().uses_var(v);
  });
}

bool IndexExpr::is_affine_in(int v) const {
  return std::none_of(terms.begin(), terms.end(), [v](const IndexTerm& t) {
    return t.kind != IndexTerm::Kind::Var && t.inner.front().uses_var(v);
  });
}

int IndexExpr::max_var() const {
  int m = -1;
  for (const IndexTerm& t : terms) m = std::max(m, t.kind == IndexTerm::Kind::Var ? t.var : t.inner.front().max_var());
  return m;
}

std::optional<int64_t> IndexExpr::evaluate(std::span<const int64_t> vars) const {
  int64_t v = constant;
  for (const IndexTerm& t : terms) {
    int64_t x;
    if (t.kind == IndexTerm::Kind::Var) {
      if (t.var < 0 || static_cast<size_t>(t.var) >= vars.size()) return std::nullopt;
      x = vars[static_cast<size_t>(t.var)];
    } else {
      std::optional<int64_t> in = t.inner.front().evaluate(vars);
      if (!in || t.divisor <= 0) return std::nullopt;
      x = t.kind == IndexTerm::Kind::Div ? floor_div_const(*in, t.divisor) : mod_const(*in, t.divisor);
    }
    v = wadd(v, wmul(t.coeff, x));
  }
  return v;
}

std::string IndexExpr::to_string() const {
  std::string s;
  for (const IndexTerm& t : terms) {
    const bool neg = t.coeff < 0;
    if (s.empty()) {
      s += neg ? "-" : "";
    } else {
      s += neg ? " - " : " + ";
    }
    const std::string mag = neg ? magnitude(t.coeff) : std::to_string(t.coeff);
    if (mag != "1") s += mag + "*";
    s += term_body(t);
  }
  if (s.empty()) return std::to_string(constant);
  if (constant > 0) s += " + " + std::to_string(constant);
  if (constant < 0) s += " - " + magnitude(constant);
  return s;
}

}  // namespace kiln
