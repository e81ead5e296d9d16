// Parses kiln's graph text form. Errors are Diagnostics at file:line:col.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/graph.h"
#include "support/diagnostic.h"

namespace kiln {

// A file holds one or more graphs; nodes get their SourceLoc (file, line, col).
Expected<std::vector<std::unique_ptr<Graph>>> parse_graphs(std::string_view text, std::string_view filename = "<input>");
// Exactly one graph.
Expected<std::unique_ptr<Graph>> parse_graph(std::string_view text, std::string_view filename = "<input>");

}  // namespace kiln
