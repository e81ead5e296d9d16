#include "ir/lexer.h"

#include <cctype>
#include <limits>

namespace kiln {

namespace {

bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
// Value and graph names may contain dots: parameters are named by module path (fc1.weight).
bool is_name_char(char c) { return is_ident_char(c) || c == '.'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::string printable(char c) {
  auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return std::string("'") + c + "'";
  static const char* kHex = "0123456789abcdef";
  return std::string("byte 0x") + kHex[u >> 4] + kHex[u & 0xf];
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

void Lexer::skip_space_and_comments() {
  while (!cur_.eof()) {
    char c = cur_.at();
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      cur_.advance();
    } else if (c == '/' && cur_.at(1) == '/') {
      cur_.skip_to_line_end();
    } else {
      return;
    }
  }
}

Token Lexer::make(TokenKind kind, std::string text, int line, int col) const {
  return Token{kind, std::move(text), line, col};
}

Token Lexer::lex_number(int line, int col) {
  size_t start = cur_.pos();
  bool is_float = false;
  bool malformed = false;
  if (cur_.at() == '-') cur_.advance();
  while (is_digit(cur_.at())) cur_.advance();
  if (cur_.at() == '.') {
    is_float = true;
    cur_.advance();
    while (is_digit(cur_.at())) cur_.advance();
  }
  if (cur_.at() == 'e' || cur_.at() == 'E') {
    is_float = true;
    cur_.advance();
    if (cur_.at() == '+' || cur_.at() == '-') cur_.advance();
    if (!is_digit(cur_.at())) malformed = true;
    while (is_digit(cur_.at())) cur_.advance();
  }
  // `12abc` or `1.5.2` is one malformed token, not a number followed by a name.
  while (is_name_char(cur_.at())) {
    malformed = true;
    cur_.advance();
  }
  std::string text(cur_.since(start));
  if (malformed) return make(TokenKind::Error, "malformed number '" + text + "'", line, col);
  return make(is_float ? TokenKind::Float : TokenKind::Integer, std::move(text), line, col);
}

Token Lexer::lex_string(int line, int col) {
  cur_.advance();  // opening quote
  std::string out;
  while (true) {
    char c = cur_.at();
    if (cur_.eof() || c == '\n') return make(TokenKind::Error, "unterminated string", line, col);
    if (c == '"') {
      cur_.advance();
      return make(TokenKind::String, std::move(out), line, col);
    }
    if (c != '\\') {
      out += c;
      cur_.advance();
      continue;
    }
    int esc_line = cur_.line(), esc_col = cur_.col();
    cur_.advance();
    char e = cur_.at();
    switch (e) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'x': {
        int hi = hex_value(cur_.at(1)), lo = hex_value(cur_.at(2));
        if (hi < 0 || lo < 0) return make(TokenKind::Error, "malformed escape '\\x' in string", esc_line, esc_col);
        out += static_cast<char>(hi * 16 + lo);
        cur_.advance();
        cur_.advance();
        break;
      }
      default:
        if (cur_.eof() || e == '\n') return make(TokenKind::Error, "unterminated string", line, col);
        return make(TokenKind::Error, "unknown escape '\\" + std::string(1, e) + "' in string", esc_line, esc_col);
    }
    cur_.advance();
  }
}

Token Lexer::next() {
  skip_space_and_comments();
  int line = cur_.line(), col = cur_.col();
  if (cur_.eof()) return make(TokenKind::Eof, "", line, col);
  char c = cur_.at();
  if (is_digit(c) || (c == '-' && is_digit(cur_.at(1)))) return lex_number(line, col);
  if (c == '"') return lex_string(line, col);
  if (is_ident_start(c)) {
    size_t start = cur_.pos();
    while (is_ident_char(cur_.at())) cur_.advance();
    return make(TokenKind::Ident, std::string(cur_.since(start)), line, col);
  }
  if (c == '%' || c == '@') {
    cur_.advance();
    size_t start = cur_.pos();
    while (is_name_char(cur_.at())) cur_.advance();
    if (cur_.pos() == start) return make(TokenKind::Error, std::string("expected a name after '") + c + "'", line, col);
    return make(c == '%' ? TokenKind::ValueName : TokenKind::GraphName, std::string(cur_.since(start)), line, col);
  }
  if (c == '-' && cur_.at(1) == '>') {
    cur_.advance();
    cur_.advance();
    return make(TokenKind::Arrow, "->", line, col);
  }
  if ((c == '=' || c == '>') && cur_.at(1) == '=') {
    cur_.advance();
    cur_.advance();
    return c == '=' ? make(TokenKind::EqualEqual, "==", line, col) : make(TokenKind::GreaterEqual, ">=", line, col);
  }
  TokenKind kind;
  switch (c) {
    case '(': kind = TokenKind::LParen; break;
    case ')': kind = TokenKind::RParen; break;
    case '{': kind = TokenKind::LBrace; break;
    case '}': kind = TokenKind::RBrace; break;
    case '[': kind = TokenKind::LBracket; break;
    case ']': kind = TokenKind::RBracket; break;
    case ',': kind = TokenKind::Comma; break;
    case ':': kind = TokenKind::Colon; break;
    case '=': kind = TokenKind::Equal; break;
    case '-': kind = TokenKind::Minus; break;
    case '+': kind = TokenKind::Plus; break;
    case '*': kind = TokenKind::Star; break;
    case '/': kind = TokenKind::Slash; break;
    default: return make(TokenKind::Error, "unexpected character " + printable(c), line, col);
  }
  cur_.advance();
  return make(kind, std::string(1, c), line, col);
}

std::optional<Scalar> named_literal(std::string_view word, bool negative) {
  if (word == "inf")
    return Scalar(negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity());
  if (word == "nan") return Scalar(std::numeric_limits<double>::quiet_NaN());
  if (!negative && (word == "true" || word == "false")) return Scalar(word == "true");
  if (!negative && word == "none") return Scalar::none();
  return std::nullopt;
}

}  // namespace kiln
