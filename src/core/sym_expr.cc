#include "core/sym_expr.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <numeric>

#include "support/error.h"

namespace kiln {

namespace {

// A symbol (den == 0) or floor(num / den) with den >= 2.
struct Atom {
  std::string text;  // printed form; also identity and sort key
  std::string name;
  std::optional<SymExpr> num;
  int64_t den = 0;
};
using AtomPtr = std::shared_ptr<const Atom>;

struct Term {
  std::vector<AtomPtr> atoms;  // sorted by text; never empty
  int64_t coef = 0;
  std::string key;  // atom texts joined by '*'
};

int64_t checked_mul(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r))
    throw SymExprOverflow("symbolic dim overflows int64: " + std::to_string(a) + " * " + std::to_string(b));
  return r;
}

int64_t checked_add(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r))
    throw SymExprOverflow("symbolic dim overflows int64: " + std::to_string(a) + " + " + std::to_string(b));
  return r;
}

int64_t floor_div_int(int64_t a, int64_t d) {
  int64_t q = a / d;
  return (a % d != 0 && (a < 0) != (d < 0)) ? q - 1 : q;
}

std::string join_key(const std::vector<AtomPtr>& atoms) {
  std::string k;
  for (size_t i = 0; i < atoms.size(); ++i) k += (i ? "*" : "") + atoms[i]->text;
  return k;
}

}  // namespace

struct SymExpr::Rep {
  std::vector<Term> terms;  // canonical order, no zero coefficients
  int64_t constant = 0;
  std::string text;
};

namespace {

// Degree first (highest first), then the atoms' text: "B*T+T+1".
bool term_before(const Term& a, const Term& b) {
  if (a.atoms.size() != b.atoms.size()) return a.atoms.size() > b.atoms.size();
  return a.key < b.key;
}

std::string term_text(const Term& t) {
  if (t.coef == 1) return t.key;
  if (t.coef == -1) return "-" + t.key;
  return std::to_string(t.coef) + "*" + t.key;
}

std::shared_ptr<const SymExpr::Rep> normalize(std::vector<Term> terms, int64_t constant) {
  std::map<std::string, Term> by_key;
  for (Term& t : terms) {
    auto [it, inserted] = by_key.try_emplace(t.key, t);
    if (!inserted) it->second.coef = checked_add(it->second.coef, t.coef);
  }
  auto rep = std::make_shared<SymExpr::Rep>();
  for (auto& [key, t] : by_key)
    if (t.coef != 0) rep->terms.push_back(std::move(t));
  std::sort(rep->terms.begin(), rep->terms.end(), term_before);
  rep->constant = constant;
  for (size_t i = 0; i < rep->terms.size(); ++i) {
    std::string s = term_text(rep->terms[i]);
    rep->text += (i && s[0] != '-' ? "+" : "") + s;
  }
  if (rep->terms.empty())
    rep->text = std::to_string(constant);
  else if (constant != 0)
    rep->text += (constant > 0 ? "+" : "") + std::to_string(constant);
  return rep;
}

Term atom_term(AtomPtr a) {
  Term t;
  t.key = a->text;
  t.atoms.push_back(std::move(a));
  t.coef = 1;
  return t;
}

}  // namespace

SymExpr::SymExpr(int64_t c) : rep_(normalize({}, c)) {}

Status SymExpr::check_symbol_name(std::string_view name) {
  auto letter = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; };
  auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  const bool valid = !name.empty() && letter(name[0]) &&
                     std::all_of(name.begin(), name.end(), [&](char c) { return letter(c) || digit(c); });
  if (!valid)
    return make_error("invalid dim symbol '", name,
                      "': a symbol is a letter or '_' followed by letters, digits or '_'");
  if (name == "floor") return make_error("invalid dim symbol 'floor': the word is floor division in dim expressions");
  return Status::ok();
}

SymExpr SymExpr::symbol(const std::string& name) {
  if (Status valid = check_symbol_name(name); !valid) throw Error(valid.error());
  auto a = std::make_shared<Atom>();
  a->text = name;
  a->name = name;
  return SymExpr(normalize({atom_term(std::move(a))}, 0));
}

