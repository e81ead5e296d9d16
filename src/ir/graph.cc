#include "ir/graph.h"

#include <algorithm>
#include <unordered_map>

#include "ops/op_call.h"
#include "support/check.h"

namespace kiln {

std::string_view input_role_name(InputRole r) {
  switch (r) {
    case InputRole::Input: return "input";
    case InputRole::Param: return "param";
    case InputRole::Buffer: return "buffer";
    case InputRole::Tangent: return "tangent";
    case InputRole::RngState: return "rng_state";
  }
  return "input";
}

std::vector<Value*> Node::results() const {
  std::vector<Value*> out;
  for (const auto& r : results_) out.push_back(r.get());
  return out;
}

bool Node::has_users() const {
  for (const auto& r : results_)
    if (r->has_uses()) return true;
  return false;
}

Graph::~Graph() {
  // Drop uses before values die so no dangling Use outlives its node.
  for (auto& n : nodes_)
    for (auto& op : n->operands_) op.value = nullptr;
}

Value* Graph::add_input(std::string name, TensorType type, InputRole role) {
  auto v = std::make_unique<Value>();
  v->type_ = std::move(type);
  v->index_ = static_cast<int>(inputs_.size());
  v->graph_ = this;
  v->name_ = std::move(name);
  v->role_ = role;
  inputs_.push_back(std::move(v));
  return inputs_.back().get();
}

std::vector<Value*> Graph::inputs() const {
  std::vector<Value*> out;
  for (const auto& v : inputs_) out.push_back(v.get());
  return out;
}

void Graph::set_outputs(std::vector<Value*> outputs) {
  for (Value* v : outputs) KILN_CHECK(v && v->graph() == this) << "graph output from another graph";
  outputs_ = std::move(outputs);
}

void Graph::set_output(int i, Value* v) {
  KILN_CHECK(v && v->graph() == this) << "graph output from another graph";
  outputs_[static_cast<size_t>(i)] = v;
}

void Graph::add_use(Value* v, Node* user, int operand_index) { v->uses_.push_back({user, operand_index}); }

void Graph::remove_use(Value* v, Node* user, int operand_index) {
  auto it = std::find(v->uses_.begin(), v->uses_.end(), Use{user, operand_index});
  KILN_CHECK(it != v->uses_.end()) << "use list out of sync";
  v->uses_.erase(it);
}

Node* Graph::append(NewNode n) { return insert_before(nullptr, std::move(n)); }

Node* Graph::insert_before(Node* pos, NewNode n) {
  auto node = std::make_unique<Node>();
  Node* raw = node.get();
  raw->op_ = n.op;
  raw->attrs_ = std::move(n.attrs);
  raw->graph_ = this;
  raw->loc_ = std::move(n.loc);
  raw->subgraphs_ = std::move(n.subgraphs);
  raw->operands_ = std::move(n.operands);
  for (size_t i = 0; i < raw->operands_.size(); ++i) {
    Value* v = raw->operands_[i].value;
    if (!v) continue;
    KILN_CHECK(v->graph() == this) << "operand from another graph";
    add_use(v, raw, static_cast<int>(i));
  }
  for (size_t i = 0; i < n.result_types.size(); ++i) {
    auto v = std::make_unique<Value>();
    v->type_ = std::move(n.result_types[i]);
    v->producer_ = raw;
    v->index_ = static_cast<int>(i);
    v->graph_ = this;
    raw->results_.push_back(std::move(v));
  }
  auto where = pos ? pos->self_ : nodes_.end();
  raw->self_ = nodes_.insert(where, std::move(node));
  return raw;
}

void Graph::erase(Node* node) {
  KILN_CHECK(node->graph_ == this) << "erase of a node from another graph";
  for (const auto& r : node->results_) {
    KILN_CHECK(!r->has_uses()) << "erase of " << node->info().name() << " whose result " << r->index() << " has users";
    KILN_CHECK(std::find(outputs_.begin(), outputs_.end(), r.get()) == outputs_.end())
        << "erase of " << node->info().name() << " whose result is a graph output";
  }
  for (size_t i = 0; i < node->operands_.size(); ++i)
    if (Value* v = node->operands_[i].value) remove_use(v, node, static_cast<int>(i));
  std::erase_if(guards_, [node](const Guard& g) { return g.node == node; });
  nodes_.erase(node->self_);
}

void Graph::set_operand(Node* node, int i, Operand operand) {
  Operand& slot = node->operands_[static_cast<size_t>(i)];
  if (slot.value) remove_use(slot.value, node, i);
  slot = operand;
  if (slot.value) {
    KILN_CHECK(slot.value->graph() == this) << "operand from another graph";
    add_use(slot.value, node, i);
  }
}

void Graph::replace_all_uses_with(Value* from, Value* to) {
  KILN_CHECK(from != to) << "replace_all_uses_with a value by itself";
  std::vector<Use> uses = from->uses_;
  for (const Use& u : uses) set_operand(u.user, u.operand_index, Operand(to));
  for (Value*& o : outputs_)
    if (o == from) o = to;
}

void Graph::move_before(Node* node, Node* pos) {
  auto where = pos ? pos->self_ : nodes_.end();
  nodes_.splice(where, nodes_, node->self_);
}

std::vector<Node*> Graph::nodes() const {
  std::vector<Node*> out;
  out.reserve(nodes_.size());
  for (const auto& n : nodes_) out.push_back(n.get());
  return out;
}

Node* Graph::next_node(Node* n) const {
  auto it = std::next(n->self_);
  return it == nodes_.end() ? nullptr : it->get();
}

std::unique_ptr<Graph> Graph::clone() const {
  auto g = std::make_unique<Graph>(name_);
  std::unordered_map<const Value*, Value*> map;
  std::unordered_map<const Node*, Node*> node_map;
  for (const auto& in : inputs_) map[in.get()] = g->add_input(in->name_, in->type_, in->role_);
  for (const auto& n : nodes_) {
    NewNode nn{n->op_, {}, n->attrs_, {}, {}, n->loc_};
    for (const Operand& o : n->operands_) nn.operands.push_back(o.value ? Operand(map.at(o.value)) : o);
    for (const auto& r : n->results_) nn.result_types.push_back(r->type_);
    for (const auto& sg : n->subgraphs_) nn.subgraphs.push_back(sg->clone());
    Node* copy = g->append(std::move(nn));
    node_map[n.get()] = copy;
    for (size_t i = 0; i < n->results_.size(); ++i) map[n->results_[i].get()] = copy->result(static_cast<int>(i));
  }
  std::vector<Value*> outs;
  for (const Value* o : outputs_) outs.push_back(map.at(o));
  g->set_outputs(std::move(outs));
  for (const Guard& gd : guards_) {
    g->add_guard(gd.guard, gd.node ? node_map.at(gd.node) : nullptr);
  }
  return g;
}

void Graph::add_guard(ShapeGuard guard, Node* node) {
  for (const Guard& g : guards_)
    if (g.node == node && g.guard == guard) return;
  guards_.push_back(Guard{std::move(guard), node});
}

SubgraphSignature graph_signature(const Graph& g) {
  SubgraphSignature sig;
  for (Value* v : g.inputs()) sig.inputs.push_back(v->type());
  for (Value* v : g.outputs()) sig.outputs.push_back(v->type());
  return sig;
}

}  // namespace kiln
