// Loop programs written as text in unit tests (lower/loop_text.h), and searching what an
// emitter writes.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "lower/loop_text.h"

namespace kiln::test {

// The program `text` describes; an empty one, and a test failure naming the error, when it
// does not parse.
inline LoopProgram parse_loop_program(const std::string& text) {
  auto p = parse_loops(text);
  EXPECT_TRUE(p) << p.error().to_string();
  return p ? *p : LoopProgram{};
}

inline bool has_text(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace kiln::test