SymExpr SymExpr::floor_div(const SymExpr& a, int64_t d) {
  if (d <= 0)
    throw Error(make_error("floor division of the dim ", a.to_string(), " by ", d, ": the divisor must be positive"));
  if (d == 1) return a;
  // a = d*q + r termwise with each remainder coefficient in [0, d): floor(a/d) = q + floor(r/d).
  std::vector<Term> q_terms, r_terms;
  for (const Term& t : a.rep_->terms) {
    int64_t q = floor_div_int(t.coef, d);
    int64_t r = t.coef - q * d;
    if (q) q_terms.push_back(Term{t.atoms, q, t.key});
    if (r) r_terms.push_back(Term{t.atoms, r, t.key});
  }
  int64_t qc = floor_div_int(a.rep_->constant, d);
  int64_t rc = a.rep_->constant - qc * d;
  SymExpr q(normalize(std::move(q_terms), qc));
  if (r_terms.empty()) return q;  // 0 <= rc < d
  // floor((floor(p/e) + rc) / d) = floor((p + rc*e) / (e*d)).
  if (r_terms.size() == 1 && r_terms[0].coef == 1 && r_terms[0].atoms.size() == 1 && r_terms[0].atoms[0]->den) {
    const Atom& inner = *r_terms[0].atoms[0];
    return q + floor_div(*inner.num + SymExpr(checked_mul(rc, inner.den)), checked_mul(inner.den, d));
  }
  int64_t g = d;
  for (const Term& t : r_terms) g = std::gcd(g, t.coef);
  g = std::gcd(g, rc);
  for (Term& t : r_terms) t.coef /= g;
  SymExpr r(normalize(std::move(r_terms), rc / g));
  auto atom = std::make_shared<Atom>();
  atom->den = d / g;
  const std::string& rt = r.rep_->text;
  bool single = r.rep_->terms.size() == 1 && r.rep_->constant == 0;
  atom->text = "floor(" + (single ? rt : "(" + rt + ")") + "/" + std::to_string(atom->den) + ")";
  atom->num = std::move(r);
  return q + SymExpr(normalize({atom_term(std::move(atom))}, 0));
}

bool SymExpr::is_constant() const { return rep_->terms.empty(); }

int64_t SymExpr::constant_value() const {
  if (!is_constant()) throw Error(make_error("SymExpr::constant_value(): ", to_string(), " is not a constant"));
  return rep_->constant;
}

std::optional<std::string> SymExpr::as_symbol() const {
  const auto& ts = rep_->terms;
  if (ts.size() != 1 || rep_->constant != 0 || ts[0].coef != 1 || ts[0].atoms.size() != 1 || ts[0].atoms[0]->den)
    return std::nullopt;
  return ts[0].atoms[0]->name;
}

SymExpr operator+(const SymExpr& a, const SymExpr& b) {
  const SymExpr operands[] = {a, b};
  return SymExpr::sum(operands);
}

SymExpr SymExpr::sum(std::span<const SymExpr> operands) {
  std::vector<Term> terms;
  int64_t constant = 0;
  for (const SymExpr& e : operands) {
    terms.insert(terms.end(), e.rep_->terms.begin(), e.rep_->terms.end());
    constant = checked_add(constant, e.rep_->constant);
  }
  return SymExpr(normalize(std::move(terms), constant));
}

SymExpr SymExpr::product(std::span<const SymExpr> factors) {
  if (factors.empty()) return SymExpr(1);
  if (factors.size() == 1) return factors[0];
  const size_t half = factors.size() / 2;
  return product(factors.first(half)) * product(factors.subspan(half));
}

SymExpr SymExpr::operator-() const {
  std::vector<Term> terms = rep_->terms;
  for (Term& t : terms) t.coef = checked_mul(t.coef, -1);
  return SymExpr(normalize(std::move(terms), checked_mul(rep_->constant, -1)));
}

SymExpr operator-(const SymExpr& a, const SymExpr& b) { return a + (-b); }

SymExpr operator*(const SymExpr& lhs, const SymExpr& rhs) {
  std::vector<Term> terms;
  const SymExpr::Rep& a = *lhs.rep_;
  const SymExpr::Rep& b = *rhs.rep_;
  for (const Term& x : a.terms) {
    if (b.constant) terms.push_back(Term{x.atoms, checked_mul(x.coef, b.constant), x.key});
    for (const Term& y : b.terms) {
      Term t;
      t.atoms.reserve(x.atoms.size() + y.atoms.size());
      std::merge(x.atoms.begin(), x.atoms.end(), y.atoms.begin(), y.atoms.end(), std::back_inserter(t.atoms),
                 [](const AtomPtr& p, const AtomPtr& q) { return p->text < q->text; });
      t.coef = checked_mul(x.coef, y.coef);
      t.key = join_key(t.atoms);
      terms.push_back(std::move(t));
    }
  }
  if (a.constant)
    for (const Term& y : b.terms) terms.push_back(Term{y.atoms, checked_mul(a.constant, y.coef), y.key});
  return SymExpr(normalize(std::move(terms), checked_mul(a.constant, b.constant)));
}

