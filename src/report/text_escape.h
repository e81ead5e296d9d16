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

// The attributes every DOT graph of the report starts with. Straight edges and a short
// network-simplex and crossing-minimization search: with Graphviz's defaults, the joint graph
// of a two-layer GPT (about 400 nodes) takes over ten minutes; with these, under a second.
inline constexpr const char* kDotGraphAttributes =
    "  graph [splines=line, nslimit=2, mclimit=0.2];\n"
    "  node [fontname=\"monospace\", fontsize=10];\n"
    "  edge [color=\"#555555\"];\n";

}  // namespace kiln
