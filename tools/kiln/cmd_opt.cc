// kiln opt FILE --passes=a,b: parse graphs, run passes, print them. With
// --split-input-file, the file is cut at lines "// -----" and each piece is handled on its
// own (errors keep their line numbers), as lit tests of passes are written.
// Options of functionalize: --aliased-inputs=a,b+4 says inputs %a and %b share one storage
// at run time, each packed from the given element offset (+0 when left out; repeat the
// option for more groups); --mutations-as-outputs writes mutated inputs back as extra
// outputs instead of trailing copy_ nodes; --print-mutation-info prints the
// ViewAndMutationInfo after each graph. Option of decompose: --decompose-ops=gelu,softmax
// decomposes only the ops named (default: every op that has a decomposition).
// Pattern sets (patterns/pattern_sets.h) are passes too (--passes=demo-fusions);
// --explain-matches prints to stderr, after the passes, why each remaining candidate node of
// the pattern sets in --passes did not match.
// --unverified-input parses without verifying recorded types (for propagate-shapes).
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "command_line.h"
#include "commands.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "passes/decompose.h"
#include "passes/pass_manager.h"
#include "patterns/joint_graph_passes.h"
#include "patterns/pattern_sets.h"

namespace kiln::cli {

namespace {

struct OptArgs {
  std::string file;
  std::string passes;
  bool split_input = false;
  bool print_mutation_info = false;
  bool explain_matches = false;
  bool unverified_input = false;
  std::vector<std::string> aliased_inputs;  // "a,b+4" per group
  PassManagerOptions pm;
};

constexpr const char* kOptUsage =
    "usage: kiln opt FILE --passes=a,b [--split-input-file] [--print-after-all] [--print-changed] [--time-passes]\n"
    "                [--verify-each] [--aliased-inputs=a,b+OFFSET] [--mutations-as-outputs]\n"
    "                [--print-mutation-info] [--decompose-ops=a,b] [--explain-matches] [--unverified-input]\n";

// The command line as OptArgs; the exit status when it ends the command, else nullopt.
std::optional<int> parse_args(const Args& args, OptArgs& out) {
  CommandLine cl("opt", kOptUsage);
  cl.option("--passes", "a list of passes (--passes=a,b; --passes= runs none)");
  cl.option("--decompose-ops").option("--aliased-inputs");
  for (const char* f : {"--split-input-file", "--print-after-all", "--print-changed", "--time-passes", "--verify-each",
                        "--unverified-input", "--print-mutation-info", "--explain-matches", "--mutations-as-outputs"})
    cl.flag(f);
  if (std::optional<int> rc = cl.parse(args)) return rc;
  out.file = cl.positionals()[0];
  const std::optional<std::string> passes = cl.value("--passes");
  if (!passes) return cl.usage_error("give the passes to run with --passes=a,b (--passes= runs none)");
  out.passes = *passes;
  out.split_input = cl.has("--split-input-file");
  out.pm.print_after_all = cl.has("--print-after-all");
  out.pm.print_after_change = cl.has("--print-changed");
  out.pm.time_passes = cl.has("--time-passes");
  out.pm.verify_each = cl.has("--verify-each");
  out.unverified_input = cl.has("--unverified-input");
  out.print_mutation_info = cl.has("--print-mutation-info");
  out.explain_matches = cl.has("--explain-matches");
  if (cl.has("--mutations-as-outputs")) out.pm.functionalize.keep_input_mutations = false;
  if (std::optional<std::string> ops = cl.value("--decompose-ops")) {
    Expected<DecomposeOptions> decompose = parse_decompose_ops(*ops);
    if (!decompose) return cl.usage_error("--decompose-ops: " + decompose.error().message());
    out.pm.decompose = std::move(*decompose);
  }
  out.aliased_inputs = cl.values("--aliased-inputs");
  return std::nullopt;
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

// One --aliased-inputs group ("a,b+4") resolved against the inputs of `g`.
Expected<InputAliasGroup> parse_alias_group(const std::string& spec, const Graph& g) {
  InputAliasGroup group;
  std::stringstream ss(spec);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const size_t plus = item.find('+');
    const std::string name = item.substr(0, plus);
    int64_t offset = 0;
    if (plus != std::string::npos) {
      const std::string digits = item.substr(plus + 1);
      if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos)
        return make_error("--aliased-inputs: bad storage offset '", digits, "' in '", item, "'");
      offset = std::stoll(digits);
    }
    int index = -1;
    for (int i = 0; i < g.num_inputs(); ++i)
      if (g.input(i)->name() == name) index = i;
    if (index < 0) return make_error("--aliased-inputs: graph @", g.name(), " has no input %", name);
    KILN_ASSIGN_OR_RETURN(AliasedInput member, packed_aliased_input(g, index, offset));
    group.members.push_back(std::move(member));
  }
  return group;
}

// The pass names of --passes, in order.
std::vector<std::string> pass_names(const OptArgs& args) {
  std::vector<std::string> out;
  std::stringstream names(args.passes);
  std::string name;
  while (std::getline(names, name, ',')) out.push_back(name);
  return out;
}

// Why the candidates of the pattern sets named in --passes did not match, to stderr.
void explain(Graph& g, const OptArgs& args, const std::vector<std::shared_ptr<const PatternSet>>& sets) {
  for (const std::string& name : pass_names(args))
    for (const auto& set : sets)
      if (set->name() == name)
        for (const std::string& line : explain_matches(g, *set))
          std::fprintf(stderr, "explain @%s: %s\n", g.name().c_str(), line.c_str());
}

// Parses, transforms and prints one piece; returns false after printing an error.
bool process(const std::string& text, const OptArgs& args, const std::vector<std::shared_ptr<const PatternSet>>& sets,
             std::string& printed) {
  auto graphs = args.unverified_input ? parse_graphs_unverified(text, args.file) : parse_graphs(text, args.file);
  if (!graphs) {
    std::fprintf(stderr, "%s\n", graphs.error().to_string().c_str());
    return false;
  }
  for (size_t i = 0; i < graphs->size(); ++i) {
    Graph& g = *(*graphs)[i];
    PassManagerOptions pm = args.pm;
    for (const std::string& spec : args.aliased_inputs) {
      auto group = parse_alias_group(spec, g);
      if (!group) {
        std::fprintf(stderr, "%s\n", group.error().to_string().c_str());
        return false;
      }
      pm.functionalize.aliased_inputs.push_back(std::move(*group));
    }
    PipelineFacts facts;
    Status s = run_passes(g, args.passes, pm, &facts);
    if (!s) {
      std::fprintf(stderr, "%s\n", s.error().to_string().c_str());
      return false;
    }
    if (args.explain_matches) explain(g, args, sets);
    if (i) printed += "\n";
    printed += print_graph(g);
    if (args.print_mutation_info) {
      if (!facts.mutation_info) {
        std::fprintf(stderr, "kiln opt: --print-mutation-info needs the functionalize pass in --passes\n");
        return false;
      }
      printed += print_mutation_info(*facts.mutation_info, g);
    }
  }
  return true;
}

}  // namespace