std::optional<int64_t> SymExpr::evaluate(const std::map<std::string, int64_t>& bindings) const {
  SymExpr s = substitute(bindings);
  if (!s.is_constant()) return std::nullopt;
  return s.constant_value();
}

SymExpr SymExpr::substitute(const std::map<std::string, int64_t>& bindings) const {
  std::vector<SymExpr> terms{SymExpr(rep_->constant)};
  for (const Term& t : rep_->terms) {
    std::vector<SymExpr> factors{SymExpr(t.coef)};
    for (const AtomPtr& a : t.atoms) {
      if (a->den) {
        factors.push_back(floor_div(a->num->substitute(bindings), a->den));
        continue;
      }
      auto it = bindings.find(a->name);
      factors.push_back(it == bindings.end() ? symbol(a->name) : SymExpr(it->second));
    }
    terms.push_back(product(factors));
  }
  return sum(terms);
}

void SymExpr::collect_symbols(std::set<std::string>& out) const {
  for (const Term& t : rep_->terms)
    for (const AtomPtr& a : t.atoms) {
      if (a->den)
        a->num->collect_symbols(out);
      else
        out.insert(a->name);
    }
}

std::optional<SymExpr> SymExpr::exact_div(const SymExpr& a, const SymExpr& b) {
  if (a == b && !(b == SymExpr(0))) return SymExpr(1);
  const Rep& d = *b.rep_;
  int64_t c = 0;
  std::vector<AtomPtr> m;
  if (d.terms.empty()) {
    c = d.constant;
  } else if (d.terms.size() == 1 && d.constant == 0) {
    c = d.terms[0].coef;
    m = d.terms[0].atoms;
  } else {
    return std::nullopt;
  }
  if (c == 0) return std::nullopt;
  if (a.rep_->constant % c != 0 || (!m.empty() && a.rep_->constant != 0)) return std::nullopt;
  std::vector<Term> terms;
  int64_t constant = a.rep_->constant / c;
  for (const Term& t : a.rep_->terms) {
    if (t.coef % c != 0) return std::nullopt;
    // Remove m's atoms from t's (both sorted by text) as a multiset.
    std::vector<AtomPtr> rest;
    size_t j = 0;
    for (const AtomPtr& x : t.atoms) {
      if (j < m.size() && m[j]->text == x->text)
        ++j;
      else
        rest.push_back(x);
    }
    if (j != m.size()) return std::nullopt;
    if (rest.empty())
      constant = checked_add(constant, t.coef / c);
    else
      terms.push_back(Term{rest, t.coef / c, join_key(rest)});
  }
  return SymExpr(normalize(std::move(terms), constant));
}

std::vector<SymTerm> SymExpr::terms() const {
  std::vector<SymTerm> out;
  for (const Term& t : rep_->terms) {
    SymTerm term{t.coef, {}};
    for (const AtomPtr& a : t.atoms) term.factors.push_back(SymFactor{a->name, a->num, a->den});
    out.push_back(std::move(term));
  }
  return out;
}

int64_t SymExpr::constant_term() const { return rep_->constant; }

std::string SymExpr::to_string() const { return rep_->text; }
bool operator==(const SymExpr& a, const SymExpr& b) { return a.rep_ == b.rep_ || a.rep_->text == b.rep_->text; }
bool operator<(const SymExpr& a, const SymExpr& b) { return a.rep_->text < b.rep_->text; }

std::string ShapeGuard::to_string() const {
  return lhs.to_string() + (rel == GuardRel::Eq ? " == " : " >= ") + rhs.to_string();
}

std::optional<bool> ShapeGuard::holds(const std::map<std::string, int64_t>& bindings) const {
  std::optional<int64_t> l = lhs.evaluate(bindings), r = rhs.evaluate(bindings);
  if (!l || !r) return std::nullopt;
  return rel == GuardRel::Eq ? *l == *r : *l >= *r;
}

}  // namespace kiln
