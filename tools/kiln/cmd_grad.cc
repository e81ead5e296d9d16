// kiln grad FILE [--partition=min-cut|default] [--budget=F] [--solver=dp|greedy] [--wrt=a,b]
//                 [--joint-passes] [--json] [--emit=partition|joint] [--device=cpu --report DIR]:
// differentiates the first graph of FILE (joint graph, autograd/joint_graph.h), with
// --joint-passes rewrites it as GradFunction does (patterns/joint_graph_passes.h: cleanups,
// attention fusion, matmul padding; the text output then lists the rewrites made), splits it into
// forward and backward graphs (autograd/partition.h; min-cut by default) and prints both with
// a table of the values the forward saves for the backward, the number of recomputed nodes,
// how the saved bytes compare with the default partition's, and what each forward output is
// for the backward (takes a tangent, or why not; a write-back of a mutated input). --emit=joint
// prints the joint graph itself instead (inputs: primals, then one tangent per output that
// takes one; outputs: forward outputs, then the gradients), a graph `kiln run` can execute.
// --device=cpu --report DIR also compiles the gradient as training does (GradFunction with
// the same options, both graphs for the CPU) and writes its compile report (docs/REPORT.md).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

#include "autograd/joint_graph.h"
#include "autograd/partition.h"
#include "commands.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ops/attr.h"
#include "patterns/joint_graph_passes.h"
#include "report/compile_report.h"
#include "train/grad_function.h"

namespace kiln::cli {

namespace {

struct GradArgs {
  std::string file;
  JointOptions joint;
  PartitionOptions partition;
  bool json = false;
  bool emit_joint = false;
  bool joint_passes = false;
  std::string device;      // "" or "cpu": --report compiles both graphs for the CPU
  std::string report_dir;  // --report DIR
};

bool parse_args(const Args& args, GradArgs& out) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--report" || a.rfind("--report=", 0) == 0) {
      out.report_dir = a == "--report" ? (i + 1 < args.size() ? args[++i] : "") : a.substr(9);
      if (out.report_dir.empty()) {
        std::fprintf(stderr, "kiln grad: --report needs a directory\n");
        return false;
      }
    } else if (a == "--device=cpu") {
      out.device = "cpu";
    } else if (a.rfind("--wrt=", 0) == 0) {
      std::stringstream ss(a.substr(6));
      std::string name;
      while (std::getline(ss, name, ','))
        if (!name.empty()) out.joint.wrt.push_back(name);
    } else if (a == "--partition=default") {
      out.partition.kind = PartitionKind::Default;
    } else if (a == "--partition=min-cut") {
      out.partition.kind = PartitionKind::MinCut;
    } else if (a.rfind("--partition=", 0) == 0) {
      std::fprintf(stderr, "kiln grad: unknown partitioner '%s' (known: min-cut, default)\n", a.substr(12).c_str());
      return false;
    } else if (a.rfind("--budget=", 0) == 0) {
      const std::string v = a.substr(9);
      char* end = nullptr;
      out.partition.memory_budget = std::strtod(v.c_str(), &end);
      if (v.empty() || *end != '\0') {
        std::fprintf(stderr, "kiln grad: --budget wants a number in [0, 1], not '%s'\n", v.c_str());
        return false;
      }
    } else if (a == "--solver=dp") {
      out.partition.solver = KnapsackSolver::DynamicProgramming;
    } else if (a == "--solver=greedy") {
      out.partition.solver = KnapsackSolver::Greedy;
    } else if (a.rfind("--solver=", 0) == 0) {
      std::fprintf(stderr, "kiln grad: unknown knapsack solver '%s' (known: dp, greedy)\n", a.substr(9).c_str());
      return false;
    } else if (a == "--json") {
      out.json = true;
    } else if (a == "--joint-passes") {
      out.joint_passes = true;
    } else if (a == "--emit=joint") {
      out.emit_joint = true;
    } else if (a == "--emit=partition") {
      out.emit_joint = false;
    } else if (a.rfind("--emit=", 0) == 0) {
      std::fprintf(stderr, "kiln grad: unknown --emit '%s' (known: partition, joint)\n", a.substr(7).c_str());
      return false;
    } else if (a.rfind("--", 0) == 0 || !out.file.empty()) {
      std::fprintf(stderr, "kiln grad: unexpected argument '%s'\n", a.c_str());
      return false;
    } else {
      out.file = a;
    }
  }
  if (out.file.empty()) {
    std::fprintf(stderr,
                 "usage: kiln grad FILE [--partition=min-cut|default] [--budget=F] [--solver=dp|greedy] [--wrt=a,b] "
                 "[--joint-passes] [--json] [--emit=partition|joint] [--device=cpu --report DIR]\n");
    return false;
  }
  if (!out.report_dir.empty() && out.device != "cpu") {
    std::fprintf(stderr, "kiln grad: --report compiles the forward and backward graphs for the CPU: give --device=cpu\n");
    return false;
  }
  if (out.emit_joint && out.json) {
    std::fprintf(stderr, "kiln grad: --json prints the partition; it does not combine with --emit=joint\n");
    return false;
  }
  return true;
}

std::string json_string(const std::string& s) { return quote_string(s); }

// "tangent", "no_gradient", ..., or "write_back %x".
std::string output_role(const JointGraph& joint, const Graph& forward, size_t k) {
  std::string role(output_grad_kind_name(joint.output_grad[k]));
  if (joint.output_grad[k] == OutputGradKind::WriteBack) {
    const int input = joint.write_back_inputs[k - static_cast<size_t>(joint.num_user_outputs)];
    role += " %" + forward.input(input)->name();
  }
  return role;
}

