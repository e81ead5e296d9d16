// Maps a parsed ExportedProgram (pt2_program.h) and its weights to a kiln graph through the
// ATen op table (aten_op_table.h): each node becomes the kiln node of its row, its arguments
// operands or attributes by the kiln schema's argument names, checked as the IR parser checks
// a node (ops/schema_check.h), and the graph is verified at the end.
#pragma once

#include <map>
#include <string>

#include "import/import_pt2.h"
#include "import/pt2_program.h"
#include "import/pt2_weights.h"

namespace kiln::pt2 {

// The graph of `program`, named `graph_name`. Errors: every node whose op kiln does not
// import (all listed at once), a dynamic dim, a dtype kiln lacks, an argument kiln's op cannot
// take, a graph input or output kind not imported yet, a graph that does not verify.
Expected<ImportedProgram> program_to_graph(const Program& program, const std::map<std::string, LoadedWeight>& weights,
                                           const std::string& graph_name);

// The user's frame of a node's stack trace: its last frame outside torch's own sources,
// as "file.py:12: code"; empty when there is no trace.
std::string user_source_line(const std::string& stack_trace);

}  // namespace kiln::pt2
