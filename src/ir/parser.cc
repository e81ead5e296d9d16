// Recursive descent over the tokens of lexer.h. Each parse_* function reads one construct
// and fails at the first token that does not fit, with a message naming what was expected.
// Names in the text (%x, %7) are scoped to one graph; a subgraph sees only its own inputs.
#include "ir/parser.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "ir/lexer.h"
#include "ir/verifier.h"
#include "ops/schema_check.h"
#include "support/nesting_limit.h"

namespace kiln {

namespace {

// Deeper nesting is almost surely a generated or hostile file; refusing it keeps the
// parser's and verifier's recursion bounded.
constexpr int kMaxSubgraphDepth = 64;

using Scope = std::unordered_map<std::string, Value*>;

std::optional<InputRole> role_from_name(std::string_view s) {
  if (s == "input") return InputRole::Input;
  if (s == "param") return InputRole::Param;
  if (s == "buffer") return InputRole::Buffer;
  if (s == "tangent") return InputRole::Tangent;
  if (s == "rng_state") return InputRole::RngState;
  return std::nullopt;
}

std::string types_to_string(const std::vector<TensorType>& types) {
  std::string s;
  for (size_t i = 0; i < types.size(); ++i) s += (i ? ", " : "") + types[i].to_string();
  return s;
}

class Parser {
 public:
  Parser(std::string_view text, std::string_view file, bool verify = true)
      : lexer_(text), file_(file), verify_(verify) {
    bump();
  }

  Expected<std::vector<std::unique_ptr<Graph>>> parse_file(bool single);

 private:
  void bump() { tok_ = lexer_.next(); }
  bool at(TokenKind k) const { return tok_.kind == k; }
  bool at_ident(std::string_view s) const { return tok_.kind == TokenKind::Ident && tok_.text == s; }
  SourceLoc loc_of(const Token& t) const { return SourceLoc{file_, t.line, t.col}; }

  // An error at token `t`; a lexer error token reports its own message instead.
  template <typename... Args>
  Diagnostic error_at(const Token& t, Args&&... args) const {
    if (t.kind == TokenKind::Error) return Diagnostic(t.text, loc_of(t));
    Diagnostic d = make_error(std::forward<Args>(args)...);
    d.with_loc(loc_of(t));
    return d;
  }
  // Consumes a token of kind `k`, or fails with "expected 'what' context".
  Status expect(TokenKind k, std::string_view what, std::string_view context) {
    if (!at(k)) return error_at(tok_, "expected ", what, " ", context);
    bump();
    return Status::ok();
  }

  Expected<std::unique_ptr<Graph>> parse_graph_def(std::string name, const Token& start, int depth);
  Status parse_inputs(Graph& g, Scope& scope);
  Expected<std::vector<TensorType>> parse_type_list(std::string_view context);
  Expected<TensorType> parse_type();
  Expected<Dim> parse_dim();
  Expected<SymExpr> parse_dim_sum();
  Expected<SymExpr> parse_attr_expr();
  Expected<SymExpr> parse_dim_product();
  Expected<SymExpr> parse_dim_factor();
  Status parse_guard(Graph& g, const Scope& scope);
  Status parse_node(Graph& g, Scope& scope, int depth);
  Expected<std::vector<Token>> parse_result_names(const Scope& scope);
  Expected<std::vector<Operand>> parse_operands(const Scope& scope, std::vector<Token>& operand_tokens);
  Expected<Scalar> parse_literal();
  Expected<AttrMap> parse_attrs(const OpSchema& schema);
  Expected<AttrValue> parse_attr_value();
  Expected<std::vector<std::unique_ptr<Graph>>> parse_region(const OpSchema& schema, const Token& op_tok, int depth);
  Status parse_return(Graph& g, const Scope& scope, const std::vector<TensorType>& declared);
  Expected<int64_t> parse_int(const Token& t) const;
  Expected<double> parse_float(const Token& t) const;

