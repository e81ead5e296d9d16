// Printing and parsing of pattern_text.h's format.
#include "passes/pattern_text.h"

#include <sstream>

#include "ir/parser.h"
#include "ir/printer.h"

namespace kiln {

namespace {

std::string join_names(const Graph& g) {
  std::string out;
  for (const Value* in : g.inputs()) out += (out.empty() ? "" : ",") + in->name();
  return out;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> items;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, sep))
    if (!item.empty()) items.push_back(item);
  return items;
}

struct Chunk {
  std::string header;
  int header_line = 0;
  std::string graphs;  // padded with newlines so parse errors keep the file's line numbers
};

Diagnostic error_at(std::string_view filename, int line, const std::string& message) {
  return Diagnostic(message, SourceLoc{std::string(filename), line, 1});
}

Expected<std::vector<Chunk>> split_chunks(std::string_view text, std::string_view filename) {
  std::vector<Chunk> chunks;
  std::istringstream in{std::string(text)};
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.rfind("pattern ", 0) == 0) {
      chunks.push_back(Chunk{line, line_no, std::string(static_cast<size_t>(line_no), '\n')});
      continue;
    }
    if (!chunks.empty()) {
      chunks.back().graphs += line + "\n";
    } else if (line.find_first_not_of(" \t") != std::string::npos && line.rfind("//", 0) != 0) {
      return error_at(filename, line_no, "expected a line 'pattern NAME ...' before the graphs");
    }
  }
  return chunks;
}

// Fills name, ignore_literals, scalar_params and scalar_nodes from the header; returns the wildcard names.
Expected<std::string> parse_header(const Chunk& c, std::string_view filename, Pattern& p) {
  std::vector<std::string> words = split(c.header, ' ');
  if (words.size() < 2) return error_at(filename, c.header_line, "pattern header has no name");
  p.name = words[1];
  std::string wildcards;
  for (size_t i = 2; i < words.size(); ++i) {
    const size_t eq = words[i].find('=');
    const std::string key = words[i].substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : words[i].substr(eq + 1);
    const bool known = key == "wildcards" || key == "ignore_literals" || key == "scalars" || key == "scalar_nodes";
    if (eq == std::string::npos || !known)
      return error_at(filename, c.header_line, "pattern '" + p.name + "': unknown header field '" + words[i] + "'");
    if (key == "wildcards") wildcards = value;
    if (key == "ignore_literals") {
      if (value != "true" && value != "false")
        return error_at(filename, c.header_line, "pattern '" + p.name + "': ignore_literals must be true or false");
      p.ignore_literals = value == "true";
    }
    if (key == "scalar_nodes") {
      char* end = nullptr;
      const long n = std::strtol(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || n < 0 || n > 1000000)
        return error_at(filename, c.header_line,
                        "pattern '" + p.name + "': scalar_nodes must be a count, found '" + value + "'");
      p.scalar_nodes = static_cast<int>(n);
    }
    if (key == "scalars") {
      for (const std::string& item : split(value, ',')) {
        const size_t colon = item.find(':');
        char* end = nullptr;
        const double magic = colon == std::string::npos ? 0 : std::strtod(item.c_str() + colon + 1, &end);
        if (colon == std::string::npos || end == item.c_str() + colon + 1 || *end != '\0')
          return error_at(filename, c.header_line, "pattern '" + p.name + "': bad scalar parameter '" + item + "'");
        p.scalar_params.push_back(ScalarParam{item.substr(0, colon), magic});
      }
    }
  }
  return wildcards;
}

}  // namespace

Expected<std::string> print_patterns(const PatternSet& set) {
  std::string out = "// kiln pattern set '" + set.name() + "'\n";
  for (int i = 0; i < set.size(); ++i) {
    const Pattern& p = set.pattern(i);
    if (!p.replacement) return make_error("pattern '", p.name, "': a replacement callback has no text form");
    std::string scalars;
    for (const ScalarParam& s : p.scalar_params)
      scalars += (scalars.empty() ? "" : ",") + s.name + ":" + format_double(s.magic);
    out += "pattern " + p.name + " wildcards=" + join_names(*p.search) +
           " ignore_literals=" + (p.ignore_literals ? "true" : "false") + " scalars=" + scalars +
           (p.scalar_nodes >= 0 ? " scalar_nodes=" + std::to_string(p.scalar_nodes) : "") + "\n";
    out += print_graph(*p.search) + print_graph(*p.replacement);
  }
  return out;
}

Expected<std::vector<Pattern>> parse_patterns(std::string_view text, std::string_view filename) {
  KILN_ASSIGN_OR_RETURN(std::vector<Chunk> chunks, split_chunks(text, filename));
  std::vector<Pattern> patterns;
  for (const Chunk& c : chunks) {
    Pattern p;
    KILN_ASSIGN_OR_RETURN(std::string wildcards, parse_header(c, filename, p));
    KILN_ASSIGN_OR_RETURN(auto graphs, parse_graphs(c.graphs, filename));
    if (graphs.size() != 2)
      return error_at(filename, c.header_line,
                      "pattern '" + p.name + "': expected a search graph and a replacement graph, found " +
                          std::to_string(graphs.size()) + " graphs");
    if (wildcards != join_names(*graphs[0]))
      return error_at(filename, c.header_line,
                      "pattern '" + p.name + "': wildcards=" + wildcards + " but the search graph's inputs are " +
                          join_names(*graphs[0]));
    p.search = std::move(graphs[0]);
    p.replacement = std::move(graphs[1]);
    patterns.push_back(std::move(p));
  }
  return patterns;
}

}  // namespace kiln
