#include "passes/pass_manager.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <sstream>

#include "ir/printer.h"
#include "ir/verifier.h"
#include "passes/canonicalize.h"
#include "passes/cse.h"
#include "passes/dce.h"
#include "passes/decompose.h"
#include "passes/fold_constants.h"
#include "passes/fold_uniform_matmuls.h"
#include "passes/functionalize.h"
#include "passes/lift_rng_state.h"
#include "passes/mark_unique_indices.h"
#include "passes/propagate_shapes.h"
#include "passes/remove_noop_ops.h"
#include "passes/topo_sort.h"

namespace kiln {

namespace {

struct PassEntry {
  const char* name;
  Expected<PassResult> (*run)(Graph&, const PassManagerOptions&, PipelineFacts&);
};

// A pass that cannot fail and takes no options.
template <PassResult (*Pass)(Graph&)>
Expected<PassResult> simple_pass(Graph& g, const PassManagerOptions&, PipelineFacts&) {
  return Pass(g);
}

int64_t count_inplace_nodes(const Graph& g) {
  int64_t n = 0;
  for (Node* node : g.nodes()) {
    n += node->info().has(kInplace) ? 1 : 0;
    for (int i = 0; i < node->num_subgraphs(); ++i) n += count_inplace_nodes(*node->subgraph(i));
  }
  return n;
}

Expected<PassResult> functionalize_pass(Graph& g, const PassManagerOptions& options, PipelineFacts& facts) {
  const int64_t before = count_inplace_nodes(g);
  const std::string text_before = print_graph(g);
  KILN_ASSIGN_OR_RETURN(ViewAndMutationInfo info, functionalize(g, options.functionalize));
  PassResult r;
  const int64_t write_back_copies = info.keep_input_mutations ? info.num_write_backs() : 0;
  r.counters["inplace_removed"] = before - (count_inplace_nodes(g) - write_back_copies);
  r.counters["write_backs"] = info.num_write_backs();
  r.changed = print_graph(g) != text_before;  // unused views may go even when nothing was written
  facts.mutation_info = std::move(info);
  return r;
}

Expected<PassResult> decompose_pass(Graph& g, const PassManagerOptions& options, PipelineFacts&) {
  return decompose(g, options.decompose);
}

// A pass that may fail and takes its default options.
template <auto Pass>
Expected<PassResult> default_options_pass(Graph& g, const PassManagerOptions&, PipelineFacts&) {
  return Pass(g, {});
}

constexpr PassEntry kPasses[] = {
    {"dce", simple_pass<eliminate_dead_code>},
    {"cse", simple_pass<eliminate_common_subexpressions>},
    {"topo-sort", simple_pass<sort_topologically>},
    {"functionalize", functionalize_pass},
    {"decompose", decompose_pass},
    {"remove-noop-ops", default_options_pass<remove_noop_ops>},
    {"fold-constants", default_options_pass<fold_constants>},
    {"canonicalize", default_options_pass<canonicalize>},
    {"fold-uniform-matmuls", default_options_pass<fold_uniform_matmuls>},
    {"lift-rng-state", simple_pass<lift_rng_state>},
    {"propagate-shapes", [](Graph& g, const PassManagerOptions&, PipelineFacts&) { return propagate_shapes(g); }},
    {"unique-index", simple_pass<mark_unique_indices>},
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

Status run_passes(Graph& g, const std::string& pipeline, const PassManagerOptions& options, PipelineFacts* facts) {
  std::ostream& log = options.log ? *options.log : std::cerr;
  PipelineFacts local_facts;
  PipelineFacts& reported = facts ? *facts : local_facts;
  std::vector<NamedPass> passes;
  for (const std::string& name : split_pipeline(pipeline)) {
    if (const PassEntry* p = find_pass(name)) {
      passes.push_back({p->name, [p, &options, &reported](Graph& graph) { return p->run(graph, options, reported); }});
      continue;
    }
    auto extra = std::find_if(options.extra_passes.begin(), options.extra_passes.end(),
                              [&](const NamedPass& e) { return e.name == name; });
    if (extra == options.extra_passes.end()) {
      std::string known;
      for (const std::string& n : registered_passes()) known += (known.empty() ? "" : ", ") + n;
      for (const NamedPass& e : options.extra_passes) known += ", " + e.name;
      return make_error("unknown pass '", name, "' (known passes: ", known, ")");
    }
    passes.push_back(*extra);
  }
  for (const NamedPass& p : passes) {
    auto start = std::chrono::steady_clock::now();
    Expected<PassResult> run = p.run(g);
    if (!run) {
      Diagnostic d = run.error();
      d.add_context("in pass '" + p.name + "'");
      return d;
    }
    const PassResult& r = *run;
    for (const auto& [counter, value] : r.counters) reported.counters[p.name][counter] += value;
    auto elapsed = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (options.time_passes) {
      log << "pass " << p.name << ": " << elapsed << " ms";
      for (const auto& [counter, value] : r.counters) log << ", " << counter << "=" << value;
      log << "\n";
    }
    if (options.verify_each) {
      Status s = verify_graph(g);
      if (!s) {
        s.error().add_context("after pass '" + p.name + "'");
        return s;
      }
    }
    if (options.print_after_all || (options.print_after_change && r.changed))
      log << "// ----- IR after " << p.name << (r.changed ? "" : " (unchanged)") << " -----\n" << print_graph(g);
  }
  return Status::ok();
}

}  // namespace kiln
