// kiln opt FILE --passes=a,b: parse graphs, run passes, print them. With
// --split-input-file, the file is cut at lines "// -----" and each piece is handled on its
// own (errors keep their line numbers), as lit tests of passes are written.
#include <cstdio>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "passes/pass_manager.h"

namespace kiln::cli {

namespace {

struct OptArgs {
  std::string file;
  std::string passes;
  bool passes_given = false;
  bool split_input = false;
  PassManagerOptions pm;
};

bool parse_args(const Args& args, OptArgs& out) {
  for (const std::string& a : args) {
    if (a.rfind("--passes=", 0) == 0) {
      out.passes = a.substr(9);
      out.passes_given = true;
    } else if (a == "--split-input-file") {
      out.split_input = true;
    } else if (a == "--print-after-all") {
      out.pm.print_after_all = true;
    } else if (a == "--print-changed") {
      out.pm.print_after_change = true;
    } else if (a == "--time-passes") {
      out.pm.time_passes = true;
    } else if (a == "--verify-each") {
      out.pm.verify_each = true;
    } else if (a.rfind("--", 0) == 0 || !out.file.empty()) {
      std::fprintf(stderr, "kiln opt: unexpected argument '%s'\n", a.c_str());
      return false;
    } else {
      out.file = a;
    }
  }
  if (out.file.empty() || !out.passes_given) {
    std::fprintf(stderr, "usage: kiln opt FILE --passes=a,b [--split-input-file] [--print-after-all] "
                         "[--print-changed] [--time-passes] [--verify-each]\n");
    return false;
  }
  return true;
}

// Pieces of `text` cut at "// -----" lines; each piece starts with as many newlines as
// lines precede it, so diagnostics report lines of the whole file.
std::vector<std::string> split_pieces(const std::string& text) {
  std::vector<std::string> pieces;
  std::istringstream in(text);
  std::string line, current;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.rfind("// -----", 0) == 0) {
      pieces.push_back(current);
      current = std::string(static_cast<size_t>(line_no), '\n');
      continue;
    }
    current += line + "\n";
  }
  pieces.push_back(current);
  return pieces;
}

// Parses, transforms and prints one piece; returns false after printing an error.
bool process(const std::string& text, const OptArgs& args, std::string& printed) {
  auto graphs = parse_graphs(text, args.file);
  if (!graphs) {
    std::fprintf(stderr, "%s\n", graphs.error().to_string().c_str());
    return false;
  }
  for (size_t i = 0; i < graphs->size(); ++i) {
    Graph& g = *(*graphs)[i];
    Status s = run_passes(g, args.passes, args.pm);
    if (!s) {
      std::fprintf(stderr, "%s\n", s.error().to_string().c_str());
      return false;
    }
    if (i) printed += "\n";
    printed += print_graph(g);
  }
  return true;
}

}  // namespace

int cmd_opt(const Args& raw) {
  OptArgs args;
  if (!parse_args(raw, args)) return 2;
  std::string text;
  if (!read_file(args.file, text)) return 1;
  std::vector<std::string> pieces = args.split_input ? split_pieces(text) : std::vector<std::string>{text};
  bool ok = true;
  for (size_t i = 0; i < pieces.size(); ++i) {
    std::string printed;
    if (!process(pieces[i], args, printed)) {
      ok = false;
      continue;
    }
    if (i) std::fputs("// -----\n", stdout);
    std::fputs(printed.c_str(), stdout);
  }
  return ok ? 0 : 1;
}

}  // namespace kiln::cli
