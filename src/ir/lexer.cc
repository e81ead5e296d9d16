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

void Lexer::advance() {
  if (pos_ >= text_.size()) return;
  if (text_[pos_] == '\n') {
    ++line_;
    col_ = 1;
  } else {
    ++col_;
  }
  ++pos_;
}

void Lexer::skip_space_and_comments() {
  while (pos_ < text_.size()) {
    char c = peek();
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      advance();
    } else if (c == '/' && peek(1) == '/') {
      while (pos_ < text_.size() && peek() != '\n') advance();
    } else {
      return;
    }
  }
}

Token Lexer::make(TokenKind kind, std::string text, int line, int col) const { return Token{kind, std::move(text), line, col}; }

Token Lexer::lex_number(int line, int col) {
  size_t start = pos_;
  bool is_float = false;
  bool malformed = false;
  if (peek() == '-') advance();
  while (is_digit(peek())) advance();
  if (peek() == '.') {
    is_float = true;
    advance();
    while (is_digit(peek())) advance();
  }
  if (peek() == 'e' || peek() == 'E') {
    is_float = true;
    advance();
    if (peek() == '+' || peek() == '-') advance();
    if (!is_digit(peek())) malformed = true;
    while (is_digit(peek())) advance();
  }
  // `12abc` or `1.5.2` is one malformed token, not a number followed by a name.
  while (is_name_char(peek())) {
    malformed = true;
    advance();
  }
  std::string text(text_.substr(start, pos_ - start));
  if (malformed) return make(TokenKind::Error, "malformed number '" + text + "'", line, col);
  return make(is_float ? TokenKind::Float : TokenKind::Integer, std::move(text), line, col);
}

Token Lexer::lex_string(int line, int col) {
  advance();  // opening quote
  std::string out;
  while (true) {
    char c = peek();
    if (pos_ >= text_.size() || c == '\n') return make(TokenKind::Error, "unterminated string", line, col);
    if (c == '"') {
      advance();
      return make(TokenKind::String, std::move(out), line, col);
    }
    if (c != '\\') {
      out += c;
      advance();
      continue;
    }
    int esc_line = line_, esc_col = col_;
    advance();
    char e = peek();
    switch (e) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'x': {
        int hi = hex_value(peek(1)), lo = hex_value(peek(2));
        if (hi < 0 || lo < 0) return make(TokenKind::Error, "malformed escape '\\x' in string", esc_line, esc_col);
        out += static_cast<char>(hi * 16 + lo);
        advance();
        advance();
        break;
      }
      default:
        if (pos_ >= text_.size() || e == '\n') return make(TokenKind::Error, "unterminated string", line, col);
        return make(TokenKind::Error, "unknown escape '\\" + std::string(1, e) + "' in string", esc_line, esc_col);
    }
    advance();
  }
}

Token Lexer::next() {
  skip_space_and_comments();
  int line = line_, col = col_;
  if (pos_ >= text_.size()) return make(TokenKind::Eof, "", line, col);
  char c = peek();
  if (is_digit(c) || (c == '-' && is_digit(peek(1)))) return lex_number(line, col);
  if (c == '"') return lex_string(line, col);
  if (is_ident_start(c)) {
    size_t start = pos_;
    while (is_ident_char(peek())) advance();
    return make(TokenKind::Ident, std::string(text_.substr(start, pos_ - start)), line, col);
  }
  if (c == '%' || c == '@') {
    advance();
    size_t start = pos_;
    while (is_name_char(peek())) advance();
    if (pos_ == start) return make(TokenKind::Error, std::string("expected a name after '") + c + "'", line, col);
    return make(c == '%' ? TokenKind::ValueName : TokenKind::GraphName, std::string(text_.substr(start, pos_ - start)),
                line, col);
  }
  if (c == '-' && peek(1) == '>') {
    advance();
    advance();
    return make(TokenKind::Arrow, "->", line, col);
  }
  if ((c == '=' || c == '>') && peek(1) == '=') {
    advance();
    advance();
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
  advance();
  return make(kind, std::string(1, c), line, col);
}

std::optional<Scalar> named_literal(std::string_view word, bool negative) {
  if (word == "inf") return Scalar(negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity());
  if (word == "nan") return Scalar(std::numeric_limits<double>::quiet_NaN());
  if (!negative && (word == "true" || word == "false")) return Scalar(word == "true");
  if (!negative && word == "none") return Scalar::none();
  return std::nullopt;
}

}  // namespace kiln
