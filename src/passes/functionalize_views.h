// View replay for functionalization: a ViewStep is one view op (with its attributes and which
// result) taken from a parent tensor. replay_view makes that view of a new parent value;
// scatter_into_parent is the view inverse: the parent with the view's elements replaced
// (reshape back, inverse permutation, slice_scatter, select_scatter, as_strided_scatter).
#pragma once

#include <optional>
#include <vector>

#include "ir/graph.h"
#include "support/diagnostic.h"

namespace kiln {

struct ViewStep {
  OpKind op;
  AttrMap attrs;
  int result_index = 0;  // split and chunk have one result per piece
};

// Where a tensor's elements sit in its storage, as the interpreter lays them out.
struct Layout {
  std::vector<int64_t> sizes, strides;
  int64_t offset = 0;
};
Layout packed_layout(const std::vector<int64_t>& sizes);

// The layout of the view `step` makes of a tensor laid out as `parent`, whose result has
// `result_sizes`; nullopt when the op copies instead (reshape or flatten of a layout that no
// strides express at the new sizes), so its result shares nothing with the parent.
std::optional<Layout> view_layout(const ViewStep& step, const Layout& parent, const std::vector<int64_t>& result_sizes);

// Appends op nodes before `before` (nullptr: at the end), typed by the ops' own rules, with
// source location `loc`. Type errors are returned.
class NodeMaker {
 public:
  NodeMaker(Graph& g, Node* before, SourceLoc loc) : g_(g), before_(before), loc_(std::move(loc)) {}
  Expected<std::vector<Value*>> make(OpKind op, std::vector<Operand> operands, AttrMap attrs = {});
  Expected<Value*> make1(OpKind op, std::vector<Operand> operands, AttrMap attrs = {});
  // Later nodes go before `before` (nullptr: at the end) with location `loc`.
  void set_position(Node* before, SourceLoc loc) {
    before_ = before;
    loc_ = std::move(loc);
  }
  // Every node made so far, in order.
  const std::vector<Node*>& made() const { return made_; }

 private:
  Graph& g_;
  Node* before_;
  SourceLoc loc_;
  std::vector<Node*> made_;
};

// The view `step` makes of `parent`. as_strided counts offsets from the first element of a
// packed storage, so it reads a packed copy of a parent (a base tensor) that may not be one.
Expected<Value*> replay_view(NodeMaker& m, const ViewStep& step, Value* parent);

// `parent` with the elements that `step`'s view of it shows replaced by `updated` (typed like
// that view). Writing through an expand that repeats elements, or an as_strided whose
// elements may overlap, is an error like torch's.
Expected<Value*> scatter_into_parent(NodeMaker& m, const ViewStep& step, Value* parent, Value* updated);

}  // namespace kiln