int cmd_opt(const Args& raw) {
  OptArgs args;
  if (std::optional<int> rc = parse_args(raw, args)) return *rc;
  // The sets run lazily, by name; --explain-matches needs the named ones built here too.
  args.pm.extra_passes = lazy_builtin_pattern_set_passes();
  args.pm.extra_passes.push_back(joint_graph_named_pass());
  std::vector<std::shared_ptr<const PatternSet>> sets;
  if (args.explain_matches) {
    const std::vector<std::string> builtin = builtin_pattern_set_names();
    for (const std::string& name : pass_names(args)) {
      if (std::find(builtin.begin(), builtin.end(), name) == builtin.end()) continue;
      auto set = builtin_pattern_set(name);
      if (!set) {
        std::fprintf(stderr, "%s\n", set.error().to_string().c_str());
        return 1;
      }
      sets.push_back(std::move(*set));
    }
  }
  std::string text;
  if (!read_file(args.file, text)) return 1;
  std::vector<std::string> pieces = args.split_input ? split_pieces(text) : std::vector<std::string>{text};
  bool ok = true;
  for (size_t i = 0; i < pieces.size(); ++i) {
    std::string printed;
    if (!process(pieces[i], args, sets, printed)) {
      ok = false;
      continue;
    }
    if (i) std::fputs("// -----\n", stdout);
    std::fputs(printed.c_str(), stdout);
  }
  return ok ? 0 : 1;
}

}  // namespace kiln::cli