void print_json(const JointGraph& joint, const Graph& forward, const Partition& p, int64_t default_bytes) {
  std::string out = "{\"forward\": " + json_string(print_graph(*p.forward)) +
                    ", \"backward\": " + json_string(print_graph(*p.backward)) + ", \"saved\": [";
  for (size_t i = 0; i < p.saved.size(); ++i) {
    const SavedValue& v = p.saved[i];
    out += std::string(i ? ", " : "") + "{\"name\": " + json_string(v.name) + ", \"shape\": " +
           json_string(v.type.shape.to_string()) + ", \"dtype\": " + json_string(std::string(dtype_name(v.type.dtype))) +
           ", \"bytes\": " + (v.type.shape.is_static() ? std::to_string(v.bytes) : "-1") + "}";
  }
  out += "], \"saved_bytes\": " + std::to_string(p.saved_bytes) +
         ", \"recomputed_nodes\": " + std::to_string(p.recomputed_nodes) +
         ", \"default_saved_bytes\": " + std::to_string(default_bytes) + ", \"outputs\": [";
  for (size_t k = 0; k < joint.output_grad.size(); ++k)
    out += std::string(k ? ", " : "") + json_string(output_role(joint, forward, k));
  out += "]}\n";
  std::fputs(out.c_str(), stdout);
}

void print_text(const JointGraph& joint, const Graph& forward, const Partition& p, int64_t default_bytes) {
  std::printf("%s\n%s\n", print_graph(*p.forward).c_str(), print_graph(*p.backward).c_str());
  std::printf("saved for backward (%d values):\n", p.num_saved);
  for (const SavedValue& v : p.saved) {
    std::string bytes = v.type.shape.is_static() ? std::to_string(v.bytes) : "symbolic";
    std::printf("  %%%-20s %-20s %s bytes\n", v.name.c_str(), v.type.to_string().c_str(), bytes.c_str());
  }
  std::printf("saved bytes: %lld\nrecomputed nodes: %d\n", static_cast<long long>(p.saved_bytes), p.recomputed_nodes);
  const double percent = default_bytes > 0 ? 100.0 * static_cast<double>(p.saved_bytes) / static_cast<double>(default_bytes) : 100.0;
  std::printf("default partition saves: %lld bytes (this partition: %.1f%%)\n", static_cast<long long>(default_bytes),
              percent);
  std::printf("forward outputs:\n");
  for (size_t k = 0; k < joint.output_grad.size(); ++k)
    std::printf("  %zu: %s\n", k, output_role(joint, forward, k).c_str());
}

// The compile report of the gradient as training compiles it (GradFunction, Backend::Compiled):
// the parsed graph, joint, forward and backward graphs, the partition, both programs.
int write_report(const GradArgs& args, const Graph& g, double parse_seconds) {
  CompileReport r{.title = "gradient of @" + g.name()};
  r.graphs.push_back(report_graph("@" + g.name() + " as parsed", g));
  Expected<GradFunction> fn = GradFunction::create(g, {},
                                                   GradOptions{.joint = args.joint,
                                                               .run_joint_passes = args.joint_passes,
                                                               .partition = args.partition,
                                                               .runner = {.backend = Backend::Compiled},
                                                               .report = &r});
  if (!fn) {
    std::fprintf(stderr, "%s\n", fn.error().to_string().c_str());
    return 1;
  }
  r.times.add(Phase::Capture, parse_seconds);
  r.times.add(fn->phase_times());
  if (Status s = write_compile_report(r, args.report_dir); !s) {
    std::fprintf(stderr, "%s\n", s.error().to_string().c_str());
    return 1;
  }
  std::printf("compile report: %s/index.html\n%s", args.report_dir.c_str(), r.times.to_text().c_str());
  return 0;
}

}  // namespace

int cmd_grad(const Args& raw) {
  GradArgs args;
  if (!parse_args(raw, args)) return 2;
  std::string text;
  const auto t0 = std::chrono::steady_clock::now();
  if (!read_file(args.file, text)) return 1;
  auto graphs = parse_graphs(text, args.file);
  if (!graphs) {
    std::fprintf(stderr, "%s\n", graphs.error().to_string().c_str());
    return 1;
  }
  const double parse_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  auto joint = joint_graph(*graphs->front(), args.joint);
  if (!joint) {
    std::fprintf(stderr, "%s\n", joint.error().to_string().c_str());
    return 1;
  }
  std::string rewrites;
  if (args.joint_passes) {
    Expected<PassResult> r = joint_graph_passes(*joint->graph);
    if (!r) {
      std::fprintf(stderr, "%s\n", r.error().to_string().c_str());
      return 1;
    }
    for (const auto& [counter, value] : r->counters)
      if (value > 0 && counter.find(".pattern.") == std::string::npos && counter.find("visits") == std::string::npos &&
          counter.find("iterations") == std::string::npos)
        rewrites += "  " + counter + " = " + std::to_string(value) + "\n";
  }
  if (args.emit_joint) {
    std::printf("%s\n", print_graph(*joint->graph).c_str());
    return 0;
  }
  Expected<Partition> p = partition(*joint, args.partition);
  if (!p) {
    std::fprintf(stderr, "%s\n", p.error().to_string().c_str());
    return 1;
  }
  const int64_t default_bytes =
      args.partition.kind == PartitionKind::Default ? p->saved_bytes : partition_default(*joint).saved_bytes;
  if (args.json)
    print_json(*joint, *graphs->front(), *p, default_bytes);
  else
    print_text(*joint, *graphs->front(), *p, default_bytes);
  if (args.joint_passes && !args.json) std::printf("joint-graph passes:\n%s", rewrites.empty() ? "  (no rewrites)\n" : rewrites.c_str());
  return args.report_dir.empty() ? 0 : write_report(args, *graphs->front(), parse_seconds);
}

}  // namespace kiln::cli
