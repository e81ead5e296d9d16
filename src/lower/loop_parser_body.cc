// Parses the parts of a loop-IR kernel's body (loop_parser.h): body ops (load, store, const,
// cast, index, indirect, random, reduce and the compute ops), index expressions with their
// indirect terms, literals, dtypes and attributes.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "lower/loop_parser.h"
#include "ops/op_info.h"
#include "ops/schema_check.h"

namespace kiln::loop_parsing {

Expected<std::vector<int64_t>> LoopParser::int_list() {
  KILN_TRY(expect(TokenKind::LBracket, "'['"));
  std::vector<int64_t> v;
  if (at(TokenKind::RBracket)) {
    bump();
    return v;
  }
  while (true) {
    KILN_ASSIGN_OR_RETURN(int64_t x, integer());
    v.push_back(x);
    if (at(TokenKind::RBracket)) {
      bump();
      return v;
    }
    KILN_TRY(expect(TokenKind::Comma, "',' or ']'"));
  }
}

Expected<DType> LoopParser::dtype() {
  std::optional<DType> d = at(TokenKind::Ident) ? dtype_from_name(tok_.text) : std::nullopt;
  if (!d) return error_at(tok_, "expected a dtype (f32, i64, ...), got ", describe(tok_));
  bump();
  return *d;
}

bool layout_fits(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  int64_t count = 8, extent = 8;
  for (size_t d = 0; d < sizes.size(); ++d) {
    int64_t reach = 0;
    if (__builtin_mul_overflow(count, std::max<int64_t>(sizes[d], 1), &count)) return false;
    if (sizes[d] > 0 &&
        (__builtin_mul_overflow(sizes[d] - 1, strides[d], &reach) ||
         __builtin_mul_overflow(reach, int64_t{8}, &reach) || __builtin_add_overflow(extent, reach, &extent)))
      return false;
  }
  return true;
}

Expected<std::pair<DType, std::vector<int64_t>>> LoopParser::buffer_type() {
  KILN_ASSIGN_OR_RETURN(DType d, dtype());
  Token t = tok_;
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, int_list());
  for (int64_t s : sizes)
    if (s < 0) return error_at(t, "sizes must not be negative");
  if (!layout_fits(sizes, std::vector<int64_t>(sizes.size(), 0)))
    return error_at(t, "the buffer is too large to address");
  return std::make_pair(d, std::move(sizes));
}

Expected<Scalar> LoopParser::literal() {
  Token t = tok_;
  if (at(TokenKind::Integer)) {
    KILN_ASSIGN_OR_RETURN(int64_t v, integer());
    return Scalar(v);
  }
  if (at(TokenKind::Float)) {
    char* end = nullptr;
    double v = std::strtod(t.text.c_str(), &end);
    if (end != t.text.c_str() + t.text.size()) return error_at(t, "malformed number '", t.text, "'");
    bump();
    return Scalar(v);
  }
  const bool negative = at(TokenKind::Minus);
  if (negative) bump();
  if (at(TokenKind::Ident)) {
    const std::optional<Scalar> s = named_literal(tok_.text, negative);
    if (s) {
      bump();
      return *s;
    }
  }
  return error_at(negative ? tok_ : t, "expected a literal (a number, true, false, none, inf or nan)");
}

Expected<AttrValue> LoopParser::attr_value() {
  Token t = tok_;
  if (at(TokenKind::String)) {
    bump();
    return AttrValue(t.text);
  }
  if (at(TokenKind::LBracket)) {
    KILN_ASSIGN_OR_RETURN(std::vector<int64_t> v, int_list());
    return AttrValue(std::move(v));
  }
  if (at(TokenKind::Ident)) {
    if (std::optional<DType> d = dtype_from_name(t.text)) {
      bump();
      return AttrValue(*d);
    }
  }
  KILN_ASSIGN_OR_RETURN(Scalar s, literal());
  return AttrValue::from_scalar(s);
}

