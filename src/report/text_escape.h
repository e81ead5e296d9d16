// Escaping text for the two languages the compile report writes: HTML (every graph, kernel
// and name is user-controlled text) and Graphviz DOT quoted strings.
#pragma once

#include <string>
#include <string_view>

namespace kiln {

// & < > " ' as character references; everything else as is.
std::string html_escape(std::string_view text);

// The inside of a DOT "quoted string": backslash and double quote escaped, newlines as \n
// (centred lines), other control characters dropped.
std::string dot_escape(std::string_view text);

}  // namespace kiln
