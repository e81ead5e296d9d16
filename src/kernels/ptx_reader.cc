#include "kernels/ptx_reader.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>
#include <utility>

#include "support/text_cursor.h"

namespace kiln::kernels {

namespace {

// ---------------------------------------------------------------------------------------------
// Tokens. A word is a maximal run of letters, digits and `_ $ % .` (and `::` inside it), so
// an opcode with its modifiers (st.global.v4.f32), a register (%tid.x) and a hex float
// (0f3F800000) are one token each; every other printable character is a one-character token.

enum class TokenKind { Word, String, Punct, End };

struct Token {
  TokenKind kind = TokenKind::End;
  std::string_view text;
  int line = 0;
  int col = 0;

  bool is(char c) const { return kind == TokenKind::Punct && text[0] == c; }
  bool is_word() const { return kind == TokenKind::Word; }
  bool is_directive() const { return is_word() && text[0] == '.'; }
  bool is_number() const { return is_word() && std::isdigit(static_cast<unsigned char>(text[0])); }
  bool is_name() const { return is_word() && !is_directive() && !is_number(); }
};

bool is_word_char(char c) {
  char lower = static_cast<char>(c | 0x20);
  return (c >= '0' && c <= '9') || (lower >= 'a' && lower <= 'z') || c == '_' || c == '$' || c == '%' || c == '.';
}

class Lexer {
 public:
  Lexer(std::string_view text, const std::string& file) : cur_(text, file) {}

  Expected<std::vector<Token>> run() {
    std::vector<Token> out;
    out.reserve(cur_.text().size() / 6);  // nvcc's PTX has about one token per 6 bytes
    while (skip_space_and_comments()) {
      if (failed_) return *failed_;
      out.push_back(lex_one());
      if (failed_) return *failed_;
    }
    if (failed_) return *failed_;
    out.push_back(Token{TokenKind::End, {}, cur_.line(), cur_.col()});
    return out;
  }

 private:
  void fail(int line, int col, std::string message) { failed_ = cur_.error(line, col, std::move(message)); }

  // Skips blanks and comments; false at the end of the text (or after an error).
  bool skip_space_and_comments() {
    while (!cur_.eof()) {
      char c = cur_.at();
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v') {
        cur_.advance();
      } else if (c == '/' && cur_.at(1) == '/') {
        cur_.skip_to_line_end();
      } else if (c == '/' && cur_.at(1) == '*') {
        int line = cur_.line(), col = cur_.col();
        size_t end = cur_.text().find("*/", cur_.pos() + 2);
        if (end == std::string_view::npos) {
          fail(line, col, "unterminated /* comment");
          return false;
        }
        cur_.advance_to(end + 2);
      } else {
        return true;
      }
    }
    return false;
  }

  Token lex_one() {
    Token t{TokenKind::Punct, {}, cur_.line(), cur_.col()};
    size_t start = cur_.pos();
    char c = cur_.at();
    if (is_word_char(c)) {
      t.kind = TokenKind::Word;
      while (!cur_.eof() && (is_word_char(cur_.at()) || (cur_.at() == ':' && cur_.at(1) == ':'))) {
        if (cur_.at() == ':') cur_.advance();
        cur_.advance();
      }
    } else if (c == '"') {
      t.kind = TokenKind::String;
      cur_.advance();
      while (!cur_.eof() && cur_.at() != '"' && cur_.at() != '\n') {
        if (cur_.at() == '\\' && cur_.at(1) != '\0' && cur_.at(1) != '\n') cur_.advance();
        cur_.advance();
      }
      if (cur_.at() != '"') {
        fail(t.line, t.col, "unterminated string");
        return t;
      }
      cur_.advance();
    } else if (c > 0x20 && c < 0x7f) {
      cur_.advance();
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      unsigned char b = static_cast<unsigned char>(c);
      fail(t.line, t.col, std::string("unexpected byte 0x") + kHex[b >> 4] + kHex[b & 15]);
      return t;
    }
    t.text = cur_.since(start);
    return t;
  }