Expected<AttrMap> LoopParser::attrs(OpKind op) {
  AttrMap out;
  const OpSchema& schema = op_info(op).schema;
  KILN_TRY(expect(TokenKind::LBrace, "'{'"));
  if (at(TokenKind::RBrace)) {
    bump();
    return out;
  }
  while (true) {
    if (!at(TokenKind::Ident)) return error_at(tok_, "expected an attribute name, got ", describe(tok_));
    Token name = tok_;
    const ArgSchema* arg = schema.find_arg(name.text);
    if (!arg || !arg->is_attr()) return error_at(name, "op '", schema.name, "' has no attribute '", name.text, "'");
    if (out.find(name.text)) return error_at(name, "duplicate attribute '", name.text, "'");
    bump();
    KILN_TRY(expect(TokenKind::Equal, "'='"));
    Token vt = tok_;
    KILN_ASSIGN_OR_RETURN(AttrValue raw, attr_value());
    Expected<AttrValue> fitted = fit_attr(schema, name.text, raw);
    if (!fitted) return error_at(vt, fitted.error().message());
    out.set(name.text, std::move(*fitted));
    if (at(TokenKind::RBrace)) {
      bump();
      return out;
    }
    KILN_TRY(expect(TokenKind::Comma, "',' or '}'"));
  }
}

// A compute op's attributes: only div's rounding_mode ("trunc" or "floor"); the other
// attributes of elementwise ops (alpha, clamp's bounds, round's decimals) become body ops.
Status LoopParser::compute_attrs(BodyOp& op) {
  Token t = tok_;
  KILN_ASSIGN_OR_RETURN(op.attrs, attrs(op.op));
  for (const auto& [name, value] : op.attrs.items()) {
    if (op.op != OpKind::Div || name != "rounding_mode")
      return error_at(t, "attribute '", name, "' of '", op_info(op.op).name(),
                      "' is not allowed in a loop body (only div's rounding_mode is)");
    if (!value.is_string() || (value.as_string() != "trunc" && value.as_string() != "floor"))
      return error_at(t, "rounding_mode must be \"trunc\" or \"floor\" in a loop body");
  }
  return Status::ok();
}

// term := [INT '*'] atom | INT ; atom := i<k> | div(expr, INT) | mod(expr, INT) | %value
// (a %value, the result of an `indirect` op, only in a load's or store's index: `values`).
Expected<IndexExpr> LoopParser::index_term(int num_vars, IndirectTerms* values, int64_t sign) {
  int64_t coeff = 1;
  if (at(TokenKind::Integer)) {
    KILN_ASSIGN_OR_RETURN(int64_t c, integer());
    if (!at(TokenKind::Star)) return IndexExpr::constant_of(c).scaled(sign);
    bump();
    coeff = c;
  }
  Token t = tok_;
  if (at(TokenKind::ValueName) && values) {
    auto it = values_.find(t.text);
    if (it == values_.end()) return error_at(t, "undefined value '%", t.text, "'");
    const LoopKernel& k = *values->kernel;
    if (k.body[static_cast<size_t>(it->second)].kind != BodyOp::Kind::Indirect)
      return error_at(t, "'%", t.text,
                      "' is not a checked index: a load or store index adds only values of 'indirect'");
    if (k.kind == KernelKind::Reduction && k.reduce_op >= 0 && it->second < k.reduce_op)
      return error_at(t, "value '%", t.text, "' is defined inside the reduce loops; use the reduce op's result");
    bump();
    values->terms.emplace_back(it->second, wrapping_mul(coeff, sign));
    return IndexExpr();
  }
  if (at_ident("div") || at_ident("mod")) {
    NestingLimit::Level level(index_nesting_);
    if (level.too_deep())
      return error_at(t, "index expression nested deeper than ", index_nesting_.max_depth(), " levels");
    const bool is_div = t.text == "div";
    bump();
    KILN_TRY(expect(TokenKind::LParen, "'('"));
    KILN_ASSIGN_OR_RETURN(IndexExpr inner, index_expr(num_vars));
    KILN_TRY(expect(TokenKind::Comma, "','"));
    Token dt = tok_;
    KILN_ASSIGN_OR_RETURN(int64_t d, integer());
    if (d <= 0) return error_at(dt, "the divisor of ", t.text, " must be positive");
    KILN_TRY(expect(TokenKind::RParen, "')'"));
    IndexExpr e = is_div ? IndexExpr::floor_div(std::move(inner), d) : IndexExpr::mod(std::move(inner), d);
    return e.scaled(wrapping_mul(coeff, sign));
  }
  if (at(TokenKind::Ident) && t.text.size() > 1 && t.text[0] == 'i') {
    int v = -1;
    auto [ptr, ec] = std::from_chars(t.text.data() + 1, t.text.data() + t.text.size(), v);
    if (ec == std::errc() && ptr == t.text.data() + t.text.size() && v >= 0) {
      if (v >= num_vars)
        return error_at(t, "'", t.text, "' is not a loop variable here (", num_vars, " enclosing loops)");
      bump();
      return IndexExpr::var(v).scaled(wrapping_mul(coeff, sign));
    }
  }
  return error_at(t, "expected an index term (i<k>, div(...), mod(...) or an integer), got ", describe(t));
}

