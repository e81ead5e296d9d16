#include "autograd/partition.h"

#include <set>
#include <unordered_map>

#include "ir/verifier.h"
#include "support/check.h"

namespace kiln {

namespace {

// Values that depend on a tangent input, and the nodes that compute them.
std::set<const Node*> tangent_dependent_nodes(const Graph& g) {
  std::set<const Value*> dependent;
  for (Value* in : g.inputs())
    if (in->role() == InputRole::Tangent) dependent.insert(in);
  std::set<const Node*> nodes;
  for (Node* n : g.nodes()) {
    bool depends = false;
    for (const Operand& o : n->operands()) depends |= o.value && dependent.count(o.value) > 0;
    if (!depends) continue;
    nodes.insert(n);
    for (Value* r : n->results()) dependent.insert(r);
  }
  return nodes;
}

// Copies `nodes` (in graph order) into `to`, mapping operands through `map`, which must
// already hold every value they read from outside the copied set.
void copy_nodes(const Graph& from, const std::set<const Node*>& nodes, Graph& to,
                std::unordered_map<const Value*, Value*>& map) {
  for (Node* n : from.nodes()) {
    if (!nodes.count(n)) continue;
    Graph::NewNode nn{n->op(), {}, n->attrs(), {}, {}, n->loc()};
    for (const Operand& o : n->operands()) nn.operands.push_back(o.value ? Operand(map.at(o.value)) : o);
    for (Value* r : n->results()) nn.result_types.push_back(r->type());
    for (int i = 0; i < n->num_subgraphs(); ++i) nn.subgraphs.push_back(n->subgraph(i)->clone());
    Node* copy = to.append(std::move(nn));
    for (int i = 0; i < n->num_results(); ++i) map[n->result(i)] = copy->result(i);
  }
}

int64_t static_bytes(const TensorType& t) {
  return t.shape.is_static() ? t.shape.numel() * dtype_size(t.dtype) : 0;
}

}  // namespace

Partition partition_default(const JointGraph& joint) {
  const Graph& g = *joint.graph;
  const std::set<const Node*> backward_nodes = tangent_dependent_nodes(g);
  std::set<const Node*> forward_nodes;
  for (Node* n : g.nodes())
    if (!backward_nodes.count(n)) forward_nodes.insert(n);

  // Saved: values from the forward side (primals or forward nodes) that the backward reads,
  // including gradients that need no tangent (such as zeros for an input no path reaches).
  std::vector<const Value*> saved;
  std::set<const Value*> seen;
  auto save = [&](const Value* v) {
    if (v->role() == InputRole::Tangent && v->is_input()) return;
    if (v->producer() && backward_nodes.count(v->producer())) return;
    if (seen.insert(v).second) saved.push_back(v);
  };
  for (Node* n : g.nodes())
    if (backward_nodes.count(n))
      for (const Operand& o : n->operands())
        if (o.value) save(o.value);
  const std::vector<Value*>& outs = g.outputs();
  for (size_t i = static_cast<size_t>(joint.num_forward_outputs); i < outs.size(); ++i) save(outs[i]);

  Partition p;
  p.num_forward_outputs = joint.num_forward_outputs;
  p.num_saved = static_cast<int>(saved.size());

  p.forward = std::make_unique<Graph>(g.name() + "_forward");
  std::unordered_map<const Value*, Value*> fmap;
  for (int i = 0; i < joint.num_primals; ++i) {
    Value* in = g.input(i);
    fmap[in] = p.forward->add_input(in->name(), in->type(), in->role());
  }
  copy_nodes(g, forward_nodes, *p.forward, fmap);
  std::vector<Value*> fouts;
  for (int i = 0; i < joint.num_forward_outputs; ++i) fouts.push_back(fmap.at(outs[static_cast<size_t>(i)]));
  for (const Value* v : saved) {
    fouts.push_back(fmap.at(v));
    p.saved_bytes += static_bytes(v->type());
  }
  p.forward->set_outputs(std::move(fouts));

  p.backward = std::make_unique<Graph>(g.name() + "_backward");
  std::unordered_map<const Value*, Value*> bmap;
  for (size_t k = 0; k < saved.size(); ++k) {
    const Value* v = saved[k];
    std::string name = v->is_input() ? v->name() : "saved" + std::to_string(k);
    bmap[v] = p.backward->add_input(name, v->type(), InputRole::Input);
  }
  for (Value* in : g.inputs())
    if (in->role() == InputRole::Tangent) bmap[in] = p.backward->add_input(in->name(), in->type(), InputRole::Tangent);
  copy_nodes(g, backward_nodes, *p.backward, bmap);
  std::vector<Value*> bouts;
  for (size_t i = static_cast<size_t>(joint.num_forward_outputs); i < outs.size(); ++i) bouts.push_back(bmap.at(outs[i]));
  p.backward->set_outputs(std::move(bouts));

  Status fv = verify_graph(*p.forward), bv = verify_graph(*p.backward);
  KILN_CHECK(fv.is_ok()) << "partition_default: forward graph does not verify: " << fv.error().to_string();
  KILN_CHECK(bv.is_ok()) << "partition_default: backward graph does not verify: " << bv.error().to_string();
  return p;
}

}  // namespace kiln