  TextCursor cur_;
  std::optional<Diagnostic> failed_;
};

// ---------------------------------------------------------------------------------------------
// Small helpers.

// A non-negative integer literal: decimal, 0x hex, 0b binary or 0-prefixed octal, with an
// optional U suffix (PTX's unsigned marker).
std::optional<int64_t> parse_int(std::string_view s) {
  if (!s.empty() && (s.back() == 'U' || s.back() == 'u')) s.remove_suffix(1);
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  } else if (s.size() > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
    base = 2;
    s.remove_prefix(2);
  } else if (s.size() > 1 && s[0] == '0') {
    base = 8;
    s.remove_prefix(1);
  }
  uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size() || v > uint64_t(INT64_MAX)) return std::nullopt;
  return static_cast<int64_t>(v);
}

bool is_type_directive(std::string_view d) {
  static constexpr std::string_view kTypes[] = {
      ".b8",     ".b16",     ".b32",        ".b64",  ".b128", ".u8",   ".u16",  ".u32",   ".u64",    ".s8",
      ".s16",    ".s32",     ".s64",        ".f16",  ".f32",  ".f64",  ".bf16", ".f16x2", ".bf16x2", ".pred",
      ".texref", ".surfref", ".samplerref", ".tf32", ".e4m3", ".e5m2", ".f8x2", ".u16x2", ".s16x2"};
  return std::find(std::begin(kTypes), std::end(kTypes), d) != std::end(kTypes);
}

bool is_space_directive(std::string_view d) {
  return d == ".reg" || d == ".param" || d == ".local" || d == ".shared" || d == ".global" || d == ".const" ||
         d == ".tex" || d == ".sreg";
}

// Directives that end at the end of their line (no ';').
bool is_line_directive(std::string_view d) {
  return d == ".version" || d == ".target" || d == ".address_size" || d == ".file" || d == ".loc";
}

bool is_linkage_directive(std::string_view d) {
  return d == ".visible" || d == ".extern" || d == ".weak" || d == ".common";
}

