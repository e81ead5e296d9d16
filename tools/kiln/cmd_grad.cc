// kiln grad FILE [--partition=default] [--wrt=a,b] [--json] [--emit=partition|joint]:
// differentiates the first graph of FILE (joint graph, autograd/joint_graph.h), splits it into
// forward and backward graphs and prints both with a table of the values the forward saves
// for the backward. --emit=joint prints the joint graph itself instead (inputs: primals, then
// one tangent per floating forward output; outputs: forward outputs, then the gradients), a
// graph `kiln run` can execute.
#include <cstdio>
#include <sstream>
#include <string>

#include "autograd/joint_graph.h"
#include "autograd/partition.h"
#include "commands.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ops/attr.h"

namespace kiln::cli {

namespace {

struct GradArgs {
  std::string file;
  JointOptions joint;
  bool json = false;
  bool emit_joint = false;
};

bool parse_args(const Args& args, GradArgs& out) {
  for (const std::string& a : args) {
    if (a.rfind("--wrt=", 0) == 0) {
      std::stringstream ss(a.substr(6));
      std::string name;
      while (std::getline(ss, name, ','))
        if (!name.empty()) out.joint.wrt.push_back(name);
    } else if (a == "--partition=default") {
      // The only partitioner so far; min-cut comes with the rest of issue 3.
    } else if (a.rfind("--partition=", 0) == 0) {
      std::fprintf(stderr, "kiln grad: unknown partitioner '%s' (known: default)\n", a.substr(12).c_str());
      return false;
    } else if (a == "--json") {
      out.json = true;
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
    std::fprintf(stderr, "usage: kiln grad FILE [--partition=default] [--wrt=a,b] [--json] [--emit=partition|joint]\n");
    return false;
  }
  if (out.emit_joint && out.json) {
    std::fprintf(stderr, "kiln grad: --json prints the partition; it does not combine with --emit=joint\n");
    return false;
  }
  return true;
}

std::string json_string(const std::string& s) { return quote_string(s); }

void print_json(const Partition& p) {
  std::string out = "{\"forward\": " + json_string(print_graph(*p.forward)) +
                    ", \"backward\": " + json_string(print_graph(*p.backward)) + ", \"saved\": [";
  for (int i = 0; i < p.num_saved; ++i) {
    const Value* v = p.backward->input(i);
    const TensorType& t = v->type();
    int64_t bytes = t.shape.is_static() ? t.shape.numel() * dtype_size(t.dtype) : -1;
    out += std::string(i ? ", " : "") + "{\"name\": " + json_string(v->name()) + ", \"shape\": " +
           json_string(t.shape.to_string()) + ", \"dtype\": " + json_string(std::string(dtype_name(t.dtype))) +
           ", \"bytes\": " + std::to_string(bytes) + "}";
  }
  out += "], \"saved_bytes\": " + std::to_string(p.saved_bytes) + ", \"recomputed_nodes\": 0}\n";
  std::fputs(out.c_str(), stdout);
}

void print_text(const Partition& p) {
  std::printf("%s\n%s\n", print_graph(*p.forward).c_str(), print_graph(*p.backward).c_str());
  std::printf("saved for backward (%d values):\n", p.num_saved);
  for (int i = 0; i < p.num_saved; ++i) {
    const TensorType& t = p.backward->input(i)->type();
    std::string bytes = t.shape.is_static() ? std::to_string(t.shape.numel() * dtype_size(t.dtype)) : "symbolic";
    std::printf("  %%%-20s %-20s %s bytes\n", p.backward->input(i)->name().c_str(), t.to_string().c_str(), bytes.c_str());
  }
  std::printf("saved bytes: %lld\nrecomputed nodes: 0\n", static_cast<long long>(p.saved_bytes));
}

}  // namespace

int cmd_grad(const Args& raw) {
  GradArgs args;
  if (!parse_args(raw, args)) return 2;
  std::string text;
  if (!read_file(args.file, text)) return 1;
  auto graphs = parse_graphs(text, args.file);
  if (!graphs) {
    std::fprintf(stderr, "%s\n", graphs.error().to_string().c_str());
    return 1;
  }
  auto joint = joint_graph(*graphs->front(), args.joint);
  if (!joint) {
    std::fprintf(stderr, "%s\n", joint.error().to_string().c_str());
    return 1;
  }
  if (args.emit_joint) {
    std::printf("%s\n", print_graph(*joint->graph).c_str());
    return 0;
  }
  Partition p = partition_default(*joint);
  if (args.json)
    print_json(p);
  else
    print_text(p);
  return 0;
}

}  // namespace kiln::cli
