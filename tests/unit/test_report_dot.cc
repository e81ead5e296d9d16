// The compile report's DOT text (report/graph_dot.h, report/loop_dot.h): nodes filled by role
// and kernels by kind, saved values outlined, odd names escaped. Pure text: no Graphviz needed.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "autograd/joint_graph.h"
#include "autograd/partition.h"
#include "ir/parser.h"
#include "lower/lower.h"
#include "report/graph_dot.h"
#include "report/loop_dot.h"
#include "report/text_escape.h"

namespace kiln {
namespace {

// The line of `dot` that declares DOT node `id` ("n0 [shape=box ...").
std::string line_of(const std::string& dot, const std::string& id) {
  std::istringstream in(dot);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("  " + id + " [", 0) == 0) return line;
  return "";
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(ReportDot, EscapesQuotesBackslashesAndNewlines) {
  EXPECT_EQ(dot_escape("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
  EXPECT_EQ(dot_escape(std::string("x\x01y")), "xy");
  EXPECT_EQ(html_escape("<a href=\"x\">'&'</a>"), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
}

TEST(ReportDot, OddInputAndGraphNamesAreEscaped) {
  Graph g("we\"ird");
  Value* x = g.add_input("x\"y\\z", TensorType{DType::F32, Shape{4}});
  Node* n = g.append({OpKind::Neg, {x}, {}, {TensorType{DType::F32, Shape{4}}}});
  g.set_outputs({n->result(0)});
  const std::string dot = graph_dot(g);
  EXPECT_TRUE(has(dot, "digraph \"we\\\"ird\" {")) << dot;
  EXPECT_TRUE(has(line_of(dot, "i0"), "label=\"%x\\\"y\\\\z\\ninput f32[4]\"")) << dot;
  EXPECT_TRUE(has(line_of(dot, "n0"), "label=\"%0 = neg\\nf32[4]\"")) << dot;
  EXPECT_TRUE(has(dot, "  i0 -> n0;\n")) << dot;
  EXPECT_TRUE(has(dot, "  n0 -> ret [label=\"0\"];\n")) << dot;
}

TEST(ReportDot, JointGraphNodesAreForwardOrBackwardByTangent) {
  auto g = parse_graph(
      "graph @j(%x: f32[4], %t: tangent f32[4]) -> (f32[4], f32[4]) {\n"
      "  %0 = sin(%x) : f32[4]\n"
      "  %1 = cos(%x) : f32[4]\n"
      "  %2 = mul(%t, %1) : f32[4]\n"
      "  %3 = neg(%2) : f32[4]\n"
      "  return %0, %3\n}");
  ASSERT_TRUE(g) << g.error().to_string();
  const std::string dot = graph_dot(**g, joint_graph_roles(**g));
  const std::string fw = std::string("fillcolor=\"") + node_role_colour(NodeRole::Forward) + "\"";
  const std::string bw = std::string("fillcolor=\"") + node_role_colour(NodeRole::Backward) + "\"";
  EXPECT_TRUE(has(line_of(dot, "n0"), fw)) << dot;
  EXPECT_TRUE(has(line_of(dot, "n1"), fw)) << dot;
  EXPECT_TRUE(has(line_of(dot, "n2"), bw)) << dot;  // reads the tangent
  EXPECT_TRUE(has(line_of(dot, "n3"), bw)) << dot;  // reads a backward node
  EXPECT_TRUE(has(line_of(dot, "i1"), "tangent f32[4]")) << dot;
  // Without roles every node is plain.
  EXPECT_TRUE(has(line_of(graph_dot(**g), "n2"), node_role_colour(NodeRole::Plain)));
}

TEST(ReportDot, SavedValuesAreOutlinedAndRecomputedNodesFilled) {
  auto g = parse_graph(
      "graph @f(%x: f32[4]) -> (f32[4]) {\n  %0 = sin(%x) : f32[4]\n  %1 = exp(%0) : f32[4]\n  return %1\n}");
  ASSERT_TRUE(g) << g.error().to_string();
  std::vector<Node*> nodes = (*g)->nodes();
  GraphDotRoles roles;
  roles.nodes[nodes[0]] = NodeRole::Recomputed;
  roles.saved.insert(nodes[1]->result(0));
  roles.saved.insert((*g)->input(0));
  const std::string dot = graph_dot(**g, roles);
  EXPECT_TRUE(has(line_of(dot, "n0"), node_role_colour(NodeRole::Recomputed))) << dot;
  EXPECT_FALSE(has(line_of(dot, "n0"), "penwidth")) << dot;
  EXPECT_TRUE(has(line_of(dot, "n1"), std::string("penwidth=3, color=\"") + kSavedColour)) << dot;
  EXPECT_TRUE(has(line_of(dot, "i0"), "penwidth=3")) << dot;
}

TEST(ReportDot, PartitionRolesMarkSavedOutputsAndInputs) {
  auto g = parse_graph(
      "graph @layer(%x: f32[8,4], %w: param f32[4,16]) -> (f32[]) {\n"
      "  %0 = matmul(%x, %w) : f32[8,16]\n  %1 = sin(%0) : f32[8,16]\n  %2 = sum(%1) : f32[]\n  return %2\n}");
  ASSERT_TRUE(g) << g.error().to_string();
  auto joint = joint_graph(**g, JointOptions{.wrt = {"w"}});
  ASSERT_TRUE(joint) << joint.error().to_string();
  auto p = partition(*joint, PartitionOptions{.kind = PartitionKind::Default});
  ASSERT_TRUE(p) << p.error().to_string();
  ASSERT_GT(p->num_saved, 0);
  const GraphDotRoles fw = forward_graph_roles(*p), bw = backward_graph_roles(*p);
  EXPECT_EQ(fw.saved.size(), static_cast<size_t>(p->num_saved));
  for (int k = 0; k < p->num_saved; ++k) {
    EXPECT_TRUE(fw.saved.contains(p->forward->outputs()[static_cast<size_t>(p->num_forward_outputs + k)]));
    EXPECT_TRUE(bw.saved.contains(p->backward->input(k)));
  }
  for (const Node* n : p->backward->nodes())
    EXPECT_EQ(bw.nodes.at(n), NodeRole::Backward);  // the default partition recomputes nothing
  EXPECT_TRUE(p->recomputed.empty());
  EXPECT_EQ(fw.nodes.size(), p->forward->num_nodes());
}

// The min-cut partitioner saves the matmul and recomputes the cheap pointwise chain after it.
TEST(ReportDot, RecomputedBackwardNodesAreTheirOwnRole) {
  auto g = parse_graph(
      "graph @chain(%x: f32[64,64], %w: param f32[64,64]) -> (f32[]) {\n"
      "  %0 = matmul(%x, %w) : f32[64,64]\n  %1 = sin(%0) : f32[64,64]\n  %2 = exp(%1) : f32[64,64]\n"
      "  %3 = mul(%2, %1) : f32[64,64]\n  %4 = sum(%3) : f32[]\n  return %4\n}");
  ASSERT_TRUE(g) << g.error().to_string();
  auto joint = joint_graph(**g, JointOptions{.wrt = {"w"}});
  ASSERT_TRUE(joint) << joint.error().to_string();
  auto p = partition(*joint);
  ASSERT_TRUE(p) << p.error().to_string();
  ASSERT_GT(p->recomputed_nodes, 0);
  ASSERT_EQ(p->recomputed.size(), static_cast<size_t>(p->recomputed_nodes));
  const GraphDotRoles bw = backward_graph_roles(*p);
  int recomputed = 0;
  for (const Node* n : p->backward->nodes()) recomputed += bw.nodes.at(n) == NodeRole::Recomputed;
  EXPECT_EQ(recomputed, p->recomputed_nodes);
  for (const Node* n : p->recomputed) EXPECT_EQ(n->graph(), p->backward.get());
  const std::string dot = graph_dot(*p->backward, bw);
  EXPECT_TRUE(has(dot, node_role_colour(NodeRole::Recomputed))) << dot;
}

TEST(ReportDot, LoopProgramKernelsAreFilledByKind) {
  auto g = parse_graph(
      "graph @k(%x: f32[32,16], %w: f32[16,8]) -> (f32[32,8], f32[32]) {\n"
      "  %0 = matmul(%x, %w) : f32[32,8]\n  %1 = relu(%0) : f32[32,8]\n"
      "  %2 = sum(%1) {dim=[1]} : f32[32]\n  return %1, %2\n}");
  ASSERT_TRUE(g) << g.error().to_string();
  auto p = lower_graph(**g);
  ASSERT_TRUE(p) << p.error().to_string();
  const std::string dot = loop_program_dot(*p);
  ASSERT_EQ(p->kernels[0].kind, KernelKind::Extern);
  EXPECT_TRUE(has(line_of(dot, "k0"), kernel_kind_colour(KernelKind::Extern))) << dot;
  EXPECT_TRUE(has(line_of(dot, "k0"), "extern matmul")) << dot;
  for (size_t k = 1; k < p->kernels.size(); ++k)
    EXPECT_TRUE(has(line_of(dot, "k" + std::to_string(k)), kernel_kind_colour(p->kernels[k].kind))) << dot;
  // Buffers: %x is read by the matmul, which writes its result buffer.
  EXPECT_TRUE(has(line_of(dot, "b0"), "%x\\ninput f32[32,16]")) << dot;
  EXPECT_TRUE(has(dot, "  b0 -> k0;\n")) << dot;
  for (int b : kernel_buffers_written(p->kernels[0]))
    EXPECT_TRUE(has(dot, "  k0 -> b" + std::to_string(b) + ";\n")) << dot;
}

}  // namespace
}  // namespace kiln
