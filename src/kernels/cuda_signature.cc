#include "kernels/cuda_signature.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <utility>

#include "support/text_cursor.h"

namespace kiln::kernels {

namespace {

// ---------------------------------------------------------------------------------------------
// Tokens of C++ source, enough to find declarations: identifiers and numbers, string and
// character literals (one token each), `::`, and single punctuation characters.

enum class TokenKind { Word, String, Punct };

struct Token {
  TokenKind kind = TokenKind::Punct;
  std::string text;
  int line = 0;
  int col = 0;

  bool is(std::string_view s) const { return kind != TokenKind::String && text == s; }
  bool is_word() const { return kind == TokenKind::Word; }
};

bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

class Lexer {
 public:
  Lexer(std::string_view text, const std::string& file) : cur_(text, file) {}

  Expected<std::vector<Token>> run() {
    std::vector<Token> out;
    while (!cur_.eof()) {
      char c = cur_.at();
      if (c == '\n') {
        cur_.advance();
        line_start_ = true;
      } else if (std::isspace(static_cast<unsigned char>(c))) {
        cur_.advance();
      } else if (c == '#' && line_start_) {
        skip_preprocessor_line();
      } else if (c == '/' && cur_.at(1) == '/') {
        cur_.skip_to_line_end();
      } else if (c == '/' && cur_.at(1) == '*') {
        KILN_TRY(skip_block_comment());
      } else {
        line_start_ = false;
        KILN_ASSIGN_OR_RETURN(Token t, lex_token());
        out.push_back(std::move(t));
      }
    }
    return out;
  }

 private:
  void skip_preprocessor_line() {
    while (!cur_.eof() && cur_.at() != '\n') {
      if (cur_.at() == '\\' && cur_.at(1) == '\n') cur_.advance();
      cur_.advance();
    }
  }

  Status skip_block_comment() {
    int line = cur_.line(), col = cur_.col();
    size_t end = cur_.text().find("*/", cur_.pos() + 2);
    if (end == std::string_view::npos) return cur_.error(line, col, "unterminated /* comment");
    cur_.advance_to(end + 2);
    return Status::ok();
  }

  Expected<Token> lex_token() {
    Token t{TokenKind::Punct, {}, cur_.line(), cur_.col()};
    size_t start = cur_.pos();
    char c = cur_.at();
    if (c == 'R' && cur_.at(1) == '"') {
      KILN_TRY(skip_raw_string());
      t.kind = TokenKind::String;
    } else if (c == '"' || c == '\'') {
      KILN_TRY(skip_quoted(c));
      t.kind = TokenKind::String;
    } else if (is_ident_char(c)) {
      // A number may hold digit separators: 1'000'000.
      bool number = std::isdigit(static_cast<unsigned char>(c));
      while (!cur_.eof() && (is_ident_char(cur_.at()) || (number && cur_.at() == '\'' && is_ident_char(cur_.at(1)))))
        cur_.advance();
      t.kind = TokenKind::Word;
    } else if (c == ':' && cur_.at(1) == ':') {
      cur_.advance();
      cur_.advance();
    } else {
      cur_.advance();
    }
    t.text = std::string(cur_.since(start));
    return t;
  }

  Status skip_quoted(char quote) {
    int line = cur_.line(), col = cur_.col();
    cur_.advance();
    while (!cur_.eof() && cur_.at() != quote && cur_.at() != '\n') {
      if (cur_.at() == '\\' && cur_.pos() + 1 < cur_.text().size()) cur_.advance();
      cur_.advance();
    }
    if (cur_.at() != quote)
      return cur_.error(line, col, quote == '"' ? "unterminated string" : "unterminated character literal");
    cur_.advance();
    return Status::ok();
  }

  // R"delim( ... )delim"
  Status skip_raw_string() {
    int line = cur_.line(), col = cur_.col();
    std::string_view text = cur_.text();
    size_t pos = cur_.pos();
    size_t open = text.find('(', pos);
    if (open == std::string_view::npos || open - pos > 18) return cur_.error(line, col, "malformed raw string");
    std::string close = ")" + std::string(text.substr(pos + 2, open - pos - 2)) + "\"";
    size_t end = text.find(close, open);
    if (end == std::string_view::npos) return cur_.error(line, col, "unterminated raw string");
    cur_.advance_to(end + close.size());
    return Status::ok();
  }