// expr := ['-'] term { ('+' | '-') term }   (a negative integer token also continues it)
Expected<IndexExpr> LoopParser::index_expr(int num_vars, IndirectTerms* values) {
  const bool negate = at(TokenKind::Minus);
  if (negate) bump();
  KILN_ASSIGN_OR_RETURN(IndexExpr e, index_term(num_vars, values, negate ? -1 : 1));
  while (true) {
    if (at(TokenKind::Plus) || at(TokenKind::Minus)) {
      const bool minus = at(TokenKind::Minus);
      bump();
      KILN_ASSIGN_OR_RETURN(IndexExpr t, index_term(num_vars, values, minus ? -1 : 1));
      e = e.plus(t);
    } else if (at(TokenKind::Integer) && tok_.text[0] == '-') {
      KILN_ASSIGN_OR_RETURN(IndexExpr t, index_term(num_vars, values, 1));
      e = e.plus(t);
    } else {
      return e;
    }
  }
}

// A load's or store's `[index]` with its indirect terms (merged per value, zero ones dropped).
Status LoopParser::access_index(const LoopKernel& k, int depth, BodyOp& op, std::vector<int>& values) {
  KILN_TRY(expect(TokenKind::LBracket, "'['"));
  IndirectTerms terms{&k, {}};
  KILN_ASSIGN_OR_RETURN(op.index, index_expr(depth, &terms));
  KILN_TRY(expect(TokenKind::RBracket, "']'"));
  for (const auto& [v, c] : terms.terms) {
    auto it = std::find(values.begin(), values.end(), v);
    if (it == values.end()) {
      values.push_back(v);
      op.indirect.push_back(c);
    } else {
      int64_t& sum = op.indirect[static_cast<size_t>(it - values.begin())];
      sum = static_cast<int64_t>(static_cast<uint64_t>(sum) + static_cast<uint64_t>(c));
    }
  }
  for (size_t j = op.indirect.size(); j-- > 0;)
    if (op.indirect[j] == 0) {
      op.indirect.erase(op.indirect.begin() + static_cast<std::ptrdiff_t>(j));
      values.erase(values.begin() + static_cast<std::ptrdiff_t>(j));
    }
  return Status::ok();
}

// A store may name an input buffer: the program mutates that input in place (loop_ir.h), as
// lowering's in-place writes and copy_ write-backs do.
Expected<int> LoopParser::buffer_ref() {
  if (!at(TokenKind::ValueName)) return error_at(tok_, "expected a buffer name '%name', got ", describe(tok_));
  int b = p_.find_buffer(tok_.text);
  if (b < 0) return error_at(tok_, "unknown buffer '%", tok_.text, "'");
  bump();
  return b;
}

