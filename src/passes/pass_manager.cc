#include "passes/pass_manager.h"

#include <chrono>
#include <iostream>
#include <sstream>

#include "ir/printer.h"
#include "ir/verifier.h"
#include "passes/cse.h"
#include "passes/dce.h"
#include "passes/topo_sort.h"

namespace kiln {

namespace {

struct PassEntry {
  const char* name;
  PassResult (*run)(Graph&);
};

constexpr PassEntry kPasses[] = {
    {"dce", eliminate_dead_code},
    {"cse", eliminate_common_subexpressions},
    {"topo-sort", sort_topologically},
};

const PassEntry* find_pass(const std::string& name) {
  for (const PassEntry& p : kPasses)
    if (name == p.name) return &p;
  return nullptr;
}

std::vector<std::string> split_pipeline(const std::string& pipeline) {
  std::vector<std::string> names;
  std::stringstream ss(pipeline);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) names.push_back(item);
  return names;
}

}  // namespace

std::vector<std::string> registered_passes() {
  std::vector<std::string> out;
  for (const PassEntry& p : kPasses) out.emplace_back(p.name);
  return out;
}

Status run_passes(Graph& g, const std::string& pipeline, const PassManagerOptions& options) {
  std::ostream& log = options.log ? *options.log : std::cerr;
  std::vector<const PassEntry*> passes;
  for (const std::string& name : split_pipeline(pipeline)) {
    const PassEntry* p = find_pass(name);
    if (!p) {
      std::string known;
      for (const std::string& n : registered_passes()) known += (known.empty() ? "" : ", ") + n;
      return make_error("unknown pass '", name, "' (known passes: ", known, ")");
    }
    passes.push_back(p);
  }
  for (const PassEntry* p : passes) {
    auto start = std::chrono::steady_clock::now();
    PassResult r = p->run(g);
    auto elapsed = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (options.time_passes) {
      log << "pass " << p->name << ": " << elapsed << " ms";
      for (const auto& [counter, value] : r.counters) log << ", " << counter << "=" << value;
      log << "\n";
    }
    if (options.verify_each) {
      Status s = verify_graph(g);
      if (!s) {
        s.error().add_context(std::string("after pass '") + p->name + "'");
        return s;
      }
    }
    if (options.print_after_all || (options.print_after_change && r.changed))
      log << "// ----- IR after " << p->name << (r.changed ? "" : " (unchanged)") << " -----\n" << print_graph(g);
  }
  return Status::ok();
}

}  // namespace kiln
