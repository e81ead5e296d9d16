// The graph IR. A Graph has typed inputs (with roles), a list of Nodes in execution order,
// and outputs. A Node applies one op (ops.def) to operands (values or inline literals) with
// attributes, produces typed result Values, and may own subgraphs (cond, while_loop, scan,
// map); a subgraph is a closed Graph: it sees only its own inputs.
// Use lists are exact: operands change only through Graph::set_operand /
// replace_all_uses_with, and a node dies only through Graph::erase, which requires that
// no result has users.
#pragma once

#include <list>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/scalar.h"
#include "core/tensor_type.h"
#include "ops/attr.h"
#include "ops/op_call.h"
#include "ops/op_info.h"
#include "support/diagnostic.h"

namespace kiln {

class Graph;
class Node;

// RngState: the runtime generator state of the graph's random ops, an i64[2] (seed, offset)
// passed as their rng_state operand (ops.def; passes/lift_rng_state.h).
enum class InputRole { Input, Param, Buffer, Tangent, RngState };
std::string_view input_role_name(InputRole r);  // "input", "param", "buffer", "tangent", "rng_state"

struct Use {
  Node* user;
  int operand_index;
  bool operator==(const Use& o) const { return user == o.user && operand_index == o.operand_index; }
};

class Value {
 public:
  const TensorType& type() const { return type_; }
  void set_type(TensorType t) { type_ = std::move(t); }
  // The node that produces this value; null for graph inputs.
  Node* producer() const { return producer_; }
  bool is_input() const { return producer_ == nullptr; }
  // Result index within the producer, or input index within the graph.
  int index() const { return index_; }
  Graph* graph() const { return graph_; }
  const std::vector<Use>& uses() const { return uses_; }
  bool has_uses() const { return !uses_.empty(); }
  // Input name as written or captured ("x", "fc1.weight"); empty for node results.
  const std::string& name() const { return name_; }
  InputRole role() const { return role_; }
  void set_role(InputRole r) { role_ = r; }

 private:
  friend class Graph;
  TensorType type_;
  Node* producer_ = nullptr;
  int index_ = 0;
  Graph* graph_ = nullptr;
  std::vector<Use> uses_;
  std::string name_;
  InputRole role_ = InputRole::Input;
};

// An operand: a value, or an inline literal (`0.5`, `none`).
struct Operand {
  Value* value = nullptr;
  Scalar literal;

  Operand() = default;
  Operand(Value* v) : value(v) {}    // NOLINT
  Operand(Scalar s) : literal(s) {}  // NOLINT
  bool is_value() const { return value != nullptr; }
};

class Node {
 public:
  OpKind op() const { return op_; }
  const OpInfo& info() const { return op_info(op_); }
  std::span<const Operand> operands() const { return operands_; }
  const Operand& operand(int i) const { return operands_[static_cast<size_t>(i)]; }
  int num_operands() const { return static_cast<int>(operands_.size()); }
  const AttrMap& attrs() const { return attrs_; }
  AttrMap& mutable_attrs() { return attrs_; }
  int num_results() const { return static_cast<int>(results_.size()); }
  Value* result(int i = 0) const { return results_[static_cast<size_t>(i)].get(); }
  std::vector<Value*> results() const;
  int num_subgraphs() const { return static_cast<int>(subgraphs_.size()); }
  Graph* subgraph(int i) const { return subgraphs_[static_cast<size_t>(i)].get(); }
  Graph* graph() const { return graph_; }
  const SourceLoc& loc() const { return loc_; }
  void set_loc(SourceLoc loc) { loc_ = std::move(loc); }
  bool has_users() const;

 private:
  friend class Graph;
  OpKind op_;
  std::vector<Operand> operands_;
  AttrMap attrs_;
  std::vector<std::unique_ptr<Value>> results_;
  std::vector<std::unique_ptr<Graph>> subgraphs_;
  Graph* graph_ = nullptr;
  SourceLoc loc_;
  std::list<std::unique_ptr<Node>>::iterator self_;
};

class Graph {
 public:
  explicit Graph(std::string name = "main") : name_(std::move(name)) {}
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  ~Graph();

  const std::string& name() const { return name_; }
  void set_name(std::string n) { name_ = std::move(n); }

  // ---- inputs and outputs ----
  Value* add_input(std::string name, TensorType type, InputRole role = InputRole::Input);
  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  Value* input(int i) const { return inputs_[static_cast<size_t>(i)].get(); }
  std::vector<Value*> inputs() const;
  const std::vector<Value*>& outputs() const { return outputs_; }
  void set_outputs(std::vector<Value*> outputs);
  void set_output(int i, Value* v);

  // ---- nodes ----
  struct NewNode {
    OpKind op;
    std::vector<Operand> operands;
    AttrMap attrs;
    std::vector<TensorType> result_types;
    std::vector<std::unique_ptr<Graph>> subgraphs = {};
    SourceLoc loc = {};
  };
  Node* append(NewNode n);                    // at the end
  Node* insert_before(Node* pos, NewNode n);  // pos == nullptr appends
  // Erases a node none of whose results has users (internal error otherwise).
  void erase(Node* node);
  void set_operand(Node* node, int i, Operand operand);
  // Every use of `from` (operands and graph outputs) becomes `to`.
  void replace_all_uses_with(Value* from, Value* to);
  // Moves `node` to just before `pos` (nullptr: to the end).
  void move_before(Node* node, Node* pos);

  size_t num_nodes() const { return nodes_.size(); }
  // Nodes in order. Safe to erase the current node while iterating over a copy from nodes().
  std::vector<Node*> nodes() const;
  Node* first_node() const { return nodes_.empty() ? nullptr : nodes_.front().get(); }
  Node* next_node(Node* n) const;

  // A deep copy (subgraphs included) with the same printed form.
  std::unique_ptr<Graph> clone() const;

  // ---- shape guards ----
  // Assumptions on symbolic dims that the shape rules of this graph's nodes made ("B*T ==
  // 4096" for a reshape), each with the node that needed it (null when the text named none).
  // Erasing the node drops its guards. Printed as `guard ... for %n` lines before `return`.
  struct Guard {
    ShapeGuard guard;
    Node* node = nullptr;
  };
  const std::vector<Guard>& guards() const { return guards_; }
  // Appends the guard unless the same relation is already recorded for the same node.
  void add_guard(ShapeGuard guard, Node* node);
  void clear_guards() { guards_.clear(); }

 private:
  void add_use(Value* v, Node* user, int operand_index);
  void remove_use(Value* v, Node* user, int operand_index);

  std::string name_;
  std::vector<std::unique_ptr<Value>> inputs_;
  std::list<std::unique_ptr<Node>> nodes_;
  std::vector<Value*> outputs_;
  std::vector<Guard> guards_;
  // Output slots are uses too; tracked so replace_all_uses_with and users of outputs agree.
};

// Signature types of a graph, for the rules of higher-order ops.
SubgraphSignature graph_signature(const Graph& g);

}  // namespace kiln
