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
Expected<std::vector<std::unique_ptr<Graph>>> parse_graphs(std::string_view text,
                                                           std::string_view filename = "<input>");

// The same without running the verifier on the result: recorded result types may disagree
// with the op rules (names, schemas and the grammar are still checked). For passes that
// recompute types, such as propagate-shapes (`kiln opt --unverified-input`).
Expected<std::vector<std::unique_ptr<Graph>>> parse_graphs_unverified(std::string_view text,
                                                                      std::string_view filename = "<input>");
// Exactly one graph.
Expected<std::unique_ptr<Graph>> parse_graph(std::string_view text, std::string_view filename = "<input>");

}  // namespace kiln
