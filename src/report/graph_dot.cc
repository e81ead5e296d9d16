#include "report/graph_dot.h"

#include <vector>

#include "report/text_escape.h"

namespace kiln {

namespace {

// DOT ids and printed names of a graph's values: inputs i<k> and nodes n<k>.
struct DotNames {
  std::unordered_map<const Value*, std::string> id, name;
  std::unordered_map<const Node*, std::string> node_id;
};

DotNames dot_names(const Graph& g) {
  DotNames d;
  for (int i = 0; i < g.num_inputs(); ++i) {
    const Value* in = g.input(i);
    d.id[in] = "i" + std::to_string(i);
    d.name[in] = "%" + (in->name().empty() ? "input" + std::to_string(i) : in->name());
  }
  int node = 0, result = 0;
  for (const Node* n : g.nodes()) {
    const std::string id = "n" + std::to_string(node++);
    d.node_id[n] = id;
    for (const Value* r : n->results()) {
      d.id[r] = id;
      d.name[r] = "%" + std::to_string(result++);
    }
  }
  return d;
}

std::string saved_style(bool saved) { return saved ? std::string(", penwidth=3, color=\"") + kSavedColour + "\"" : ""; }

std::string node_label(const Node& n, const DotNames& d) {
  std::string results;
  for (const Value* r : n.results()) results += (results.empty() ? "" : ", ") + d.name.at(r);
  std::string label = results + " = " + std::string(n.info().name());
  if (n.num_subgraphs() > 0) label += " (" + std::to_string(n.num_subgraphs()) + " subgraphs)";
  for (const Value* r : n.results()) label += "\n" + r->type().to_string();
  return label;
}

}  // namespace

const char* node_role_colour(NodeRole r) {
  switch (r) {
    case NodeRole::Plain: return "#eeeeee";
    case NodeRole::Forward: return "#cfe2ff";
    case NodeRole::Backward: return "#ffd8b1";
    case NodeRole::Recomputed: return "#fff3a3";
  }
  return "#ffffff";
}

const char* node_role_name(NodeRole r) {
  switch (r) {
    case NodeRole::Plain: return "node";
    case NodeRole::Forward: return "forward";
    case NodeRole::Backward: return "backward";
    case NodeRole::Recomputed: return "recomputed in the backward";
  }
  return "?";
}

std::string graph_dot(const Graph& g, const GraphDotRoles& roles) {
  const DotNames d = dot_names(g);
  std::string out = "digraph \"" + dot_escape(g.name()) + "\" {\n";
  out += kDotGraphAttributes;
  for (int i = 0; i < g.num_inputs(); ++i) {
    const Value* in = g.input(i);
    const std::string label =
        d.name.at(in) + "\n" + std::string(input_role_name(in->role())) + " " + in->type().to_string();
    out += "  " + d.id.at(in) + " [shape=ellipse, label=\"" + dot_escape(label) + "\"" +
           saved_style(roles.saved.contains(in)) + "];\n";
  }
  for (const Node* n : g.nodes()) {
    auto role = roles.nodes.find(n);
    const NodeRole r = role == roles.nodes.end() ? NodeRole::Plain : role->second;
    bool saved = false;
    for (const Value* v : n->results()) saved = saved || roles.saved.contains(v);
    out += "  " + d.node_id.at(n) + " [shape=box, style=\"rounded,filled\", fillcolor=\"" + node_role_colour(r) +
           "\", label=\"" + dot_escape(node_label(*n, d)) + "\"" + saved_style(saved) + "];\n";
  }
  for (const Node* n : g.nodes()) {
    std::unordered_set<std::string> drawn;  // one edge per producer, however many operands it gives
    for (const Operand& o : n->operands())
      if (o.value && drawn.insert(d.id.at(o.value)).second)
        out += "  " + d.id.at(o.value) + " -> " + d.node_id.at(n) + ";\n";
  }
  out += "  ret [shape=box, style=dashed, label=\"return\"];\n";
  for (size_t k = 0; k < g.outputs().size(); ++k)
    out += "  " + d.id.at(g.outputs()[k]) + " -> ret [label=\"" + std::to_string(k) + "\"];\n";
  return out + "}\n";
}

GraphDotRoles joint_graph_roles(const Graph& joint) {
  GraphDotRoles roles;
  std::unordered_set<const Value*> backward;
  for (const Value* in : joint.inputs())
    if (in->role() == InputRole::Tangent) backward.insert(in);
  for (const Node* n : joint.nodes()) {
    bool depends = false;
    for (const Operand& o : n->operands()) depends = depends || (o.value && backward.contains(o.value));
    roles.nodes[n] = depends ? NodeRole::Backward : NodeRole::Forward;
    if (depends)
      for (const Value* r : n->results()) backward.insert(r);
  }
  return roles;
}

GraphDotRoles forward_graph_roles(const Partition& p) {
  GraphDotRoles roles;
  for (const Node* n : p.forward->nodes()) roles.nodes[n] = NodeRole::Forward;
  const std::vector<Value*>& outs = p.forward->outputs();
  for (size_t k = static_cast<size_t>(p.num_forward_outputs); k < outs.size(); ++k) roles.saved.insert(outs[k]);
  return roles;
}

GraphDotRoles backward_graph_roles(const Partition& p) {
  GraphDotRoles roles;
  for (const Node* n : p.backward->nodes()) roles.nodes[n] = NodeRole::Backward;
  for (const Node* n : p.recomputed) roles.nodes[n] = NodeRole::Recomputed;
  for (int k = 0; k < p.num_saved; ++k) roles.saved.insert(p.backward->input(k));
  return roles;
}

}  // namespace kiln
