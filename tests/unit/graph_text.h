// Graphs for tests, from IR text: a parse failure fails the test (and gives null).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string_view>

#include "ir/parser.h"

namespace kiln {

inline std::unique_ptr<Graph> parse_or_fail(std::string_view text) {
  auto g = parse_graph(text);
  EXPECT_TRUE(g.has_value()) << (g ? "" : g.error().to_string());
  return g ? std::move(*g) : nullptr;
}

}  // namespace kiln