Expected<int> LoopParser::value_ref(const LoopKernel& k, bool reduce_operand) {
  if (!at(TokenKind::ValueName)) return error_at(tok_, "expected a value '%name', got ", describe(tok_));
  auto it = values_.find(tok_.text);
  if (it == values_.end()) return error_at(tok_, "undefined value '%", tok_.text, "'");
  if (k.kind == KernelKind::Reduction && k.reduce_op >= 0 && reduce_operand && it->second >= k.reduce_op)
    return error_at(tok_, "value '%", tok_.text, "' is not a value of the reduce loops (a reduce op folds one)");
  if (k.kind == KernelKind::Reduction && k.reduce_op >= 0 && !reduce_operand && it->second < k.reduce_op)
    return error_at(tok_, "value '%", tok_.text, "' is defined inside the reduce loops; use the reduce op's result");
  bump();
  return it->second;
}

Status LoopParser::body_op(LoopKernel& k, int depth, bool in_reduce, bool after_reduce_loop) {
  const bool reduction = k.kind == KernelKind::Reduction;
  BodyOp op;
  Token start = tok_;
  std::optional<Token> name;
  if (at(TokenKind::ValueName)) {
    name = tok_;
    if (values_.count(tok_.text)) return error_at(tok_, "value '%", tok_.text, "' is defined twice");
    bump();
    KILN_TRY(expect(TokenKind::Equal, "'='"));
  } else if (!at_ident("store")) {
    return error_at(tok_, "expected a body op ('%name = ...' or 'store'), a loop or '}', got ", describe(tok_));
  }
  if (!at(TokenKind::Ident)) return error_at(tok_, "expected an op name, got ", describe(tok_));
  Token op_tok = tok_;
  const std::string w = tok_.text;
  if (reduction && !in_reduce && !after_reduce_loop)
    return error_at(start, "body ops of a reduction kernel go inside its reduce loops or right after them");
  if (reduction && !in_reduce && k.reduce_op < 0 && w != "reduce")
    return error_at(op_tok, "the first op after the reduce loops must be 'reduce'");
  if (w == "store" && name) return error_at(op_tok, "store has no result");
  bump();
  if (w == "store") {
    if (reduction && in_reduce)
      return error_at(op_tok, "store inside reduce loops (store the reduce op's result after them)");
    op.kind = BodyOp::Kind::Store;
    KILN_ASSIGN_OR_RETURN(op.buffer, buffer_ref());
    std::vector<int> values;
    KILN_TRY(access_index(k, depth, op, values));
    KILN_TRY(expect(TokenKind::Comma, "','"));
    KILN_ASSIGN_OR_RETURN(int v, value_ref(k));
    op.args.push_back(v);
    op.args.insert(op.args.end(), values.begin(), values.end());
    if (at_ident("unique")) {
      op.unique = true;
      bump();
    }
  } else if (w == "load") {
    op.kind = BodyOp::Kind::Load;
    KILN_ASSIGN_OR_RETURN(op.buffer, buffer_ref());
    op.dtype = p_.buffers[static_cast<size_t>(op.buffer)].dtype;
    KILN_TRY(access_index(k, depth, op, op.args));
    if (at_ident("if")) KILN_TRY(load_mask(k, op));
  } else if (w == "indirect") {
    KILN_TRY(indirect(k, op));
  } else if (w == "index") {
    op.kind = BodyOp::Kind::Index;
    op.dtype = DType::I64;
    KILN_ASSIGN_OR_RETURN(op.index, index_expr(depth));
  } else if (w == "random") {
    KILN_TRY(random_op(k, op));
  } else if (w == "const") {
    op.kind = BodyOp::Kind::Const;
    Token lt = tok_;
    KILN_ASSIGN_OR_RETURN(op.value, literal());
    if (op.value.is_none()) return error_at(lt, "a const needs a number, not none");
  } else if (w == "cast") {
    op.kind = BodyOp::Kind::Cast;
    KILN_ASSIGN_OR_RETURN(int v, value_ref(k));
    op.args.push_back(v);
  } else if (w == "reduce") {
    // Several reduce ops fold over the same points; they come right after the reduce loops.
    if (!reduction || in_reduce || !after_reduce_loop ||
        (k.reduce_op >= 0 && k.body.back().kind != BodyOp::Kind::Reduce))
      return error_at(op_tok, "'reduce' ops must come first after the reduce loops of a reduction kernel");
    op.kind = BodyOp::Kind::Reduce;
    std::string names;
    std::optional<ReduceKind> kind;
    for (int r = 0; r < kNumReduceKinds; ++r) {
      const std::string_view name = reduce_kind_name(static_cast<ReduceKind>(r));
      names += std::string(r ? (r + 1 < kNumReduceKinds ? ", " : " or ") : "") + std::string(name);
      if (at(TokenKind::Ident) && tok_.text == name) kind = static_cast<ReduceKind>(r);
    }
    if (!at(TokenKind::Ident)) return error_at(tok_, "expected a reduction (", names, "), got ", describe(tok_));
    if (!kind) return error_at(tok_, "unknown reduction '", tok_.text, "' (expected ", names, ")");
    op.reduce = *kind;
    bump();
    for (int a = 0; a < reduce_arity(op.reduce); ++a) {
      if (a) KILN_TRY(expect(TokenKind::Comma, "','"));
      Token at_arg = tok_;
      KILN_ASSIGN_OR_RETURN(int v, value_ref(k, true));
      const DType adt = k.body[static_cast<size_t>(v)].dtype;
      if (a == 1 && (is_floating(adt) || adt == DType::Bool))
        return error_at(at_arg, "the index operand of ", w, " ", reduce_kind_name(op.reduce),
                        " must be an integer, not ", dtype_name(adt));
      op.args.push_back(v);
    }
  } else {
    std::optional<OpKind> kind = op_from_name(w);
    if (!kind) return error_at(op_tok, "unknown body op '", w, "'");
    const int arity = compute_arity(*kind);
    if (arity == 0) return error_at(op_tok, "op '", w, "' cannot appear in a loop body (use an extern kernel)");
    op.kind = BodyOp::Kind::Compute;
    op.op = *kind;
    for (int a = 0; a < arity; ++a) {
      if (a) KILN_TRY(expect(TokenKind::Comma, "','"));
      KILN_ASSIGN_OR_RETURN(int v, value_ref(k));
      op.args.push_back(v);
    }
    if (at(TokenKind::LBrace)) KILN_TRY(compute_attrs(op));
  }
  if (op.kind == BodyOp::Kind::Const || op.kind == BodyOp::Kind::Compute || op.kind == BodyOp::Kind::Cast ||
      op.kind == BodyOp::Kind::Reduce || op.kind == BodyOp::Kind::Random) {
    KILN_TRY(expect(TokenKind::Colon, "':' and the result dtype"));
    Token dt = tok_;
    KILN_ASSIGN_OR_RETURN(op.dtype, dtype());
    if (op.kind == BodyOp::Kind::Compute && compute_returns_bool(op.op) && op.dtype != DType::Bool)
      return error_at(dt, "'", w, "' gives bool, not ", dtype_name(op.dtype));
    const bool is_int = op.random.kind == RandomKind::Int;
    if (op.kind == BodyOp::Kind::Random && (is_int ? op.dtype != DType::I64 : !is_floating(op.dtype)))
      return error_at(dt, "'random ", random_kind_name(op.random.kind), "' gives ", is_int ? "i64" : "a floating dtype",
                      ", not ", dtype_name(op.dtype));
  }
  if (op.kind == BodyOp::Kind::Reduce && k.reduce_op < 0) k.reduce_op = static_cast<int>(k.body.size());
  if (name) values_[name->text] = static_cast<int>(k.body.size());
  k.body.push_back(std::move(op));
  return Status::ok();
}

