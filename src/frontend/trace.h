// Tracing state of a capture: the graph being built and the concrete tensors lifted into it
// as graph inputs. A traced Tensor (core/tensor.h) holds a TraceHandle naming its context
// and the IR value it stands for. Contexts nest: the functions given to cond, while_loop,
// scan and map are traced into closed subgraphs by a context inside the capture's.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "core/tensor.h"
#include "ir/graph.h"
#include "support/diagnostic.h"

namespace kiln {

namespace nn {
class Module;
}

class TraceContext;

struct TraceHandle {
  TraceContext* ctx;
  Value* value;
  // The context's serial number: a tensor that outlived its context (one traced inside a
  // subgraph function, kept after it returned) is told apart from a newer context that
  // happens to live at the same address.
  uint64_t serial = 0;
};

// One capture in progress, or one subgraph being traced inside it.
//
// In a capture, concrete tensors that meet traced ones become graph inputs ("lifted"), once
// per distinct tensor view: a registered parameter or buffer of `module` keeps its role and
// dotted path (`fc1.weight`); any other tensor becomes a `buffer` input named
// `_tensor_constant0`, `_tensor_constant1`, ...
//
// In a nested context (a subgraph), a tensor from outside (traced by an enclosing context,
// or concrete) becomes an extra subgraph input after the ones the caller added, once per
// outer value; closures() lists the values of the enclosing graph these inputs stand for,
// which the caller passes to the node as extra operands. Concrete tensors are lifted by the
// capture itself first, so they keep their roles and names there.
class TraceContext {
 public:
  TraceContext(Graph& graph, const nn::Module* module);
  TraceContext(Graph& graph, TraceContext& parent);
  TraceContext(const TraceContext&) = delete;
  TraceContext& operator=(const TraceContext&) = delete;

  Graph& graph() { return graph_; }
  // The enclosing context of a nested one; null for a capture.
  TraceContext* parent() const { return parent_; }
  // A traced tensor standing for `v`.
  Tensor wrap(Value* v);
  // Whether `h` was made by this context or one enclosing it, so that its tensor may be used
  // here.
  bool sees(const TraceHandle& h) const;
  // The value `t` stands for in this graph: its own value when traced here, else the lifted
  // input for a concrete tensor or a tensor of an enclosing context. A tensor traced by
  // another capture, or inside a subgraph function that has returned, is an error.
  Expected<Value*> value_of(const Tensor& t);
  // Concrete values of the lifted inputs, in graph-input order (a capture's only).
  const std::vector<Tensor>& lifted() const { return lifted_; }
  // For a nested context: the enclosing graph's values that the lifted inputs stand for, in
  // graph-input order.
  const std::vector<Value*>& closures() const { return closures_; }

 private:
  // A tensor view's identity: its storage and geometry.
  using Key = std::tuple<const Storage*, int64_t, std::vector<int64_t>, std::vector<int64_t>, DType>;
  static Key key_of(const Tensor& t);
  bool owns(const TraceHandle& h) const { return h.ctx == this && h.serial == serial_; }
  Value* lift(const Tensor& t);
  Value* lift_closure(Value* outer);

  Graph& graph_;
  TraceContext* parent_ = nullptr;
  uint64_t serial_;
  std::map<Key, std::pair<std::string, InputRole>> module_state_;
  std::map<Key, Value*> lifted_values_;
  std::vector<Tensor> lifted_;
  std::map<Value*, Value*> closure_inputs_;  // outer value -> its input here
  std::vector<Value*> closures_;
  int num_constants_ = 0;
};

// The capture in progress on this thread, or null. Free functions such as `zeros({2})`, or
// ops whose operands are all parameters, have no traced operand to find their capture by;
// like torch's dispatch modes, the capture is a dynamic extent, not configuration. It is set
// only by TraceScope, which capture() holds for the duration of the traced call (and the
// subgraph tracer for the duration of a subgraph function).
TraceContext* active_trace();

class TraceScope {
 public:
  explicit TraceScope(TraceContext* ctx);
  ~TraceScope();
  TraceScope(const TraceScope&) = delete;
  TraceScope& operator=(const TraceScope&) = delete;

 private:
  TraceContext* previous_;
};

}  // namespace kiln