std::vector<std::string> split_opcode(std::string_view op) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i <= op.size(); ++i) {
    if (i == op.size() || op[i] == '.') {
      out.emplace_back(op.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

// Token ranges of one statement, split at top-level commas.
using Range = std::pair<size_t, size_t>;

constexpr int kMaxOperandNesting = 8;

}  // namespace

// ---------------------------------------------------------------------------------------------

bool PtxOperand::has_base_name() const {
  return kind == Kind::Address && !text.empty() && !std::isdigit(static_cast<unsigned char>(text[0])) && text[0] != '-';
}

bool PtxInstruction::has_modifier(std::string_view m) const {
  return std::find(modifiers.begin() + 1, modifiers.end(), m) != modifiers.end();
}

int PtxVariable::bits() const {
  std::string_view t = type;
  if (t == ".pred") return 1;
  if (t == ".b8" || t == ".u8" || t == ".s8" || t == ".e4m3" || t == ".e5m2") return 8;
  if (t == ".b16" || t == ".u16" || t == ".s16" || t == ".f16" || t == ".bf16" || t == ".f8x2") return 16;
  if (t == ".b32" || t == ".u32" || t == ".s32" || t == ".f32" || t == ".f16x2" || t == ".bf16x2" || t == ".tf32" ||
      t == ".u16x2" || t == ".s16x2")
    return 32;
  if (t == ".b64" || t == ".u64" || t == ".s64" || t == ".f64") return 64;
  if (t == ".b128") return 128;
  return 0;
}

bool PtxVariable::declares(std::string_view reg) const {
  if (count < 0) return reg == name;
  if (reg.size() <= name.size() || reg.substr(0, name.size()) != name) return false;
  std::string_view digits = reg.substr(name.size());
  if (digits.size() > 1 && digits[0] == '0') return false;
  int64_t n = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  return ec == std::errc() && ptr == digits.data() + digits.size() && n < count;
}

int PtxFunction::param_index(std::string_view n) const {
  for (size_t i = 0; i < params.size(); ++i)
    if (params[i].name == n) return static_cast<int>(i);
  return -1;
}

int PtxFunction::return_index(std::string_view n) const {
  for (size_t i = 0; i < returns.size(); ++i)
    if (returns[i].name == n) return static_cast<int>(i);
  return -1;
}

const PtxFunction* PtxModule::find(std::string_view n) const {
  const PtxFunction* found = nullptr;
  for (const PtxFunction& f : functions)
    if (f.name == n && (!found || (f.has_body && !found->has_body))) found = &f;
  return found;
}

const PtxFunction* PtxModule::first_entry() const {
  for (const PtxFunction& f : functions)
    if (f.is_entry && f.has_body) return &f;
  return nullptr;
}

// ---------------------------------------------------------------------------------------------
// The parser: a module is a list of directives; a function body a list of statements.

namespace {

class Parser {
 public:
  Parser(std::vector<Token> toks, const std::string& file) : toks_(std::move(toks)), file_(file) {}

  Expected<PtxModule> run() {
    module_.file = file_;
    while (!at_end()) KILN_TRY(parse_module_statement());
    return std::move(module_);
  }

 private:
  const Token& peek(size_t k = 0) const { return toks_[std::min(pos_ + k, toks_.size() - 1)]; }
  bool at_end() const { return peek().kind == TokenKind::End; }
  const Token& next() {
    const Token& t = toks_[pos_];
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  SourceLoc loc(const Token& t) const { return SourceLoc{file_, t.line, t.col}; }

  template <typename... Args>
  Diagnostic error_at(const Token& t, Args&&... args) const {
    Diagnostic d = make_error(std::forward<Args>(args)...);
    d.with_loc(loc(t));
    return d;
  }
  static std::string describe(const Token& t) {
    return t.kind == TokenKind::End ? "the end of the file" : "'" + std::string(t.text) + "'";
  }

  Status expect(char c, std::string_view what) {
    if (!peek().is(c)) return error_at(peek(), "expected '", c, "' ", what, ", found ", describe(peek()));
    next();
    return Status::ok();
  }

  // Skips the rest of a directive: through ';' at depth 0, or up to (not including) a token on
  // a later line at depth 0 (directives such as .maxntid end at the end of their line; a
  // block that opens on the next line, as `.section` has, still belongs to the directive), or
  // up to a closer that does not match.
  void skip_directive() {
    int depth = 0;
    int line = next().line;
    while (!at_end()) {
      const Token& t = peek();
      if (depth == 0 && t.line > line && !t.is('{')) return;
      if (t.is(';') && depth == 0) {
        next();
        return;
      }
      if (t.is('{') || t.is('(') || t.is('[')) ++depth;
      if (t.is('}') || t.is(')') || t.is(']')) {
        if (depth == 0) return;
        --depth;
      }
      line = next().line;
    }
  }

  void skip_line(int line) {
    while (!at_end() && peek().line == line) next();
  }

  Status parse_module_statement() {
    const Token& t = peek();
    if (!t.is_directive()) return error_at(t, "expected a directive at module level, found ", describe(t));
    if (is_line_directive(t.text)) return parse_line_directive();
    std::string linkage;
    while (is_linkage_directive(peek().text) && peek().is_directive()) linkage = std::string(next().text);
    const Token& d = peek();
    if (d.is_directive() && (d.text == ".entry" || d.text == ".func")) return parse_function(linkage);
    if (d.is_directive() && is_space_directive(d.text)) {
      std::vector<PtxVariable> vars;
      KILN_TRY(parse_declaration(0, vars));
      for (PtxVariable& v : vars) module_.globals.push_back(std::move(v));
      return Status::ok();
    }
    if (!d.is_directive()) return error_at(d, "expected a declaration after ", linkage, ", found ", describe(d));
    skip_directive();
    return Status::ok();
  }

  Status parse_line_directive() {
    const Token& d = next();
    if (peek().line == d.line && peek().kind != TokenKind::End) {
      if (d.text == ".version") module_.version = std::string(peek().text);
      if (d.text == ".target") module_.target = std::string(peek().text);
      if (d.text == ".address_size") {
        std::optional<int64_t> n = parse_int(peek().text);
        if (!n || (*n != 32 && *n != 64)) return error_at(peek(), ".address_size must be 32 or 64");
        module_.address_size = static_cast<int>(*n);
      }
    }
    skip_line(d.line);
    return Status::ok();
  }

  // --- functions ---

  Status parse_function(const std::string& linkage) {
    const Token& kw = next();
    PtxFunction f;
    f.is_entry = kw.text == ".entry";
    f.linkage = linkage;
    f.loc = loc(kw);
    if (!f.is_entry && peek().is('(')) KILN_TRY(parse_param_list(f.returns));
    if (!peek().is_name())
      return error_at(peek(), "expected a function name after ", kw.text, ", found ", describe(peek()));
    f.name = std::string(next().text);
    if (peek().is('(')) KILN_TRY(parse_param_list(f.params));
    // Performance directives (.maxntid 256, 1, 1; .noreturn; ...) up to the body or ';'.
    while (!peek().is('{') && !peek().is(';')) {
      if (at_end() || peek().is('}'))
        return error_at(peek(), "expected the body of ", f.name, ", found ", describe(peek()));
      next();
    }
    const Token& open = next();
    if (open.is('{')) {
      // ptxas refuses a second definition of a symbol; the analysis finds a function by its name.
      for (const PtxFunction& other : module_.functions)
        if (other.has_body && other.name == f.name)
          return error_at(open, "a second body for function ", f.name, " (the first at line ", other.loc.line, ")");
      KILN_TRY(parse_body(f, open));
    }
    module_.functions.push_back(std::move(f));
    return Status::ok();
  }

  Status parse_param_list(std::vector<PtxVariable>& out) {
    next();  // (
    if (peek().is(')')) {
      next();
      return Status::ok();
    }
    while (true) {
      PtxVariable p;
      p.loc = loc(peek());
      KILN_TRY(parse_variable_head(p));
      if (p.space.empty()) p.space = ".param";
      KILN_TRY(parse_variable_name(p));
      out.push_back(std::move(p));
      if (peek().is(',')) {
        next();
        continue;
      }
      return expect(')', "after the parameters");
    }
  }

  // The directives before a variable's name: space, .align N, .v2/.v4, .ptr .global, type.
  Status parse_variable_head(PtxVariable& v) {
    while (peek().is_directive()) {
      std::string_view d = next().text;
      if (is_space_directive(d) && v.space.empty()) {
        v.space = std::string(d);
      } else if (d == ".align") {
        if (!peek().is_number()) return error_at(peek(), "expected a number after .align");
        next();
      } else if (d == ".v2" || d == ".v4" || d == ".v8") {
        v.vector = d[2] - '0';
      } else if (d == ".ptr") {
        if (peek().is_directive() && is_space_directive(peek().text)) v.ptr_space = std::string(next().text);
      } else if (is_type_directive(d)) {
        v.type = std::string(d);
      } else if (d == ".attribute" && peek().is('(')) {
        KILN_TRY(skip_balanced());
      }
    }
    return Status::ok();
  }

  Status skip_balanced() {
    const Token& open = peek();
    int depth = 0;
    do {
      if (at_end()) return error_at(open, "unbalanced '", open.text, "'");
      if (peek().is('(') || peek().is('[') || peek().is('{')) ++depth;
      if (peek().is(')') || peek().is(']') || peek().is('}')) --depth;
      next();
    } while (depth > 0);
    return Status::ok();
  }

  // A variable's name with its `<N>` count or `[N]...` dimensions.
  Status parse_variable_name(PtxVariable& v) {
    if (!peek().is_name()) return error_at(peek(), "expected a name in the declaration, found ", describe(peek()));
    v.loc = loc(peek());
    v.name = std::string(next().text);
    if (peek().is('<')) {
      next();
      std::optional<int64_t> n = peek().is_number() ? parse_int(peek().text) : std::nullopt;
      if (!n || *n > INT32_MAX) return error_at(peek(), "expected a register count after '<'");
      next();
      v.count = static_cast<int>(*n);
      return expect('>', "after the register count");
    }
    while (peek().is('[')) {
      next();
      int64_t size = 0;
      if (!peek().is(']')) {
        std::optional<int64_t> n = peek().is_number() ? parse_int(peek().text) : std::nullopt;
        if (!n || *n > INT32_MAX) return error_at(peek(), "expected an array size");
        next();
        size = *n;
      }
      v.array_size = v.array_size < 0 ? static_cast<int>(size)
                                      : static_cast<int>(std::min<int64_t>(INT32_MAX, int64_t(v.array_size) * size));
      KILN_TRY(expect(']', "after the array size"));
    }
    return Status::ok();
  }

  // `.reg .b32 %r<10>, %x;`, `.shared .align 4 .b8 tile[1024];`, `.global .u32 g = 1;`
  Status parse_declaration(int scope, std::vector<PtxVariable>& out) {
    PtxVariable head;
    head.loc = loc(peek());
    KILN_TRY(parse_variable_head(head));
    while (true) {
      PtxVariable v = head;
      v.scope = scope;
      KILN_TRY(parse_variable_name(v));
      out.push_back(std::move(v));
      if (peek().is('=')) KILN_TRY(skip_initializer());
      if (peek().is(',')) {
        next();
        continue;
      }
      return expect(';', "after the declaration");
    }
  }

  Status skip_initializer() {
    next();  // =
    if (peek().is(',') || peek().is(';')) return error_at(peek(), "expected an initializer after '='");
    while (!peek().is(',') && !peek().is(';')) {
      if (at_end() || peek().is('}') || peek().is(')') || peek().is(']'))
        return error_at(peek(), "expected ';' after the initializer, found ", describe(peek()));
      if (peek().is('{') || peek().is('(') || peek().is('[')) {
        KILN_TRY(skip_balanced());
      } else {
        next();
      }
    }
    return Status::ok();
  }

  // --- bodies ---

  Status parse_body(PtxFunction& f, const Token& open) {
    f.has_body = true;
    f.scope_parents.push_back(-1);
    std::vector<int> scopes{0};
    while (!scopes.empty()) {
      const Token& t = peek();
      if (at_end()) return error_at(open, "the body of ", f.name, " is not closed");
      if (t.is('{')) {
        next();
        scopes.push_back(static_cast<int>(f.scope_parents.size()));
        f.scope_parents.push_back(scopes[scopes.size() - 2]);
      } else if (t.is('}')) {
        next();
        scopes.pop_back();
      } else {
        KILN_TRY(parse_body_statement(f, scopes.back()));
      }
    }
    return Status::ok();
  }

  Status parse_body_statement(PtxFunction& f, int scope) {
    const Token& t = peek();
    if (t.is_name() && peek(1).is(':')) {
      f.labels.push_back(PtxLabel{std::string(t.text), static_cast<int>(f.instructions.size()), loc(t)});
      next();
      next();
      return Status::ok();
    }
    if (t.is_directive()) {
      if (is_line_directive(t.text)) {
        skip_line(next().line);
      } else if (is_space_directive(t.text)) {
        KILN_TRY(parse_declaration(scope, f.locals));
      } else {
        skip_directive();
      }
      return Status::ok();
    }
    if (t.is(';')) {
      next();
      return Status::ok();
    }
    KILN_ASSIGN_OR_RETURN(PtxInstruction inst, parse_instruction());
    inst.scope = scope;
    f.instructions.push_back(std::move(inst));
    return Status::ok();
  }

  Expected<PtxInstruction> parse_instruction() {
    PtxInstruction inst;
    inst.loc = loc(peek());
    if (peek().is('@')) {
      next();
      if (peek().is('!')) {
        next();
        inst.guard_negated = true;
      }
      if (!peek().is_name()) return error_at(peek(), "expected a predicate after '@', found ", describe(peek()));
      inst.guard = std::string(next().text);
    }
    if (!peek().is_name()) return error_at(peek(), "expected an instruction, found ", describe(peek()));
    const Token& op = next();
    inst.opcode = std::string(op.text);
    inst.modifiers = split_opcode(op.text);
    for (const std::string& m : inst.modifiers)
      if (m.empty()) return error_at(op, "malformed opcode '", op.text, "'");
    size_t begin = pos_;
    KILN_TRY(scan_operands(op, inst.opcode));
    size_t end = pos_;
    next();  // ;
    KILN_ASSIGN_OR_RETURN(std::vector<Range> parts, split_commas(begin, end));
    inst.operands.reserve(parts.size());
    for (const Range& r : parts) {
      KILN_ASSIGN_OR_RETURN(PtxOperand o, parse_operand(r, 0));
      inst.operands.push_back(std::move(o));
    }
    return inst;
  }

  // Moves to the ';' that ends the instruction. An operand list may span lines (nvcc breaks
  // calls over several), but only after a comma or an opening bracket: a token that starts a
  // new line right after a complete operand means the ';' is missing.
  Status scan_operands(const Token& op, const std::string& opcode) {
    int depth = 0;
    const Token* prev = &op;
    while (!peek().is(';')) {
      const Token& t = peek();
      bool closer = t.is('}') || t.is(')') || t.is(']');
      bool continues = prev == &op || prev->is(',') || prev->is('(') || prev->is('[') || prev->is('{') ||
                       prev->is('|') || prev->is('+') || prev->is('-') || prev->is('!') || closer;
      if (at_end() || (t.is('}') && depth == 0) || (t.line > prev->line && !continues))
        return error_at(t, "expected ';' after ", opcode, ", found ", describe(t));
      if (t.is('{') || t.is('(') || t.is('[')) ++depth;
      if (closer) --depth;
      prev = &next();
    }
    return Status::ok();
  }

  // Splits [b, e) at commas outside brackets; an empty range gives no parts.
  Expected<std::vector<Range>> split_commas(size_t b, size_t e) const {
    std::vector<Range> parts;
    if (b == e) return parts;
    std::vector<size_t> open;  // the opening brackets not yet closed
    size_t start = b;
    for (size_t i = b; i < e; ++i) {
      const Token& t = toks_[i];
      if (t.is('{') || t.is('(') || t.is('[')) open.push_back(i);
      if (t.is('}') || t.is(')') || t.is(']')) {
        char want = t.is('}') ? '{' : t.is(')') ? '(' : '[';
        if (open.empty() || !toks_[open.back()].is(want)) return error_at(t, "unbalanced '", t.text, "' in operands");
        open.pop_back();
      }
      if (t.is(',') && open.empty()) {
        if (i == start) return error_at(t, "empty operand");
        parts.emplace_back(start, i);
        start = i + 1;
      }
    }
    if (!open.empty()) return error_at(toks_[open.back()], "unclosed '", toks_[open.back()].text, "' in operands");
    if (start == e) return error_at(toks_[e - 1], "empty operand after ','");
    parts.emplace_back(start, e);
    return parts;
  }

  Expected<PtxOperand> parse_operand(Range r, int depth) const {
    auto [b, e] = r;
    const Token& first = toks_[b];
    if (depth > kMaxOperandNesting) return error_at(first, "operand nested too deeply");
    PtxOperand o;
    o.col = first.col;
    bool bracketed = e - b >= 2 && toks_[e - 1].is(first.is('[') ? ']' : first.is('{') ? '}' : ')');
    if ((first.is('[') || first.is('{') || first.is('(')) && bracketed) {
      o.kind = first.is('[')   ? PtxOperand::Kind::Address
               : first.is('{') ? PtxOperand::Kind::Vector
                               : PtxOperand::Kind::List;
      KILN_ASSIGN_OR_RETURN(std::vector<Range> parts, split_commas(b + 1, e - 1));
      if (o.kind == PtxOperand::Kind::Address) {
        if (parts.empty()) return error_at(first, "empty address '[]'");
        KILN_TRY(parse_address_base(parts.front(), o));
        parts.erase(parts.begin());
      }
      for (const Range& p : parts) {
        KILN_ASSIGN_OR_RETURN(PtxOperand el, parse_operand(p, depth + 1));
        o.elements.push_back(std::move(el));
      }
      return o;
    }
    return parse_simple_operand(r, std::move(o));
  }

  // The inside of [...] before any comma: name, number, name+N, name-N, name+-N.
  Status parse_address_base(Range r, PtxOperand& o) const {
    auto [b, e] = r;
    const Token& base = toks_[b];
    if (!base.is_word() || base.is_directive())
      return error_at(base, "expected a register, symbol or number in the address, found ", describe(base));
    o.text = std::string(base.text);
    KILN_ASSIGN_OR_RETURN(int64_t off, parse_offset(b + 1, e));
    o.offset = off;
    return Status::ok();
  }

  // A sum of integer terms: `+16`, `+-4`, `-8`, `+0x10+4`.
  Expected<int64_t> parse_offset(size_t b, size_t e) const {
    int64_t total = 0;
    size_t i = b;
    while (i < e) {
      int sign = 1;
      if (!toks_[i].is('+') && !toks_[i].is('-')) return error_at(toks_[i], "expected '+' or '-' in the address");
      for (; i < e && (toks_[i].is('+') || toks_[i].is('-')); ++i)
        if (toks_[i].is('-')) sign = -sign;
      std::optional<int64_t> n = i < e ? parse_int(toks_[i].text) : std::nullopt;
      if (!n) return error_at(toks_[std::min(i, e - 1)], "expected an integer offset in the address");
      int64_t term = sign * *n;
      if (__builtin_add_overflow(total, term, &total)) return error_at(toks_[i], "address offset overflows");
      ++i;
    }
    return total;
  }

  Expected<PtxOperand> parse_simple_operand(Range r, PtxOperand o) const {
    auto [b, e] = r;
    const Token& first = toks_[b];
    size_t n = e - b;
    if (n == 1 && first.is_word() && !first.is_directive()) {
      o.kind = first.is_number() ? PtxOperand::Kind::Immediate : PtxOperand::Kind::Name;
      o.text = std::string(first.text);
      return o;
    }
    if (n == 2 && first.is('!') && toks_[b + 1].is_name()) {
      o.negated = true;
      o.text = std::string(toks_[b + 1].text);
      return o;
    }
    if (n == 2 && first.is('-') && toks_[b + 1].is_number()) {
      o.kind = PtxOperand::Kind::Immediate;
      o.text = "-" + std::string(toks_[b + 1].text);
      return o;
    }
    if (n == 3 && first.is_name() && toks_[b + 1].is('|') && toks_[b + 2].is_name()) {
      o.kind = PtxOperand::Kind::Pair;
      for (size_t i : {b, b + 2})
        o.elements.push_back(
            PtxOperand{PtxOperand::Kind::Name, std::string(toks_[i].text), 0, false, {}, toks_[i].col});
      return o;
    }
    if (first.is_name() && (toks_[b + 1].is('+') || toks_[b + 1].is('-'))) {
      Expected<int64_t> off = parse_offset(b + 1, e);
      if (off) {
        o.text = std::string(first.text);
        o.offset = *off;
        return o;
      }
    }
    return parse_expression(r, std::move(o));
  }

  // Any other operand: kept as text, with the names in it.
  Expected<PtxOperand> parse_expression(Range r, PtxOperand o) const {
    o.kind = PtxOperand::Kind::Expression;
    for (size_t i = r.first; i < r.second; ++i) {
      const Token& t = toks_[i];
      if (t.kind == TokenKind::String || t.is(';')) return error_at(t, "unexpected ", describe(t), " in an operand");
      if (!o.text.empty()) o.text += ' ';
      o.text += t.text;
      if (t.is_name())
        o.elements.push_back(PtxOperand{PtxOperand::Kind::Name, std::string(t.text), 0, false, {}, t.col});
    }
    return o;
  }

  std::vector<Token> toks_;
  const std::string& file_;
  size_t pos_ = 0;
  PtxModule module_;
};

}  // namespace

Expected<PtxModule> read_ptx(std::string_view text, const std::string& file) {
  KILN_ASSIGN_OR_RETURN(std::vector<Token> toks, Lexer(text, file).run());
  return Parser(std::move(toks), file).run();
}

}  // namespace kiln::kernels
