// A lexer's place in its text: the byte offset and the 1-based line and column that
// diagnostics name. Each lexer holds one and keeps its own token rules; the cursor only
// reads bytes, moves forward and builds a Diagnostic at a (line, col) it was given.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "support/diagnostic.h"

namespace kiln {

class TextCursor {
 public:
  // `text` and `file` are not copied: both must outlive the cursor. `file` names the text in
  // the diagnostics error() builds (empty when the lexer reports errors its own way).
  explicit TextCursor(std::string_view text, std::string_view file = {}) : text_(text), file_(file) {}

  std::string_view text() const { return text_; }
  size_t pos() const { return pos_; }
  int line() const { return line_; }
  int col() const { return col_; }  // counts bytes: a tab or a UTF-8 sequence is one per byte
  bool eof() const { return pos_ >= text_.size(); }

  // The text from byte offset `start` up to the cursor: the token just read.
  std::string_view since(size_t start) const { return text_.substr(start, pos_ - start); }

  // The byte k places ahead of the cursor; '\0' past the end of the text.
  char at(size_t k = 0) const { return pos_ + k < text_.size() ? text_[pos_ + k] : '\0'; }

  // Moves one byte forward; after a '\n' the cursor is at column 1 of the next line. At the
  // end of the text it stays where it is.
  void advance() {
    if (eof()) return;
    if (text_[pos_] == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    ++pos_;
  }

  // Moves forward to byte offset `end` (or to the end of the text, if that comes first), as
  // advance() would one byte at a time.
  void advance_to(size_t end) {
    end = std::min(end, text_.size());
    if (end <= pos_) return;
    std::string_view skipped = text_.substr(pos_, end - pos_);
    size_t last_newline = skipped.rfind('\n');
    if (last_newline == std::string_view::npos) {
      col_ += static_cast<int>(skipped.size());
    } else {
      line_ += static_cast<int>(std::count(skipped.begin(), skipped.end(), '\n'));
      col_ = static_cast<int>(skipped.size() - last_newline);
    }
    pos_ = end;
  }

  // Moves to the next '\n', which stays unread, or to the end of the text: past a `//` comment.
  void skip_to_line_end() { advance_to(text_.find('\n', pos_)); }  // npos: the end

  // A Diagnostic at file:line:col of this text.
  Diagnostic error(int line, int col, std::string message) const {
    return Diagnostic(std::move(message), SourceLoc{std::string(file_), line, col});
  }

 private:
  std::string_view text_;
  std::string_view file_;
  size_t pos_ = 0;
  int line_ = 1;
  int col_ = 1;
};

}  // namespace kiln
