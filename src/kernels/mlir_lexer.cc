// The MLIR lexer (mlir_lexer.h): a TextCursor over the text, and scanners that find where each
// token ends without moving it, so a token is skipped at once.
#include "kernels/mlir_lexer.h"

#include <string>
#include <utility>

#include "support/text_cursor.h"

namespace kiln::kernels {
namespace {

bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool is_bare_char(char c) { return is_letter(c) || is_digit(c) || c == '_' || c == '$' || c == '.'; }
bool is_suffix_char(char c) { return is_bare_char(c) || c == '-'; }

class Lexer {
 public:
  Lexer(std::string_view text, std::string_view file) : cur_(text, file) {}

  Expected<std::vector<MlirToken>> run() {
    std::vector<MlirToken> out;
    out.reserve(cur_.text().size() / 4 + 1);
    while (true) {
      KILN_TRY(skip_space());
      if (cur_.eof()) break;
      KILN_ASSIGN_OR_RETURN(MlirToken t, next());
      out.push_back(t);
    }
    uint32_t end = static_cast<uint32_t>(cur_.pos());
    out.push_back(MlirToken{MlirTok::Eof, end, end, cur_.line(), cur_.col()});
    return out;
  }

 private:
  // A Diagnostic at byte offset `at`, which is on the cursor's line, at or after the cursor.
  Diagnostic error(size_t at, const std::string& msg) const {
    return cur_.error(cur_.line(), cur_.col() + static_cast<int>(at - cur_.pos()), msg);
  }

  // Whitespace, `// comments` and `{-# resource blobs #-}`.
  Status skip_space() {
    while (!cur_.eof()) {
      char c = cur_.at();
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
        cur_.advance();
      } else if (c == '/' && cur_.at(1) == '/') {
        cur_.skip_to_line_end();
      } else if (c == '{' && cur_.at(1) == '-' && cur_.at(2) == '#') {
        KILN_TRY(skip_resources());
      } else {
        break;
      }
    }
    return Status::ok();
  }

  Status skip_resources() {
    int line = cur_.line(), col = cur_.col();
    cur_.advance_to(cur_.pos() + 3);
    while (cur_.pos() + 2 < cur_.text().size()) {
      if (cur_.at() == '#' && cur_.at(1) == '-' && cur_.at(2) == '}') {
        cur_.advance_to(cur_.pos() + 3);
        return Status::ok();
      }
      cur_.advance();
    }
    return cur_.error(line, col, "unterminated '{-#' resource section");
  }

  size_t scan_suffix(size_t from) const {
    std::string_view text = cur_.text();
    while (from < text.size() && is_suffix_char(text[from])) ++from;
    return from;
  }

  Expected<size_t> scan_string(size_t from) const {  // `from` is the opening quote
    std::string_view text = cur_.text();
    for (size_t i = from + 1; i < text.size(); ++i) {
      if (text[i] == '\\') {
        if (i + 1 >= text.size() || text[i + 1] == '\n') break;
        ++i;
      } else if (text[i] == '"') {
        return i + 1;
      } else if (text[i] == '\n') {
        break;
      }
    }
    return error(from, "unterminated string");
  }

  size_t scan_number(size_t i) const {
    std::string_view text = cur_.text();
    if (text[i] == '-' || text[i] == '+') ++i;
    if (text[i] == '0' && i + 1 < text.size() && text[i + 1] == 'x') {
      i += 2;
      while (i < text.size() && is_hex(text[i])) ++i;
      return i;
    }
    while (i < text.size() && is_digit(text[i])) ++i;
    if (i + 1 < text.size() && text[i] == '.' && is_digit(text[i + 1])) {
      ++i;
      while (i < text.size() && is_digit(text[i])) ++i;
    }
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
      size_t j = i + 1;
      if (j < text.size() && (text[j] == '+' || text[j] == '-')) ++j;
      if (j < text.size() && is_digit(text[j])) {
        i = j;
        while (i < text.size() && is_digit(text[i])) ++i;
      }
    }
    return i;
  }

  // A sigil (% ^ @) followed by a name: `%7#1`, `^bb0`, `@f`, `@"f"`.
  Expected<size_t> scan_sigil(char sigil) const {
    std::string_view text = cur_.text();
    size_t i = cur_.pos() + 1;
    if (sigil == '@' && i < text.size() && text[i] == '"') return scan_string(i);
    size_t end = scan_suffix(i);
    if (end == i) {
      const char* what = sigil == '%' ? "value" : sigil == '^' ? "block" : "symbol";
      return error(cur_.pos(), std::string("expected a ") + what + " name after '" + sigil + "'");
    }
    if (sigil == '%' && end + 1 < text.size() && text[end] == '#' && is_digit(text[end + 1])) {
      end += 1;
      while (end < text.size() && is_digit(text[end])) ++end;
    }
    return end;
  }

  // The token at the cursor; a token never spans lines.
  Expected<MlirToken> next() {
    size_t pos = cur_.pos();
    MlirToken t;
    t.begin = static_cast<uint32_t>(pos);
    t.line = cur_.line();
    t.col = cur_.col();
    char c = cur_.at();
    size_t end = pos + 1;
    if (c == '"') {
      KILN_ASSIGN_OR_RETURN(end, scan_string(pos));
      t.kind = MlirTok::String;
    } else if (c == '%' || c == '^' || c == '@') {
      KILN_ASSIGN_OR_RETURN(end, scan_sigil(c));
      t.kind = c == '%' ? MlirTok::Value : c == '^' ? MlirTok::Caret : MlirTok::At;
    } else if ((c == '#' || c == '!') && is_suffix_char(cur_.at(1))) {
      end = scan_suffix(pos + 1);
      t.kind = c == '#' ? MlirTok::Hash : MlirTok::Bang;
    } else if (c == '-' && cur_.at(1) == '>') {
      end = pos + 2;
      t.kind = MlirTok::Arrow;
    } else if (is_digit(c) || ((c == '-' || c == '+') && is_digit(cur_.at(1)))) {
      end = scan_number(pos);
      t.kind = MlirTok::Number;
    } else if (is_letter(c) || c == '_') {
      std::string_view text = cur_.text();
      while (end < text.size() && is_bare_char(text[end])) ++end;
      t.kind = MlirTok::Ident;
    } else if (c > ' ' && c < 127) {
      t.kind = MlirTok::Punct;
    } else {
      return error(pos, "unexpected character (byte " + std::to_string(static_cast<unsigned char>(c)) + ")");
    }
    cur_.advance_to(end);
    t.end = static_cast<uint32_t>(end);
    return t;
  }

  TextCursor cur_;
};

}  // namespace

std::string mlir_decode_string(std::string_view body) {
  std::string out;
  out.reserve(body.size());
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c != '\\' || i + 1 >= body.size()) {
      out += c;
      continue;
    }
    char e = body[++i];
    if (e == 'n')
      out += '\n';
    else if (e == 't')
      out += '\t';
    else if (is_hex(e) && i + 1 < body.size() && is_hex(body[i + 1])) {
      out += static_cast<char>(std::stoi(std::string(body.substr(i, 2)), nullptr, 16));
      ++i;
    } else {
      out += e;
    }
  }
  return out;
}

std::string mlir_unquote(std::string_view s) {
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') return mlir_decode_string(s.substr(1, s.size() - 2));
  return std::string(s);
}

Expected<std::vector<MlirToken>> lex_mlir(std::string_view text, std::string_view file) {
  return Lexer(text, file).run();
}

}  // namespace kiln::kernels