// random KIND %counter [state %seed, %offset] seed N [mod M]   (the result dtype follows)
Status LoopParser::random_op(const LoopKernel& k, BodyOp& op) {
  op.kind = BodyOp::Kind::Random;
  const std::string r = at(TokenKind::Ident) ? tok_.text : "";
  if (r == "uniform")
    op.random.kind = RandomKind::Uniform;
  else if (r == "normal")
    op.random.kind = RandomKind::Normal;
  else if (r == "int")
    op.random.kind = RandomKind::Int;
  else
    return error_at(tok_, "expected uniform, normal or int after 'random', got ", describe(tok_));
  bump();
  auto i64_value = [&](std::string_view what) -> Status {
    Token vt = tok_;
    KILN_ASSIGN_OR_RETURN(int v, value_ref(k));
    const DType t = k.body[static_cast<size_t>(v)].dtype;
    if (t != DType::I64) return error_at(vt, "the ", what, " of 'random' must be i64, not ", dtype_name(t));
    op.args.push_back(v);
    return Status::ok();
  };
  KILN_TRY(i64_value("counter"));
  if (at_ident("state")) {
    bump();
    KILN_TRY(i64_value("state seed"));
    KILN_TRY(expect(TokenKind::Comma, "','"));
    KILN_TRY(i64_value("state offset"));
  }
  KILN_TRY(expect_word("seed"));
  KILN_ASSIGN_OR_RETURN(op.random.seed, unsigned_integer());
  if (op.random.kind == RandomKind::Int && at_ident("mod")) {
    bump();
    Token mt = tok_;
    KILN_ASSIGN_OR_RETURN(op.random.modulus, unsigned_integer());
    if (op.random.modulus == 0) return error_at(mt, "the modulus of 'random int' must be positive");
  }
  return Status::ok();
}

