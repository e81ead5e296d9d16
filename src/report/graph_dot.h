// A graph of the graph IR as Graphviz DOT text, for the compile report (docs/REPORT.md).
// Inputs are ellipses, nodes boxes filled by their role in a training step (forward,
// backward, recomputed in the backward), values saved for the backward outlined; edges run
// from a value's producer to its users, and a `return` box collects the outputs. Pure text:
// rendering is render_svg.h's.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "autograd/partition.h"
#include "ir/graph.h"

namespace kiln {

enum class NodeRole : uint8_t { Plain, Forward, Backward, Recomputed };

// The fill colour of each role ("#rrggbb"), shared with the report's legend.
const char* node_role_colour(NodeRole r);
const char* node_role_name(NodeRole r);  // "forward", ...
// The outline colour of saved values.
inline constexpr const char* kSavedColour = "#c2185b";

struct GraphDotRoles {
  std::unordered_map<const Node*, NodeRole> nodes;  // nodes not listed are Plain
  std::unordered_set<const Value*> saved;           // drawn with a thick outline
};

// Values are named as print_graph names them when input names are plain: inputs by name,
// results %0, %1, ... in order. Subgraphs are not drawn (the node's label counts them).
std::string graph_dot(const Graph& g, const GraphDotRoles& roles = {});

// A joint graph: nodes that depend on a tangent input are Backward, the others Forward.
GraphDotRoles joint_graph_roles(const Graph& joint);
// The partition's forward graph: every node Forward, the saved outputs outlined.
GraphDotRoles forward_graph_roles(const Partition& p);
// The partition's backward graph: nodes Backward, or Recomputed where the forward computes
// them too; the saved inputs outlined.
GraphDotRoles backward_graph_roles(const Partition& p);

}  // namespace kiln
