#include "ir/printer.h"

#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace kiln {

namespace {

bool is_printable_name(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
    if (!ok) return false;
  }
  return true;
}

// The names one graph's values print with: inputs by their own name, results %0, %1, ...
// in order, skipping numbers an input already uses. An input whose name cannot be printed
// (empty, repeated, odd characters) gets a number too, so the text always parses back.
class Namer {
 public:
  explicit Namer(const Graph& g) {
    for (Value* in : g.inputs())
      if (is_printable_name(in->name())) taken_.insert(in->name());
    std::unordered_set<std::string> seen;
    for (Value* in : g.inputs()) {
      bool own = is_printable_name(in->name()) && seen.insert(in->name()).second;
      names_[in] = own ? in->name() : next_number();
    }
    for (Node* n : g.nodes())
      for (Value* r : n->results()) names_[r] = next_number();
  }

  std::string name(const Value* v) const {
    auto it = names_.find(v);
    return it == names_.end() ? "%<undefined>" : "%" + it->second;
  }

 private:
  std::string next_number() {
    while (taken_.count(std::to_string(counter_))) ++counter_;
    return std::to_string(counter_++);
  }

  std::unordered_set<std::string> taken_;
  std::unordered_map<const Value*, std::string> names_;
  int64_t counter_ = 0;
};

std::string subgraph_label(const Node& n, int i) {
  std::vector<const ArgSchema*> args = n.info().schema.subgraph_args();
  if (static_cast<size_t>(i) < args.size()) return args[static_cast<size_t>(i)]->name;
  return "subgraph" + std::to_string(i);
}

// "(%x: f32[B,16], %w: param f32[16,32]) -> (f32[B,32])"
std::string signature(const Graph& g, const Namer& names) {
  std::string s = "(";
  for (int i = 0; i < g.num_inputs(); ++i) {
    const Value* in = g.input(i);
    if (i) s += ", ";
    s += names.name(in) + ": ";
    if (in->role() != InputRole::Input) s += std::string(input_role_name(in->role())) + " ";
    s += in->type().to_string();
  }
  s += ") -> (";
  for (size_t i = 0; i < g.outputs().size(); ++i) s += (i ? ", " : "") + g.outputs()[i]->type().to_string();
  return s + ")";
}

// "%5, %6 = split(%4) {dim=1, split_size=16} : (f32[B,16], f32[B,16])", without subgraphs.
std::string node_line(const Node& n, const Namer& names) {
  std::string s;
  for (int i = 0; i < n.num_results(); ++i) s += (i ? ", " : "") + names.name(n.result(i));
  if (n.num_results() > 0) s += " = ";
  s += std::string(n.info().name()) + "(";
  for (int i = 0; i < n.num_operands(); ++i) {
    const Operand& o = n.operand(i);
    if (i) s += ", ";
    s += o.is_value() ? names.name(o.value) : o.literal.to_string();
  }
  s += ")";
  if (!n.attrs().empty()) s += " " + n.attrs().to_string();
  s += " : ";
  if (n.num_results() == 1) return s + n.result(0)->type().to_string();
  s += "(";
  for (int i = 0; i < n.num_results(); ++i) s += (i ? ", " : "") + n.result(i)->type().to_string();
  return s + ")";
}

void print_body(const Graph& g, const Namer& names, int indent, std::string& out);

void print_region(const Graph& g, std::string_view label, int indent, std::string& out) {
  Namer names(g);
  out += std::string(static_cast<size_t>(indent), ' ') + std::string(label) + " = graph" + signature(g, names) + " {\n";
  print_body(g, names, indent + 2, out);
  out += std::string(static_cast<size_t>(indent), ' ') + "}\n";
}

void print_body(const Graph& g, const Namer& names, int indent, std::string& out) {
  std::string pad(static_cast<size_t>(indent), ' ');
  for (Node* n : g.nodes()) {
    out += pad + node_line(*n, names);
    if (n->num_subgraphs() == 0) {
      out += "\n";
      continue;
    }
    out += " {\n";
    for (int i = 0; i < n->num_subgraphs(); ++i) print_region(*n->subgraph(i), subgraph_label(*n, i), indent + 2, out);
    out += pad + "}\n";
  }
  for (const Graph::Guard& gd : g.guards()) {
    out += pad + "guard " + gd.guard.to_string();
    if (gd.node && gd.node->num_results() > 0) out += " for " + names.name(gd.node->result(0));
    out += "\n";
  }
  out += pad + "return";
  for (size_t i = 0; i < g.outputs().size(); ++i) out += (i ? ", " : " ") + names.name(g.outputs()[i]);
  out += "\n";
}

}  // namespace

std::string print_graph(const Graph& g) {
  Namer names(g);
  std::string out = "graph @" + g.name() + signature(g, names) + " {\n";
  print_body(g, names, 2, out);
  return out + "}\n";
}

std::string print_node(const Node& n) {
  Namer names(*n.graph());
  std::string s = node_line(n, names);
  if (n.num_subgraphs() == 0) return s;
  s += " {";
  for (int i = 0; i < n.num_subgraphs(); ++i) {
    const Graph& sg = *n.subgraph(i);
    s += (i ? ", " : "") + subgraph_label(n, i) + " = graph" + signature(sg, Namer(sg)) + " {...}";
  }
  return s + "}";
}

}  // namespace kiln