  TextCursor cur_;
  bool line_start_ = true;
};

// ---------------------------------------------------------------------------------------------
// Parameters.

bool is_qualifier(std::string_view w) {
  return w == "const" || w == "volatile" || w == "__restrict__" || w == "__restrict" || w == "restrict" ||
         w == "__grid_constant__" || w == "struct" || w == "class" || w == "enum" || w == "typename";
}

// Attribute-like words followed by a parenthesized argument list.
bool is_attribute_word(std::string_view w) {
  return w == "__launch_bounds__" || w == "__cluster_dims__" || w == "__maxnreg__" || w == "__attribute__" ||
         w == "__declspec" || w == "alignas" || w == "__align__" || w == "decltype";
}

bool is_builtin_type_word(std::string_view w) {
  return w == "void" || w == "bool" || w == "char" || w == "short" || w == "int" || w == "long" || w == "float" ||
         w == "double" || w == "signed" || w == "unsigned" || w == "__half" || w == "auto";
}

// "const float* __restrict__", "Pair<float*, int>": a space between words, none around template
// brackets or before `*`, `&`, `,`.
std::string join_type(const std::vector<const Token*>& toks) {
  std::string out;
  for (size_t i = 0; i < toks.size(); ++i) {
    const std::string& t = toks[i]->text;
    if (i > 0) {
      const std::string& prev = toks[i - 1]->text;
      bool tight = t == "*" || t == "&" || t == "<" || t == ">" || t == "," || t == "[" || t == "]" || t == "::" ||
                   prev == "::" || prev == "<" || prev == "[";
      if (!tight) out += ' ';
    }
    out += t;
  }
  return out;
}

CudaParam read_param(const std::vector<Token>& toks, size_t b, size_t e) {
  // A default argument is not part of the type.
  int depth = 0;
  for (size_t i = b; i < e; ++i) {
    if (toks[i].is("(") || toks[i].is("[") || toks[i].is("<")) ++depth;
    if (toks[i].is(")") || toks[i].is("]") || (toks[i].is(">") && depth > 0)) --depth;
    if (toks[i].is("=") && depth == 0) e = i;
  }
  CudaParam p;
  size_t type_end = e;
  bool is_array = false;
  while (type_end > b && toks[type_end - 1].is("]")) {  // x[] or x[4]
    while (type_end > b && !toks[type_end - 1].is("[")) --type_end;
    if (type_end > b) --type_end;
    is_array = true;
  }
  // The name is the last word, unless nothing but qualifiers would be left for the type.
  if (type_end > b && toks[type_end - 1].is_word() && !is_qualifier(toks[type_end - 1].text) &&
      !is_builtin_type_word(toks[type_end - 1].text)) {
    bool has_type = false;
    for (size_t i = b; i + 1 < type_end; ++i)
      if (!toks[i].is_word() || !is_qualifier(toks[i].text)) has_type = true;
    if (has_type) p.name = toks[--type_end].text;
  }
  std::vector<const Token*> type_toks;
  int angle = 0;
  for (size_t i = b; i < type_end; ++i) {
    type_toks.push_back(&toks[i]);
    if (toks[i].is("<")) ++angle;
    if (toks[i].is(">") && angle > 0) --angle;
    if (toks[i].is("*") && angle == 0) p.is_pointer = true;
  }
  p.is_pointer = p.is_pointer || is_array;
  p.type = join_type(type_toks) + (is_array ? "*" : "");
  return p;
}

// ---------------------------------------------------------------------------------------------
// Declarations: `__global__` functions, with the namespaces and `extern "C"` blocks around them.

struct Context {
  enum class Kind { Namespace, ExternC, Other };
  Kind kind = Kind::Other;
  std::vector<std::string> names;  // a namespace's names (`namespace a::b {` has two)
};

class Scanner {
 public:
  Scanner(std::vector<Token> toks, const std::string& file) : toks_(std::move(toks)), file_(file) {}

