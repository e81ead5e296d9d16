// The compile report (docs/REPORT.md): what a pipeline collects while it compiles (each
// stage's graph, the partition's saved-vs-recomputed decisions, each lowered program with its
// kernels and planned memory, the time of each phase), and write_compile_report, which turns
// it into a directory a person opens in a browser (index.html beside the text, DOT, SVG and
// C++ files it links). Plain data: collecting it renders the text forms once, so the report
// outlives the graphs and programs it describes.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "autograd/partition.h"
#include "backend/compile_graph.h"
#include "ir/graph.h"
#include "report/graph_dot.h"
#include "report/memory_plot.h"
#include "report/phase_times.h"
#include "support/diagnostic.h"

namespace kiln {

struct ReportGraph {
  std::string title;      // the stage: "captured", "joint", "forward", ...
  std::string text;       // print_graph
  std::string dot;        // graph_dot, with the stage's roles
  int64_t dot_nodes = 0;  // inputs and nodes drawn
};

struct ReportProgram {
  std::string title;                                      // the graph it was lowered from: "forward", ...
  std::string loops;                                      // print_loops
  std::string dot;                                        // loop_program_dot
  int64_t dot_nodes = 0;                                  // kernels and buffers drawn
  std::string source;                                     // the backend's generated source of every kernel (one unit)
  SourceFormat source_format;                             // its language and file extension
  std::array<int, kNumKernelKinds> kernels_by_kind = {};  // indexed by KernelKind
  MemorySeries memory;
  TargetReport target;  // what the backend shows beyond this (empty for the CPU)
};

struct ReportSavedValue {
  std::string name;      // in the backward graph
  std::string type;      // "f32[8,32]"
  int64_t bytes = 0;     // 0 for a symbolic shape
  std::string producer;  // the forward node computing it, in IR syntax; "input" for an input
};

struct ReportPartition {
  std::vector<ReportSavedValue> saved;
  int64_t saved_bytes = 0;
  std::vector<std::string> recomputed;  // backward nodes the forward also computes, in IR syntax
};

struct CompileReport {
  std::string title = {};
  std::vector<ReportGraph> graphs = {};           // in pipeline order
  std::optional<ReportPartition> partition = {};  // training compiles only
  std::vector<ReportProgram> programs = {};       // compiled graphs
  PhaseTimes times = {};
};

ReportGraph report_graph(std::string title, const Graph& g, const GraphDotRoles& roles = {});
// The program of a compiled graph: loop IR, DOT, source (emitted again by `backend`, which
// compiled it) and the memory series of its plan.
ReportProgram report_program(std::string title, const CompiledGraph& c, const Backend& backend);
// The program `p` (a graph lowered by lower_graph_for) as `backend` describes it without loading
// it (Backend::describe: no device), with `why` (the load's error) as the report's first note.
ReportProgram report_described_program(std::string title, const LoopProgram& p, const DescribedProgram& d,
                                       const Backend& backend, const std::string& why);
ReportPartition report_partition(const Partition& p);

struct ReportOptions {
  // Graphviz's dot: a path, or a name looked up in PATH; "" is "dot". When it cannot be found
  // or fails, the report is still written: the DOT files, and a note saying why there is no SVG.
  std::string dot_program;
  // Graphs with more DOT nodes than this are not drawn (a note says so; the .dot file is
  // written): dot's layout time grows faster than linearly, about 2 s for the 400 nodes of a
  // two-layer GPT's joint graph and 30 s for 2000 on this machine.
  int64_t max_drawn_nodes = 1000;
};

// Writes DIR/index.html and the files it links (graphs/, programs/), creating DIR. Errors name
// the path that could not be created or written.
Status write_compile_report(const CompileReport& r, const std::string& dir, const ReportOptions& o = {});

}  // namespace kiln
