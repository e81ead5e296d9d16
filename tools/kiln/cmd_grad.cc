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
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

#include "autograd/joint_graph.h"
#include "autograd/partition.h"
#include "command_line.h"
#include "commands.h"
#include "device_option.h"
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
  std::optional<Device> device;  // --report compiles both graphs for it
  std::string report_dir;        // --report DIR
};

constexpr const char* kGradUsage =
    "usage: kiln grad FILE [--partition=min-cut|default] [--budget=F] [--solver=dp|greedy] [--wrt=a,b] "
    "[--joint-passes] [--json]\n"
    "                 [--emit=partition|joint] [--device=cpu --report DIR]\n";

// The command line as GradArgs; the exit status when it ends the command, else nullopt.
std::optional<int> parse_args(const Args& args, GradArgs& out) {
  CommandLine cl("grad", kGradUsage);
  cl.option("--report", "a directory");
  for (const char* o : {"--device", "--wrt", "--partition", "--budget", "--solver", "--emit"}) cl.option(o);
  cl.flag("--json").flag("--joint-passes");
  if (std::optional<int> rc = cl.parse(args)) return rc;
  out.file = cl.positionals()[0];
  out.report_dir = cl.nonempty("--report").value_or("");
  if (std::optional<std::string> device = cl.value("--device")) {
    DeviceOption d = device_option(cl, *device, false, "grad compiles for cpu");
    if (d.status) return d.status;
    out.device = d.backend->device();
  }
  out.joint.wrt = cl.list("--wrt");
  if (std::optional<std::string> kind = cl.value("--partition")) {
    if (*kind == "default")
      out.partition.kind = PartitionKind::Default;
    else if (*kind == "min-cut")
      out.partition.kind = PartitionKind::MinCut;
    else
      return cl.usage_error("unknown partitioner '" + *kind + "' (known: min-cut, default)");
  }
  // The partitioner checks the range (a user error naming the budget).
  if (std::optional<double> budget = cl.number("--budget", -INFINITY, INFINITY)) out.partition.memory_budget = *budget;
  if (std::optional<std::string> solver = cl.value("--solver")) {
    if (*solver == "dp")
      out.partition.solver = KnapsackSolver::DynamicProgramming;
    else if (*solver == "greedy")
      out.partition.solver = KnapsackSolver::Greedy;
    else
      return cl.usage_error("unknown knapsack solver '" + *solver + "' (known: dp, greedy)");
  }
  if (std::optional<std::string> emit = cl.value("--emit")) {
    if (*emit != "joint" && *emit != "partition")
      return cl.usage_error("unknown --emit '" + *emit + "' (known: partition, joint)");
    out.emit_joint = *emit == "joint";
  }
  out.json = cl.has("--json");
  out.joint_passes = cl.has("--joint-passes");
  if (cl.failed()) return 2;
  if (!out.report_dir.empty() && !out.device)
    return cl.usage_error("--report compiles the forward and backward graphs for the CPU: give --device=cpu");
  if (out.emit_joint && out.json)
    return cl.usage_error("--json prints the partition; it does not combine with --emit=joint");
  return std::nullopt;
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
    out += std::string(i ? ", " : "") + "{\"name\": " + json_string(v.name) +
           ", \"shape\": " + json_string(v.type.shape.to_string()) +
           ", \"dtype\": " + json_string(std::string(dtype_name(v.type.dtype))) +
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
  const double percent =
      default_bytes > 0 ? 100.0 * static_cast<double>(p.saved_bytes) / static_cast<double>(default_bytes) : 100.0;
  std::printf("default partition saves: %lld bytes (this partition: %.1f%%)\n", static_cast<long long>(default_bytes),
              percent);
  std::printf("forward outputs:\n");
  for (size_t k = 0; k < joint.output_grad.size(); ++k)
    std::printf("  %zu: %s\n", k, output_role(joint, forward, k).c_str());
}

// The compile report of the gradient as training compiles it (GradFunction, Execution::Compiled):
// the parsed graph, joint, forward and backward graphs, the partition, both programs.
int write_report(const GradArgs& args, const Graph& g, double parse_seconds) {
  CompileReport r{.title = "gradient of @" + g.name()};
  r.graphs.push_back(report_graph("@" + g.name() + " as parsed", g));
  Expected<GradFunction> fn =
      GradFunction::create(g, {},
                           GradOptions{.joint = args.joint,
                                       .run_joint_passes = args.joint_passes,
                                       .partition = args.partition,
                                       .runner = {.execution = Execution::Compiled, .device = *args.device},
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
  if (std::optional<int> rc = parse_args(raw, args)) return *rc;
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
  Expected<Partition> default_partition = partition_default(*joint);
  if (!default_partition) {
    std::fprintf(stderr, "%s\n", default_partition.error().to_string().c_str());
    return 1;
  }
  const int64_t default_bytes = default_partition->saved_bytes;
  if (args.json)
    print_json(*joint, *graphs->front(), *p, default_bytes);
  else
    print_text(*joint, *graphs->front(), *p, default_bytes);
  if (args.joint_passes && !args.json)
    std::printf("joint-graph passes:\n%s", rewrites.empty() ? "  (no rewrites)\n" : rewrites.c_str());
  return args.report_dir.empty() ? 0 : write_report(args, *graphs->front(), parse_seconds);
}

}  // namespace kiln::cli
