// Dynamic shapes of an exported program (convert_dynamic.h).
#include "import/convert_dynamic.h"

#include <cctype>
#include <charconv>
#include <vector>

#include "support/error.h"

namespace kiln::pt2 {

namespace {

constexpr int kMaxSympyDepth = 64;
// A dim's expression has a handful of terms; a product of sums could have exponentially many
// (a fuzzed archive's Mul(Add(a, b), Add(c, d), ...)), so each step is bounded.
constexpr size_t kMaxSympyTerms = 256;

// A call-shaped sympy srepr: Name(arg, ...), each arg a call, an integer, a quoted string or
// a keyword `name=value` (Symbol's assumptions, which kiln does not need).
class SympyParser {
 public:
  explicit SympyParser(std::string_view text) : text_(text) {}

  Expected<SymExpr> parse() {
    KILN_ASSIGN_OR_RETURN(SymExpr e, expr(0));
    skip_space();
    if (pos_ != text_.size()) return fail("unexpected text after the expression");
    return e;
  }

 private:
  Diagnostic fail(std::string_view what) const {
    return make_error("the dynamic size '", text_, "': ", what, " at offset ", pos_,
                      " (kiln reads Symbol, Integer, Add, Mul and FloorDiv by a positive integer)");
  }

  void skip_space() {
    while (pos_ < text_.size() && text_[pos_] == ' ') ++pos_;
  }
  bool eat(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  std::string_view ident() {
    skip_space();
    size_t start = pos_;
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) ++pos_;
    return text_.substr(start, pos_ - start);
  }
  std::optional<int64_t> integer() {
    skip_space();
    int64_t v = 0;
    auto r = std::from_chars(text_.data() + pos_, text_.data() + text_.size(), v);
    if (r.ec != std::errc()) return std::nullopt;
    pos_ = static_cast<size_t>(r.ptr - text_.data());
    return v;
  }
  std::optional<std::string> quoted() {
    if (!eat('\'')) return std::nullopt;
    size_t end = text_.find('\'', pos_);
    if (end == std::string_view::npos) return std::nullopt;
    std::string s(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return s;
  }
  // Skips a keyword argument's value (True, False, a number).
  void skip_keyword_value() { ident(); }

  Expected<SymExpr> expr(int depth) {
    if (depth > kMaxSympyDepth) return fail("nested too deep");
    std::string_view name = ident();
    if (name.empty()) return fail("expected a sympy expression");
    if (!eat('(')) return fail("expected '(' after " + std::string(name));
    if (name == "Symbol") {
      std::optional<std::string> symbol = quoted();
      if (!symbol) return fail("expected the symbol's quoted name");
      if (!SymExpr::check_symbol_name(*symbol)) return fail("'" + *symbol + "' cannot name a kiln dim symbol");
      while (eat(',')) {
        ident();
        if (!eat('=')) return fail("expected an assumption name=value");
        skip_keyword_value();
      }
      if (!eat(')')) return fail("expected ')'");
      return SymExpr::symbol(*symbol);
    }
    if (name == "Integer") {
      std::optional<int64_t> v = integer();
      if (!v || !eat(')')) return fail("expected Integer(n)");
      return SymExpr(*v);
    }
    if (name == "One" || name == "Zero" || name == "NegativeOne") {
      if (!eat(')')) return fail("expected ')'");
      return SymExpr(name == "One" ? 1 : name == "Zero" ? 0 : -1);
    }
    if (name != "Add" && name != "Mul" && name != "FloorDiv")
      return fail("'" + std::string(name) + "' is not supported");
    std::vector<SymExpr> args;
    do {
      KILN_ASSIGN_OR_RETURN(SymExpr a, expr(depth + 1));
      args.push_back(std::move(a));
    } while (eat(','));
    if (!eat(')')) return fail("expected ')' or ','");
    try {
      if (name == "FloorDiv") {
        if (args.size() != 2 || !args[1].is_constant() || args[1].constant_value() <= 0)
          return fail("FloorDiv needs a positive integer divisor");
        return SymExpr::floor_div(args[0], args[1].constant_value());
      }
      SymExpr acc = name == "Add" ? SymExpr(0) : SymExpr(1);
      for (const SymExpr& a : args) {
        acc = name == "Add" ? acc + a : acc * a;
        if (acc.terms().size() > kMaxSympyTerms) return fail("the expression has too many terms");
      }
      return acc;
    } catch (const SymExprOverflow& e) {
      return fail(e.what());
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

Expected<SymExpr> sym_expr_from_sympy(std::string_view text) { return SympyParser(text).parse(); }

Expected<Shape> archive_shape(const std::vector<SymSize>& sizes, const std::string& what) {
  std::vector<Dim> dims;
  for (const SymSize& s : sizes) {
    if (s.value) {
      if (*s.value < 0) return make_error(what, " has the negative size ", *s.value);
      dims.emplace_back(*s.value);
      continue;
    }
    Expected<SymExpr> e = sym_expr_from_sympy(s.sympy);
    if (!e) return make_error(what, ": ", e.error().message());
    dims.emplace_back(*e);
  }
  return Shape(std::move(dims));
}

bool DynamicSizes::is_sym_size(const Node& n) {
  return n.target == "torch.ops.aten.sym_size.int" || n.target == "aten.sym_size.int";
}

Status DynamicSizes::record(const Node& n, const std::map<std::string, Value*>& values) {
  const Argument* self = nullptr;
  const Argument* dim = nullptr;
  for (const NamedArgument& in : n.inputs) {
    if (in.name == "self") self = &in.arg;
    if (in.name == "dim") dim = &in.arg;
  }
  if (!self || self->kind != Argument::Kind::Tensor || !self->names[0] || !dim || dim->kind != Argument::Kind::Int ||
      dim->symbolic)
    return make_error("sym_size.int needs a tensor 'self' and a static 'dim'");
  if (n.outputs.size() != 1 || !n.outputs[0].symbolic)
    return make_error("sym_size.int does not have one symbolic int result");
  auto it = values.find(*self->names[0]);
  if (it == values.end())
    return make_error("uses the value '", *self->names[0], "', which no earlier node or input defines");
  const Shape& shape = it->second->type().shape;
  int64_t d = dim->ints[0];
  if (d < 0) d += shape.rank();
  if (d < 0 || d >= shape.rank())
    return make_error("sym_size.int: dim ", dim->ints[0], " is out of range for ", shape.to_string());
  sizes_[n.outputs[0].string] = shape[static_cast<int>(d)].expr();
  return Status::ok();
}

Expected<AttrValue> DynamicSizes::attr_value(const Argument& a, const ArgSchema& arg) const {
  if (arg.type != ArgType::SymInts && arg.type != ArgType::SymScalar)
    return make_error("argument '", arg.name, "' is the symbolic size '", a.string, "', but kiln's ",
                      arg_type_name(arg.type), " attribute holds static values only");
  AttrValue::SymInts elements;
  for (size_t i = 0; i < a.ints.size(); ++i) {
    const std::string& name = i < a.sym_names.size() ? a.sym_names[i] : std::string();
    if (name.empty()) {
      elements.emplace_back(a.ints[i]);
      continue;
    }
    auto it = sizes_.find(name);
    if (it == sizes_.end())
      return make_error("argument '", arg.name, "' uses the symbolic int '", name,
                        "', which no sym_size.int node defines (kiln imports symbolic ints read from shapes only)");
    elements.push_back(it->second);
  }
  if (arg.type == ArgType::SymInts) return AttrValue::from_sym_ints(std::move(elements));
  if (a.kind != Argument::Kind::Int || elements.size() != 1)
    return make_error("argument '", arg.name, "' is a list of symbolic sizes where kiln takes one");
  return AttrValue::from_sym_int(elements[0]);
}

void add_range_guards(Graph& g, const Program& p) {
  std::set<std::string> used;
  for (const Value* in : g.inputs())
    for (const Dim& d : in->type().shape.dims())
      if (d.is_symbolic()) d.expr().collect_symbols(used);
  for (const auto& [name, range] : p.range_constraints) {
    if (!used.count(name)) continue;
    const SymExpr s = SymExpr::symbol(name);
    if (range.min) g.add_guard(ShapeGuard{s, GuardRel::Ge, SymExpr(*range.min)}, nullptr);
    if (range.max) g.add_guard(ShapeGuard{SymExpr(*range.max), GuardRel::Ge, s}, nullptr);
  }
}

}  // namespace kiln::pt2