  Expected<std::vector<CudaKernelSignature>> run() {
    std::vector<CudaKernelSignature> out;
    while (i_ < toks_.size()) {
      const Token& t = toks_[i_];
      if (t.is("namespace")) {
        scan_namespace();
      } else if (t.is("extern") && i_ + 1 < toks_.size() && toks_[i_ + 1].text == "\"C\"") {
        i_ += 2;
        if (i_ < toks_.size() && toks_[i_].is("{")) {
          contexts_.push_back(Context{Context::Kind::ExternC, {}});
          ++i_;
        } else {
          pending_extern_c_ = true;
        }
      } else if (t.is("__global__")) {
        KILN_ASSIGN_OR_RETURN(CudaKernelSignature sig, scan_kernel());
        out.push_back(std::move(sig));
      } else {
        scan_other(t);
      }
    }
    return out;
  }

 private:
  void scan_other(const Token& t) {
    if (t.is("{")) contexts_.push_back(Context{});
    if (t.is("}") && !contexts_.empty()) contexts_.pop_back();
    if (t.is(";") || t.is("{") || t.is("}")) pending_extern_c_ = false;
    ++i_;
  }

  // `namespace a::b {`, `namespace {`, `namespace x = y;`
  void scan_namespace() {
    Context c{Context::Kind::Namespace, {}};
    ++i_;
    while (i_ < toks_.size() && (toks_[i_].is_word() || toks_[i_].is("::"))) {
      if (toks_[i_].is_word() && !toks_[i_].is("inline")) c.names.push_back(toks_[i_].text);
      ++i_;
    }
    if (i_ < toks_.size() && toks_[i_].is("{")) {
      if (c.names.empty()) c.names.push_back("");
      contexts_.push_back(std::move(c));
      ++i_;
    }
  }

  bool in_extern_c() const {
    return pending_extern_c_ || std::any_of(contexts_.begin(), contexts_.end(),
                                            [](const Context& c) { return c.kind == Context::Kind::ExternC; });
  }

  // Skips a balanced (...) or [...] group starting at i_.
  bool skip_group() {
    std::string open = toks_[i_].text, close = open == "(" ? ")" : "]";
    int depth = 0;
    for (; i_ < toks_.size(); ++i_) {
      if (toks_[i_].is(open)) ++depth;
      if (toks_[i_].is(close) && --depth == 0) {
        ++i_;
        return true;
      }
    }
    return false;
  }

  // The index after the <...> group that starts at `k` (or `k` itself when it does not close).
  size_t skip_angles(size_t k) const {
    int depth = 0;
    for (size_t j = k; j < toks_.size() && !toks_[j].is(";") && !toks_[j].is("{"); ++j) {
      if (toks_[j].is("<")) ++depth;
      if (toks_[j].is(">") && --depth == 0) return j + 1;
    }
    return k;
  }

  Expected<CudaKernelSignature> scan_kernel() {
    const Token& global = toks_[i_++];
    CudaKernelSignature sig;
    sig.extern_c = in_extern_c();
    for (const Context& c : contexts_)
      if (c.kind == Context::Kind::Namespace)
        sig.namespaces.insert(sig.namespaces.end(), c.names.begin(), c.names.end());
    std::vector<std::string> qualifiers;
    while (i_ < toks_.size() && !toks_[i_].is(";") && !toks_[i_].is("{")) {
      const Token& t = toks_[i_];
      const Token* after = i_ + 1 < toks_.size() ? &toks_[i_ + 1] : nullptr;
      bool attribute_call = t.is_word() && is_attribute_word(t.text) && after && after->is("(");
      if (attribute_call || (t.is("[") && after && after->is("["))) {
        if (attribute_call) ++i_;
        if (!skip_group()) break;
        continue;
      }
      if (t.is_word() && after && after->is("::")) qualifiers.push_back(t.text);
      // An explicit instantiation names its template arguments: fill<float>(...).
      size_t args_end = t.is_word() && after && after->is("<") ? skip_angles(i_ + 1) : i_ + 1;
      if (t.is_word() && args_end < toks_.size() && toks_[args_end].is("(")) {
        sig.name = t.text;
        sig.loc = SourceLoc{file_, t.line, t.col};
        i_ = args_end;
        sig.namespaces.insert(sig.namespaces.end(), qualifiers.begin(), qualifiers.end());
        KILN_TRY(scan_params(sig));
        pending_extern_c_ = false;
        return sig;
      }
      ++i_;
    }
    return Diagnostic("__global__ without a parameter list", SourceLoc{file_, global.line, global.col});
  }

