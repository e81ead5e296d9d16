#include "codegen/cpp/cpp_index.h"

#include "codegen/cpp/cpp_scalar.h"

namespace kiln::cpp {

namespace {

// Whether e >= 0 at every point (loop variables are non-negative; mod is).
bool non_negative(const IndexExpr& e) {
  if (e.constant < 0) return false;
  for (const IndexTerm& t : e.terms)
    if (t.coeff < 0 || (t.kind == IndexTerm::Kind::Div && !non_negative(t.inner.front()))) return false;
  return true;
}

std::string term_body(const IndexTerm& t) {
  if (t.kind == IndexTerm::Kind::Var) return "i" + std::to_string(t.var);
  const IndexExpr& in = t.inner.front();
  const std::string inner = index_cpp(in), d = std::to_string(t.divisor);
  if (!non_negative(in))
    return std::string(t.kind == IndexTerm::Kind::Div ? "kiln_floordiv(" : "kiln_mod(") + inner + ", " + d + ")";
  const bool simple = in.terms.size() == 1 && in.constant == 0 && in.terms.front().coeff == 1;
  return (simple ? inner : "(" + inner + ")") + (t.kind == IndexTerm::Kind::Div ? " / " : " % ") + d;
}

// The magnitude of v as a literal (INT64_MIN has none: it stays a signed literal).
std::string magnitude(int64_t v) { return v == INT64_MIN ? int_literal(v) : std::to_string(v < 0 ? -v : v); }

}  // namespace

std::string index_cpp(const IndexExpr& e) {
  std::string s;
  for (const IndexTerm& t : e.terms) {
    const bool neg = t.coeff < 0 && t.coeff != INT64_MIN;
    s += s.empty() ? (neg ? "-" : "") : (neg ? " - " : " + ");
    std::string body = term_body(t);
    // `-(i1 / 4)` and `2 * (i1 % 4)`: unary minus and * bind at least as tightly as / and %.
    if (t.kind != IndexTerm::Kind::Var && t.coeff != 1 && body.back() != ')') body = "(" + body + ")";
    s += (t.coeff == 1 || t.coeff == -1) ? body : magnitude(t.coeff) + " * " + body;
  }
  if (s.empty()) return int_literal(e.constant);
  if (e.constant > 0) s += " + " + std::to_string(e.constant);
  if (e.constant < 0) s += " - " + magnitude(e.constant);
  return s;
}

}  // namespace kiln::cpp
