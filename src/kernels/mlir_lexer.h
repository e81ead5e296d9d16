// Tokens of MLIR's textual form, for the MLIR reader (mlir_reader.h): values (`%x`, `%7#1`),
// block labels (`^bb0`), symbols (`@f`, `@"f"`), attribute and type aliases (`#loc3`, `!tt.ptr`),
// bare identifiers, numbers, string literals, `->` and single punctuation characters, each with
// its byte range, line and column. Whitespace, `//` comments and `{-# ... #-}` resource sections
// are skipped; a token never spans lines.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "support/diagnostic.h"

namespace kiln::kernels {

// Value %x, Caret ^bb0, At @f, Hash #loc3, Bang !tt.ptr; Eof ends every token list.
enum class MlirTok : uint8_t { Eof, Value, Caret, At, Hash, Bang, Ident, Number, String, Arrow, Punct };

struct MlirToken {
  MlirTok kind = MlirTok::Eof;
  uint32_t begin = 0;  // byte offsets of the token in the text: [begin, end)
  uint32_t end = 0;
  int line = 0;
  int col = 0;  // 1-based, in bytes
};

// The tokens of `text`, ending with an Eof token; an unterminated string or resource section,
// or a byte that starts no token, is a Diagnostic at file:line:col (`file` names the text).
Expected<std::vector<MlirToken>> lex_mlir(std::string_view text, std::string_view file);

// Decodes a string literal's body (the text between its quotes): \" \\ \n \t and \XX.
std::string mlir_decode_string(std::string_view body);

// "\"a\\\"b\"" -> a"b; text that is not a whole string literal comes back as it is.
std::string mlir_unquote(std::string_view s);

}  // namespace kiln::kernels