// A masked load's `if %mask else LITERAL` (the mask a bool value).
Status LoopParser::load_mask(const LoopKernel& k, BodyOp& op) {
  bump();  // 'if'
  Token mt = tok_;
  KILN_ASSIGN_OR_RETURN(int m, value_ref(k));
  if (k.body[static_cast<size_t>(m)].dtype != DType::Bool)
    return error_at(mt, "the mask of a load must be bool, not ", dtype_name(k.body[static_cast<size_t>(m)].dtype));
  KILN_TRY(expect_word("else"));
  Token lt = tok_;
  KILN_ASSIGN_OR_RETURN(op.value, literal());
  if (op.value.is_none()) return error_at(lt, "a masked load needs a number after 'else', not none");
  op.args.push_back(m);
  op.masked = true;
  return Status::ok();
}

// `indirect %v, size N[, wrap], OP dim D at "NODE"` (the value an integer).
Status LoopParser::indirect(const LoopKernel& k, BodyOp& op) {
  op.kind = BodyOp::Kind::Indirect;
  op.dtype = DType::I64;
  Token vt = tok_;
  KILN_ASSIGN_OR_RETURN(int v, value_ref(k));
  const DType vd = k.body[static_cast<size_t>(v)].dtype;
  if (!is_integral(vd)) return error_at(vt, "an indirect index must be an integer, not ", dtype_name(vd));
  op.args.push_back(v);
  KILN_TRY(expect(TokenKind::Comma, "','"));
  KILN_TRY(expect_word("size"));
  Token st = tok_;
  KILN_ASSIGN_OR_RETURN(op.size, integer());
  if (op.size < 0) return error_at(st, "the size of an indirect index must not be negative");
  KILN_TRY(expect(TokenKind::Comma, "','"));
  if (at_ident("wrap")) {
    op.wrap = true;
    bump();
    KILN_TRY(expect(TokenKind::Comma, "','"));
  }
  Token ot = tok_;
  std::optional<OpKind> kind = at(TokenKind::Ident) ? op_from_name(tok_.text) : std::nullopt;
  if (!kind) return error_at(ot, "expected the indexing op's name, got ", describe(ot));
  op.op = *kind;
  bump();
  KILN_TRY(expect_word("dim"));
  Token dt = tok_;
  KILN_ASSIGN_OR_RETURN(int64_t dim, integer());
  if (dim < 0 || dim > INT32_MAX) return error_at(dt, "the dim of an indirect index must be a non-negative int");
  op.dim = static_cast<int>(dim);
  KILN_TRY(expect_word("at"));
  if (!at(TokenKind::String))
    return error_at(tok_, "expected the indexing node's text (a string), got ", describe(tok_));
  op.where = tok_.text;
  bump();
  return Status::ok();
}

}  // namespace kiln::loop_parsing
