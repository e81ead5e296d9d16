// The joint graph as the min-cut partitioner sees it (SPEC.md 5.2 classify_nodes): one item
// per graph input and per node, in graph order, with its users, its classification and its
// distance from the backward.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "autograd/joint_graph.h"

namespace kiln::partitioning {

inline constexpr int kFarFromBackward = 1'000'000'000;

struct Item {
  const Value* input = nullptr;  // an input item
  const Node* node = nullptr;    // or a node item
  std::vector<const Value*> values;
  std::vector<int> operands;  // items whose values it reads (deduplicated)
  std::vector<int> users;     // items reading its values (deduplicated, ascending)
  bool is_graph_output = false;
  bool is_primal = false;
  bool is_param = false;
  bool in_tangent_closure = false;  // a tangent or depends on one
  bool required_bw = false;         // tangent closure, or a gradient output's producer
  bool required_fw = false;         // needed for a forward output
  int fw_order = -1;                // order among the required_fw items
  int dist_from_bw = kFarFromBackward;
};

class JointView {
 public:
  explicit JointView(const JointGraph& joint);

  const JointGraph& joint() const { return joint_; }
  const std::vector<Item>& items() const { return items_; }
  const Item& item(int i) const { return items_[static_cast<size_t>(i)]; }
  int size() const { return static_cast<int>(items_.size()); }
  bool has_backward() const { return has_backward_; }
  // Item of a value (its producer's, or its input's).
  int item_of(const Value* v) const;

  std::vector<int> primals() const;
  // Bytes of an item's values, an estimate: symbolic dims count as 4096 elements like the
  // reference's hint. In double, as sizes past int64 (a size typo, many symbolic dims) must
  // still add and compare.
  double bytes(int item) const;
  static double bytes(const Value* v);

 private:
  const JointGraph& joint_;
  std::vector<Item> items_;
  std::unordered_map<const Value*, int> item_of_value_;
  bool has_backward_ = false;
};

// Whether consumer `b` fuses with producer `a`: cat fuses with anything; inputs fuse with nothing.
bool is_fusible(const JointView& view, int a, int b);

}  // namespace kiln::partitioning