  Status scan_params(CudaKernelSignature& sig) {
    const Token& open = toks_[i_];
    size_t b = ++i_;
    int depth = 0;
    std::vector<std::pair<size_t, size_t>> parts;
    for (; i_ < toks_.size(); ++i_) {
      const Token& t = toks_[i_];
      if (t.is("(") || t.is("[") || t.is("{") || (t.is("<") && i_ > b && toks_[i_ - 1].is_word())) ++depth;
      if (t.is(")") || t.is("]") || t.is("}") || (t.is(">") && depth > 0)) {
        if (t.is(")") && depth == 0) break;
        --depth;
      }
      if (t.is(",") && depth == 0) {
        parts.emplace_back(b, i_);
        b = i_ + 1;
      }
    }
    if (i_ >= toks_.size())
      return Diagnostic("unclosed parameter list of " + sig.name, SourceLoc{file_, open.line, open.col});
    if (i_ > b) parts.emplace_back(b, i_);
    ++i_;
    bool only_void = parts.size() == 1 && parts[0].second - parts[0].first == 1 && toks_[parts[0].first].is("void");
    if (!only_void)
      for (auto [pb, pe] : parts) sig.params.push_back(read_param(toks_, pb, pe));
    return Status::ok();
  }

  std::vector<Token> toks_;
  const std::string& file_;
  size_t i_ = 0;
  std::vector<Context> contexts_;
  bool pending_extern_c_ = false;
};

// The source-name components at the front of a mangled name: {"ops", "fill"} for
// _ZN3ops4fillIfEEvPT_PKS1_i, {"k"} for _Z1kPf; empty if the name is not mangled that way.
std::vector<std::string_view> mangled_name_components(std::string_view m) {
  std::vector<std::string_view> out;
  if (m.substr(0, 2) != "_Z") return out;
  m.remove_prefix(2);
  if (!m.empty() && m[0] == 'L') m.remove_prefix(1);
  bool nested = !m.empty() && m[0] == 'N';
  if (nested) m.remove_prefix(1);
  while (!m.empty() && std::isdigit(static_cast<unsigned char>(m[0]))) {
    size_t len = 0, k = 0;
    for (; k < m.size() && std::isdigit(static_cast<unsigned char>(m[k])) && len < 100000; ++k)
      len = len * 10 + (m[k] - '0');
    if (len == 0 || k + len > m.size()) return {};
    out.push_back(m.substr(k, len));
    m.remove_prefix(k + len);
    if (!nested) return out;
  }
  if (nested && (m.empty() || (m[0] != 'E' && m[0] != 'I'))) return {};
  return out;
}

}  // namespace

bool CudaKernelSignature::matches_ptx_name(std::string_view ptx_name) const {
  if (extern_c) return ptx_name == name;
  std::vector<std::string_view> parts = mangled_name_components(ptx_name);
  if (parts.size() != namespaces.size() + 1 || parts.back() != name) return false;
  for (size_t i = 0; i < namespaces.size(); ++i) {
    bool anonymous = namespaces[i].empty() && parts[i].substr(0, 10) == "_GLOBAL__N";
    if (!anonymous && parts[i] != namespaces[i]) return false;
  }
  return true;
}

Expected<std::vector<CudaKernelSignature>> read_cuda_signatures(std::string_view source, const std::string& file) {
  KILN_ASSIGN_OR_RETURN(std::vector<Token> toks, Lexer(source, file).run());
  return Scanner(std::move(toks), file).run();
}

const CudaKernelSignature* find_cuda_signature(const std::vector<CudaKernelSignature>& signatures,
                                               std::string_view ptx_name) {
  // A declaration or an explicit instantiation may leave parameters unnamed: prefer a
  // signature that names them (the definition).
  const CudaKernelSignature* found = nullptr;
  for (const CudaKernelSignature& s : signatures) {
    if (!s.matches_ptx_name(ptx_name)) continue;
    bool named = std::all_of(s.params.begin(), s.params.end(), [](const CudaParam& p) { return !p.name.empty(); });
    if (named) return &s;
    if (!found) found = &s;
  }
  return found;
}

}  // namespace kiln::kernels
