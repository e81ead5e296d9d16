// Drawing a DOT file as SVG with Graphviz's `dot`, run through the runtime's process helper
// (no shell). The report writes DOT text either way; the SVG is what a browser shows.
#pragma once

#include <string>

#include "support/diagnostic.h"

namespace kiln {

// `dot_program` as a path to run: itself when it names a path, else looked up in PATH
// ("" means "dot"). Errors name the program and where it was looked for.
Expected<std::string> find_dot_program(const std::string& dot_program);

// Runs `dot -Tsvg DOT_PATH -o SVG_PATH`; an error (with dot's output) when dot fails.
Status render_svg(const std::string& dot_executable, const std::string& dot_path, const std::string& svg_path);

}  // namespace kiln