  Lexer lexer_;
  std::string file_;
  bool verify_;
  Token tok_;
  NestingLimit dim_nesting_;  // parentheses and floor() in dims and guards
};

Expected<std::vector<std::unique_ptr<Graph>>> Parser::parse_file(bool single) {
  std::vector<std::unique_ptr<Graph>> graphs;
  while (!at(TokenKind::Eof)) {
    if (single && !graphs.empty()) return error_at(tok_, "expected end of input after the graph");
    Token start = tok_;
    if (!at_ident("graph")) return error_at(tok_, "expected 'graph'");
    bump();
    if (!at(TokenKind::GraphName)) return error_at(tok_, "expected a graph name '@name' after 'graph'");
    std::string name = tok_.text;
    bump();
    KILN_ASSIGN_OR_RETURN(std::unique_ptr<Graph> g, parse_graph_def(std::move(name), start, 0));
    if (verify_) {
      Status verified = verify_graph(*g);
      if (!verified) return verified.error().with_loc(loc_of(start));
    }
    graphs.push_back(std::move(g));
  }
  if (graphs.empty()) return error_at(tok_, "expected 'graph': the input holds no graph");
  return graphs;
}

// After `graph @name` or `label = graph`: the signature and the body.
Expected<std::unique_ptr<Graph>> Parser::parse_graph_def(std::string name, const Token& start, int depth) {
  if (depth > kMaxSubgraphDepth) return error_at(start, "subgraphs nested deeper than ", kMaxSubgraphDepth, " levels");
  auto g = std::make_unique<Graph>(std::move(name));
  Scope scope;
  KILN_TRY(expect(TokenKind::LParen, "'('", "before the graph's inputs"));
  KILN_TRY(parse_inputs(*g, scope));
  KILN_TRY(expect(TokenKind::Arrow, "'->'", "after the graph's inputs"));
  KILN_TRY(expect(TokenKind::LParen, "'('", "before the graph's result types"));
  KILN_ASSIGN_OR_RETURN(std::vector<TensorType> declared, parse_type_list("in the graph's result types"));
  KILN_TRY(expect(TokenKind::LBrace, "'{'", "before the graph's body"));
  while (!at_ident("return")) {
    if (at(TokenKind::RBrace) || at(TokenKind::Eof)) return error_at(tok_, "expected 'return' at the end of the graph");
    if (at_ident("guard"))
      KILN_TRY(parse_guard(*g, scope));
    else
      KILN_TRY(parse_node(*g, scope, depth));
  }
  KILN_TRY(parse_return(*g, scope, declared));
  return g;
}

// `%x: f32[B,16], %w: param f32[16,32])`, the closing parenthesis included.
Status Parser::parse_inputs(Graph& g, Scope& scope) {
  if (at(TokenKind::RParen)) {
    bump();
    return Status::ok();
  }
  while (true) {
    if (!at(TokenKind::ValueName)) return error_at(tok_, "expected an input name '%name'");
    Token name = tok_;
    if (scope.count(name.text)) return error_at(name, "redefinition of value %", name.text);
    bump();
    KILN_TRY(expect(TokenKind::Colon, "':'", "after the input name"));
    InputRole role = InputRole::Input;
    if (at(TokenKind::Ident)) {
      if (auto r = role_from_name(tok_.text)) {
        role = *r;
        bump();
      }
    }
    KILN_ASSIGN_OR_RETURN(TensorType type, parse_type());
    scope[name.text] = g.add_input(name.text, std::move(type), role);
    if (at(TokenKind::RParen)) {
      bump();
      return Status::ok();
    }
    KILN_TRY(expect(TokenKind::Comma, "',' or ')'", "after a graph input"));
  }
}

// `f32[4], i64[])` after an opening parenthesis, the closing one included.
Expected<std::vector<TensorType>> Parser::parse_type_list(std::string_view context) {
  std::vector<TensorType> types;
  if (at(TokenKind::RParen)) {
    bump();
    return types;
  }
  while (true) {
    KILN_ASSIGN_OR_RETURN(TensorType t, parse_type());
    types.push_back(std::move(t));
    if (at(TokenKind::RParen)) {
      bump();
      return types;
    }
    KILN_TRY(expect(TokenKind::Comma, "',' or ')'", context));
  }
}

Expected<TensorType> Parser::parse_type() {
  if (!at(TokenKind::Ident)) return error_at(tok_, "expected a type like f32[4]");
  std::optional<DType> dtype = dtype_from_name(tok_.text);
  if (!dtype) return error_at(tok_, "unknown dtype '", tok_.text, "'");
  bump();
  KILN_TRY(expect(TokenKind::LBracket, "'['", "after the dtype"));
  std::vector<Dim> dims;
  if (at(TokenKind::RBracket)) {
    bump();
    return TensorType{*dtype, Shape(std::move(dims))};
  }
  while (true) {
    KILN_ASSIGN_OR_RETURN(Dim d, parse_dim());
    dims.push_back(std::move(d));
    if (at(TokenKind::RBracket)) {
      bump();
      return TensorType{*dtype, Shape(std::move(dims))};
    }
    KILN_TRY(expect(TokenKind::Comma, "',' or ']'", "in the shape"));
  }
}

// A dim: an integer or an expression over symbols, `B`, `B*T`, `T+1`, `floor((T-1)/2)+1`.
Expected<Dim> Parser::parse_dim() {
  Token t = tok_;
  Expected<SymExpr> parsed = [&]() -> Expected<SymExpr> {
    try {
      return parse_dim_sum();
    } catch (const SymExprOverflow& overflow) {
      return error_at(t, "dim expression is too large: ", overflow.what());
    }
  }();
  KILN_ASSIGN_OR_RETURN(SymExpr e, std::move(parsed));
  if (e.is_constant() && e.constant_value() < 0) return error_at(t, "negative dimension ", e.constant_value());
  return Dim(e);
}

// An element of an attribute list, or a scalar attribute in parentheses: an expression as a
// dim writes it, negative constants allowed (`-1` in a view's size).
Expected<SymExpr> Parser::parse_attr_expr() {
  Token t = tok_;
  try {
    return parse_dim_sum();
  } catch (const SymExprOverflow& overflow) {
    return error_at(t, "expression is too large: ", overflow.what());
  }
}

// sum := product (('+' | '-') product)*. The lexer reads `T-1` as `T` and the integer `-1`,
// so a negative integer after a term starts the next term. The terms are added at once
// (SymExpr::sum), so that a long sum takes near-linear time.
Expected<SymExpr> Parser::parse_dim_sum() {
  std::vector<SymExpr> terms;
  KILN_ASSIGN_OR_RETURN(SymExpr first, parse_dim_product());
  terms.push_back(std::move(first));
  while (true) {
    if (at(TokenKind::Plus) || at(TokenKind::Minus)) {
      bool minus = at(TokenKind::Minus);
      bump();
      KILN_ASSIGN_OR_RETURN(SymExpr rhs, parse_dim_product());
      terms.push_back(minus ? -rhs : std::move(rhs));
    } else if ((at(TokenKind::Integer) || at(TokenKind::Float)) && tok_.text[0] == '-') {
      KILN_ASSIGN_OR_RETURN(SymExpr rhs, parse_dim_product());
      terms.push_back(std::move(rhs));
    } else {
      return SymExpr::sum(terms);
    }
  }
}

// product := ['-'] factor ('*' factor)*, multiplied at once (SymExpr::product).
Expected<SymExpr> Parser::parse_dim_product() {
  bool negate = false;
  if (at(TokenKind::Minus)) {
    negate = true;
    bump();
  }
  std::vector<SymExpr> factors;
  while (true) {
    KILN_ASSIGN_OR_RETURN(SymExpr f, parse_dim_factor());
    factors.push_back(std::move(f));
    if (!at(TokenKind::Star)) break;
    bump();
  }
  SymExpr e = SymExpr::product(factors);
  return negate ? -e : e;
}

// factor := INTEGER | SYMBOL | '(' sum ')' | 'floor' '(' product '/' INTEGER ')'
Expected<SymExpr> Parser::parse_dim_factor() {
  Token t = tok_;
  NestingLimit::Level level(dim_nesting_);
  if (level.too_deep()) return error_at(t, "dim expression nested deeper than ", dim_nesting_.max_depth(), " levels");
  if (at(TokenKind::Integer)) {
    KILN_ASSIGN_OR_RETURN(int64_t v, parse_int(t));
    bump();
    return SymExpr(v);
  }
  if (at(TokenKind::LParen)) {
    bump();
    KILN_ASSIGN_OR_RETURN(SymExpr e, parse_dim_sum());
    KILN_TRY(expect(TokenKind::RParen, "')'", "to close the parenthesized dim expression"));
    return e;
  }
  if (at_ident("floor")) {
    bump();
    KILN_TRY(expect(TokenKind::LParen, "'('", "after 'floor'"));
    KILN_ASSIGN_OR_RETURN(SymExpr num, parse_dim_product());
    if (!at(TokenKind::Slash)) return error_at(tok_, "expected '/' in floor(a/d); write a sum as floor((a+b)/d)");
    bump();
    Token d = tok_;
    if (!at(TokenKind::Integer)) return error_at(d, "expected a positive integer divisor in floor(a/d)");
    KILN_ASSIGN_OR_RETURN(int64_t dv, parse_int(d));
    if (dv <= 0) return error_at(d, "floor(a/d) needs a positive divisor, got ", dv);
    bump();
    KILN_TRY(expect(TokenKind::RParen, "')'", "to close floor(a/d)"));
    return SymExpr::floor_div(num, dv);
  }
  if (at(TokenKind::Ident)) {
    bump();
    return SymExpr::symbol(t.text);
  }
  return error_at(t, "expected a dimension (an integer, a symbol or an expression like B*T)");
}

// `guard B*T == 4096 for %3`: an assumption a shape rule made, and the node that made it.
Status Parser::parse_guard(Graph& g, const Scope& scope) {
  bump();
  KILN_ASSIGN_OR_RETURN(SymExpr lhs, parse_dim_sum());
  if (!at(TokenKind::EqualEqual) && !at(TokenKind::GreaterEqual))
    return error_at(tok_, "expected '==' or '>=' in the guard");
  GuardRel rel = at(TokenKind::EqualEqual) ? GuardRel::Eq : GuardRel::Ge;
  bump();
  KILN_ASSIGN_OR_RETURN(SymExpr rhs, parse_dim_sum());
  Node* node = nullptr;
  if (at_ident("for")) {
    bump();
    if (!at(TokenKind::ValueName)) return error_at(tok_, "expected a result name '%name' after 'for'");
    auto it = scope.find(tok_.text);
    if (it == scope.end()) return error_at(tok_, "use of undefined value %", tok_.text);
    node = it->second->producer();
    if (!node) return error_at(tok_, "a guard names the node that needed it, and %", tok_.text, " is an input");
    bump();
  }
  g.add_guard(ShapeGuard{std::move(lhs), rel, std::move(rhs)}, node);
  return Status::ok();
}

Expected<int64_t> Parser::parse_int(const Token& t) const {
  int64_t v = 0;
  auto r = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
  if (r.ec != std::errc() || r.ptr != t.text.data() + t.text.size())
    return error_at(t, "integer literal '", t.text, "' out of range");
  return v;
}

Expected<double> Parser::parse_float(const Token& t) const {
  double v = 0;
  auto r = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
  if (r.ec == std::errc::result_out_of_range) return error_at(t, "float literal '", t.text, "' out of range");
  if (r.ec != std::errc() || r.ptr != t.text.data() + t.text.size())
    return error_at(t, "malformed number '", t.text, "'");
  return v;
}

// `%5, %6 =`: the names a node defines, checked against the ones already in scope.
Expected<std::vector<Token>> Parser::parse_result_names(const Scope& scope) {
  std::vector<Token> names;
  std::unordered_set<std::string> seen;
  while (true) {
    if (!at(TokenKind::ValueName)) return error_at(tok_, "expected a result name '%name'");
    if (scope.count(tok_.text) || !seen.insert(tok_.text).second)
      return error_at(tok_, "redefinition of value %", tok_.text);
    names.push_back(tok_);
    bump();
    if (at(TokenKind::Equal)) {
      bump();
      return names;
    }
    KILN_TRY(expect(TokenKind::Comma, "',' or '='", "after a result name"));
  }
}

Status Parser::parse_node(Graph& g, Scope& scope, int depth) {
  Token start = tok_;
  std::vector<Token> names;
  if (at(TokenKind::ValueName)) {
    KILN_ASSIGN_OR_RETURN(names, parse_result_names(scope));
  }
  if (!at(TokenKind::Ident)) return error_at(tok_, "expected an op name");
  Token op_tok = tok_;
  std::optional<OpKind> kind = op_from_name(op_tok.text);
  if (!kind) return error_at(op_tok, "unknown op '", op_tok.text, "'");
  const OpSchema& schema = op_info(*kind).schema;
  bump();

  KILN_TRY(expect(TokenKind::LParen, "'('", "after the op name"));
  std::vector<Token> operand_tokens;
  KILN_ASSIGN_OR_RETURN(std::vector<Operand> operands, parse_operands(scope, operand_tokens));
  auto args = operand_args_of(schema, static_cast<int>(operands.size()));
  if (!args) return error_at(op_tok, args.error().message());
  for (size_t i = 0; i < operands.size(); ++i) {
    Status kind_ok = check_operand_kind(schema, *(*args)[i], operands[i].is_value(), operands[i].literal);
    if (!kind_ok) return error_at(operand_tokens[i], kind_ok.error().message());
  }

  AttrMap attrs;
  bool has_attrs = at(TokenKind::LBrace);
  if (has_attrs) {
    KILN_ASSIGN_OR_RETURN(attrs, parse_attrs(schema));
  }
  Status required = check_required_attrs(schema, attrs);
  if (!required) return error_at(op_tok, required.error().message());
  KILN_TRY(expect(TokenKind::Colon, "':'", has_attrs ? "after attributes" : "after operand list"));

  Token types_tok = tok_;
  std::vector<TensorType> types;
  if (at(TokenKind::LParen)) {
    bump();
    KILN_ASSIGN_OR_RETURN(types, parse_type_list("in the result types"));
  } else {
    KILN_ASSIGN_OR_RETURN(TensorType t, parse_type());
    types.push_back(std::move(t));
  }
  if (types.size() != names.size())
    return error_at(types_tok, names.size(), " result name", names.size() == 1 ? "" : "s", " but ", types.size(),
                    " result type", types.size() == 1 ? "" : "s");
  if (!schema.variadic_results && static_cast<int>(types.size()) != schema.num_results)
    return error_at(start, schema.name, " has ", schema.num_results, " result", schema.num_results == 1 ? "" : "s",
                    ", got ", types.size());

  std::vector<std::unique_ptr<Graph>> subgraphs;
  KILN_ASSIGN_OR_RETURN(subgraphs, parse_region(schema, op_tok, depth));

  Node* node =
      g.append({*kind, std::move(operands), std::move(attrs), std::move(types), std::move(subgraphs), loc_of(start)});
  for (size_t i = 0; i < names.size(); ++i) scope[names[i].text] = node->result(static_cast<int>(i));
  return Status::ok();
}

// `%1, 0.5, none)` after the opening parenthesis, the closing one included.
Expected<std::vector<Operand>> Parser::parse_operands(const Scope& scope, std::vector<Token>& operand_tokens) {
  std::vector<Operand> operands;
  if (at(TokenKind::RParen)) {
    bump();
    return operands;
  }
  while (true) {
    operand_tokens.push_back(tok_);
    if (at(TokenKind::ValueName)) {
      auto it = scope.find(tok_.text);
      if (it == scope.end()) return error_at(tok_, "use of undefined value %", tok_.text);
      operands.emplace_back(it->second);
      bump();
    } else {
      KILN_ASSIGN_OR_RETURN(Scalar s, parse_literal());
      operands.emplace_back(s);
    }
    if (at(TokenKind::RParen)) {
      bump();
      return operands;
    }
    KILN_TRY(expect(TokenKind::Comma, "',' or ')'", "in the operand list"));
  }
}

// An inline literal: 2, -1, 0.5, true, inf, -inf, nan, none.
Expected<Scalar> Parser::parse_literal() {
  Token t = tok_;
  if (at(TokenKind::Integer)) {
    KILN_ASSIGN_OR_RETURN(int64_t v, parse_int(t));
    bump();
    return Scalar(v);
  }
  if (at(TokenKind::Float)) {
    KILN_ASSIGN_OR_RETURN(double v, parse_float(t));
    bump();
    return Scalar(v);
  }
  bool negative = at(TokenKind::Minus);
  if (negative) bump();
  if (at(TokenKind::Ident)) {
    const std::optional<Scalar> s = named_literal(tok_.text, negative);
    if (s) {
      bump();
      return *s;
    }
  }
  if (negative) return error_at(tok_, "expected 'inf' or 'nan' after '-'");
  return error_at(t, "expected an operand (a value '%name' or a literal)");
}

// `{dim=[1], keepdim=true}`: names checked against the schema, values against their types.
Expected<AttrMap> Parser::parse_attrs(const OpSchema& schema) {
  AttrMap attrs;
  bump();  // '{'
  if (at(TokenKind::RBrace)) {
    bump();
    return attrs;
  }
  while (true) {
    if (!at(TokenKind::Ident)) return error_at(tok_, "expected an attribute name");
    Token name = tok_;
    const ArgSchema* arg = schema.find_arg(name.text);
    if (!arg || !arg->is_attr()) return error_at(name, "op '", schema.name, "' has no attribute '", name.text, "'");
    if (attrs.find(name.text)) return error_at(name, "duplicate attribute '", name.text, "'");
    bump();
    KILN_TRY(expect(TokenKind::Equal, "'='", "after the attribute name"));
    Token value_tok = tok_;
    KILN_ASSIGN_OR_RETURN(AttrValue raw, parse_attr_value());
    auto fitted = fit_attr(schema, name.text, raw);
    if (!fitted) return error_at(value_tok, fitted.error().message());
    attrs.set(name.text, std::move(*fitted));
    if (at(TokenKind::RBrace)) {
      bump();
      return attrs;
    }
    KILN_TRY(expect(TokenKind::Comma, "',' or '}'", "after an attribute"));
  }
}

// none, true, 3, 1e-05, inf, "tanh", [1, 2], f16; symbolic [B, T*16, -1] and (T+1).
Expected<AttrValue> Parser::parse_attr_value() {
  Token t = tok_;
  if (at(TokenKind::String)) {
    bump();
    return AttrValue(t.text);
  }
  if (at(TokenKind::LBracket)) {
    bump();
    AttrValue::SymInts elements;
    if (at(TokenKind::RBracket)) {
      bump();
      return AttrValue(AttrValue::Ints{});
    }
    while (true) {
      if (at(TokenKind::Integer)) {
        // A plain integer as before (its own range check), unless an expression goes on.
        KILN_ASSIGN_OR_RETURN(int64_t v, parse_int(tok_));
        (void)v;
      } else if (!at(TokenKind::Ident) && !at(TokenKind::LParen) && !at(TokenKind::Minus)) {
        return error_at(tok_, "expected an integer or a dim expression in the list");
      }
      KILN_ASSIGN_OR_RETURN(SymExpr e, parse_attr_expr());
      elements.push_back(std::move(e));
      if (at(TokenKind::RBracket)) {
        bump();
        return AttrValue::from_sym_ints(std::move(elements));
      }
      KILN_TRY(expect(TokenKind::Comma, "',' or ']'", "in the list"));
    }
  }
  if (at(TokenKind::LParen)) {
    KILN_ASSIGN_OR_RETURN(SymExpr e, parse_attr_expr());
    return AttrValue::from_sym_int(e);
  }
  if (at(TokenKind::Ident)) {
    if (std::optional<DType> d = dtype_from_name(t.text)) {
      bump();
      return AttrValue(*d);
    }
    if (t.text != "true" && t.text != "false" && t.text != "none" && t.text != "inf" && t.text != "nan")
      return error_at(t, "unknown attribute value '", t.text, "'");
  }
  if (!at(TokenKind::Integer) && !at(TokenKind::Float) && !at(TokenKind::Ident) && !at(TokenKind::Minus))
    return error_at(t, "expected an attribute value");
  KILN_ASSIGN_OR_RETURN(Scalar s, parse_literal());
  return AttrValue::from_scalar(s);
}

// `{ true_fn = graph(...) -> (...) {...} false_fn = ... }` after a node's types: one subgraph
// per Graph argument of the schema, labelled and in schema order.
Expected<std::vector<std::unique_ptr<Graph>>> Parser::parse_region(const OpSchema& schema, const Token& op_tok,
                                                                   int depth) {
  std::vector<std::unique_ptr<Graph>> subgraphs;
  std::vector<const ArgSchema*> expected = schema.subgraph_args();
  if (!at(TokenKind::LBrace)) {
    if (!expected.empty()) return error_at(op_tok, "missing subgraph '", expected[0]->name, "' of ", schema.name);
    return subgraphs;
  }
  if (expected.empty()) return error_at(tok_, "op '", schema.name, "' has no subgraphs");
  bump();
  for (const ArgSchema* arg : expected) {
    if (at(TokenKind::RBrace)) return error_at(tok_, "missing subgraph '", arg->name, "' of ", schema.name);
    if (!at(TokenKind::Ident)) return error_at(tok_, "expected subgraph label '", arg->name, "'");
    if (tok_.text != arg->name)
      return error_at(tok_, "expected subgraph '", arg->name, "' of ", schema.name, ", got '", tok_.text, "'");
    bump();
    KILN_TRY(expect(TokenKind::Equal, "'='", "after the subgraph label"));
    Token start = tok_;
    if (!at_ident("graph")) return error_at(tok_, "expected 'graph' after '", arg->name, " ='");
    bump();
    KILN_ASSIGN_OR_RETURN(std::unique_ptr<Graph> sg, parse_graph_def(arg->name, start, depth + 1));
    subgraphs.push_back(std::move(sg));
  }
  KILN_TRY(expect(TokenKind::RBrace, "'}'", "after the subgraphs"));
  return subgraphs;
}

// `return %a, %b }`: the outputs, checked against the types the signature declared.
Status Parser::parse_return(Graph& g, const Scope& scope, const std::vector<TensorType>& declared) {
  Token ret = tok_;
  bump();
  std::vector<Value*> outputs;
  std::vector<Token> tokens;
  if (at(TokenKind::ValueName)) {
    while (true) {
      if (!at(TokenKind::ValueName)) return error_at(tok_, "expected a value '%name' after ','");
      auto it = scope.find(tok_.text);
      if (it == scope.end()) return error_at(tok_, "use of undefined value %", tok_.text);
      outputs.push_back(it->second);
      tokens.push_back(tok_);
      bump();
      if (!at(TokenKind::Comma)) break;
      bump();
    }
  }
  if (outputs.size() != declared.size())
    return error_at(ret, "return has ", outputs.size(), " value", outputs.size() == 1 ? "" : "s",
                    " but the signature declares ", declared.size(), " (", types_to_string(declared), ")");
  for (size_t i = 0; i < outputs.size(); ++i)
    if (!(outputs[i]->type() == declared[i]))
      return error_at(tokens[i], "return value %", tokens[i].text, " has type ", outputs[i]->type().to_string(),
                      " but the signature declares ", declared[i].to_string());
  KILN_TRY(expect(TokenKind::RBrace, "'}'", "after return"));
  g.set_outputs(std::move(outputs));
  return Status::ok();
}

}  // namespace

Expected<std::vector<std::unique_ptr<Graph>>> parse_graphs(std::string_view text, std::string_view filename) {
  return Parser(text, filename).parse_file(false);
}

Expected<std::vector<std::unique_ptr<Graph>>> parse_graphs_unverified(std::string_view text,
                                                                      std::string_view filename) {
  return Parser(text, filename, false).parse_file(false);
}

Expected<std::unique_ptr<Graph>> parse_graph(std::string_view text, std::string_view filename) {
  KILN_ASSIGN_OR_RETURN(std::vector<std::unique_ptr<Graph>> graphs, Parser(text, filename).parse_file(true));
  return std::move(graphs.front());
}

}  // namespace kiln
