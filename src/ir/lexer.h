// Tokens of kiln's graph text form, for the parser. The lexer skips whitespace and `//`
// comments and records where each token starts; it never fails: bad input becomes an Error
// token whose text is the message, so the parser reports it at the right place.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/scalar.h"

#include "support/diagnostic.h"
#include "support/text_cursor.h"

namespace kiln {

enum class TokenKind {
  Eof,
  Error,      // text: the message ("unterminated string")
  Ident,      // graph, return, add, f32, true, none, inf, B, ...
  ValueName,  // %x, %0, %fc1.weight  (text without the '%')
  GraphName,  // @mlp                  (text without the '@')
  Integer,    // 3, -1                 (text as written)
  Float,      // 0.5, -1e-05, 2.       (text as written)
  String,     // "tanh"                (text: the decoded contents)
  LParen,
  RParen,
  LBrace,
  RBrace,
  LBracket,
  RBracket,
  Comma,
  Colon,
  Equal,
  Arrow,
  Minus,
  Plus,
  Star,
  Slash,
  EqualEqual,
  GreaterEqual,  // in dim expressions and guards
};

struct Token {
  TokenKind kind = TokenKind::Eof;
  std::string text;
  int line = 1;
  int col = 1;
};

class Lexer {
 public:
  explicit Lexer(std::string_view text) : cur_(text) {}

  Token next();

 private:
  void skip_space_and_comments();
  Token make(TokenKind kind, std::string text, int line, int col) const;
  Token lex_number(int line, int col);
  Token lex_string(int line, int col);

  TextCursor cur_;
};

// The literal a word spells after an optional '-': inf, nan, true, false, none (the last three
// only without '-'); nullopt for any other word.
std::optional<Scalar> named_literal(std::string_view word, bool negative);

}  // namespace kiln
