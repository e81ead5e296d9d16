#include "report/compile_report.h"

#include <unordered_set>

#include "ir/printer.h"
#include "lower/loop_control.h"
#include "lower/loop_text.h"
#include "report/loop_dot.h"

namespace kiln {

ReportGraph report_graph(std::string title, const Graph& g, const GraphDotRoles& roles) {
  return {std::move(title), print_graph(g), graph_dot(g, roles), g.num_inputs() + static_cast<int64_t>(g.num_nodes())};
}

namespace {

ReportProgram program_of(std::string title, const LoopProgram& p, const MemoryPlan& plan, const Backend& backend,
                         TargetReport target) {
  ReportProgram r{.title = std::move(title),
                  .loops = print_loops(p),
                  .dot = loop_program_dot(p),
                  .dot_nodes = static_cast<int64_t>(p.kernels.size() + p.buffers.size()),
                  .source = backend.emit(p),
                  .source_format = backend.source_format(),
                  .memory = memory_series(p, plan),
                  .target = std::move(target)};
  for (const LoopKernel* k : flat_kernels(p)) ++r.kernels_by_kind[static_cast<size_t>(k->kind)];
  return r;
}

}  // namespace

ReportProgram report_program(std::string title, const CompiledGraph& c, const Backend& backend) {
  const Executable& e = c.executable();
  return program_of(std::move(title), e.program(), e.memory_plan(), backend, e.target_report());
}

ReportProgram report_described_program(std::string title, const LoopProgram& p, const DescribedProgram& d,
                                       const Backend& backend, const std::string& why) {
  TargetReport target = d.target;
  target.notes.insert(target.notes.begin(), "Not loaded: " + why);
  return program_of(std::move(title), p, d.memory_plan, backend, std::move(target));
}

ReportPartition report_partition(const Partition& p) {
  ReportPartition r;
  r.saved_bytes = p.saved_bytes;
  const std::vector<Value*>& outs = p.forward->outputs();
  for (size_t k = 0; k < p.saved.size(); ++k) {
    const SavedValue& s = p.saved[k];
    const Value* v = outs[static_cast<size_t>(p.num_forward_outputs) + k];
    r.saved.push_back(
        {s.name, s.type.to_string(), s.bytes, v->producer() ? print_node(*v->producer()) : "input %" + v->name()});
  }
  for (const Node* n : p.recomputed) r.recomputed.push_back(print_node(*n));
  return r;
}

}  // namespace kiln
