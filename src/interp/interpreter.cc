// The reference interpreter's main loop: binds symbolic dims from the inputs, then runs each
// node with its reference kernel, recomputing result types from the concrete operand types
// (so symbolic dims get values) and checking them against the node's declared types.
#include "interp/interpreter.h"

#include <optional>
#include <set>
#include <string>
#include <unordered_map>

#include "core/symbol_bindings.h"
#include "ir/printer.h"
#include "support/check.h"

namespace kiln {
namespace {

class Frame {
 public:
  explicit Frame(const Graph& g) : graph_(g) {}

  Status bind_inputs(std::span<const Tensor> inputs) {
    if (static_cast<int>(inputs.size()) != graph_.num_inputs())
      return make_error("graph @", graph_.name(), " takes ", graph_.num_inputs(), " inputs, got ", inputs.size());
    for (int i = 0; i < graph_.num_inputs(); ++i) {
      const Value* in = graph_.input(i);
      const Tensor& t = inputs[static_cast<size_t>(i)];
      const std::string what = "input %" + in->name();
      if (!t.defined() || t.is_traced()) return make_error(what, ": expected a concrete tensor");
      KILN_TRY(require_on_host(t, what, "the reference interpreter"));
      KILN_TRY(bindings_.bind(in->type(), t.type(), what));
      env_[in] = t;
    }
    return Status::ok();
  }

  Status run_nodes(const InterpreterOptions& options) {
    for (Node* node = graph_.first_node(); node; node = graph_.next_node(node)) {
      Status s = run_node(*node, options);
      if (!s) {
        Diagnostic d = s.error();
        d.add_context("while executing " + print_node(*node));
        d.with_loc(node->loc());
        return d;
      }
    }
    return Status::ok();
  }

  std::vector<Tensor> outputs() const {
    std::vector<Tensor> out;
    for (const Value* v : graph_.outputs()) out.push_back(env_.at(v));
    return out;
  }

 private:
  Status run_node(const Node& node, const InterpreterOptions& options) {
    std::vector<KernelOperand> operands;
    operands.reserve(node.operands().size());
    for (const Operand& o : node.operands()) {
      KernelOperand k;
      if (o.is_value()) {
        auto it = env_.find(o.value);
        KILN_CHECK(it != env_.end()) << "operand used before it is defined";
        k.tensor = it->second;
      } else {
        k.literal = o.literal;
      }
      operands.push_back(std::move(k));
    }
    std::optional<AttrMap> specialized;  // only where an attribute is symbolic: no copy per node
    if (node.attrs().is_symbolic()) {
      KILN_ASSIGN_OR_RETURN(specialized, specialized_attrs(node));
    }
    KILN_ASSIGN_OR_RETURN(std::vector<Tensor> results,
                          compute(node, specialized ? *specialized : node.attrs(), operands));
    KILN_CHECK(static_cast<int>(results.size()) == node.num_results())
        << node.info().name() << ": produced " << results.size() << " results, the node declares "
        << node.num_results();
    for (int i = 0; i < node.num_results(); ++i) {
      const Value* r = node.result(i);
      KILN_TRY(bindings_.bind(r->type(), results[static_cast<size_t>(i)].type(), "result " + std::to_string(i)));
      env_[r] = results[static_cast<size_t>(i)];
    }
    if (options.on_node) options.on_node(node, results);
    return Status::ok();
  }

  // The node's attributes with the symbols the inputs bound replaced by their values
  // (`view {size=[B, -1]}` runs as `{size=[2, -1]}`).
  Expected<AttrMap> specialized_attrs(const Node& node) const {
    AttrMap attrs = node.attrs().substitute(bindings_.values());
    for (const auto& [name, value] : attrs.items()) {
      if (!value.is_symbolic()) continue;
      std::set<std::string> unbound;
      value.collect_symbols(unbound);
      return make_error("attribute '", name, "' uses the symbol '", *unbound.begin(), "', which no input bound");
    }
    return attrs;
  }

  static Expected<std::vector<Tensor>> compute(const Node& node, const AttrMap& attrs,
                                               std::span<const KernelOperand> operands) {
    const OpInfo& info = node.info();
    if (info.has(kHigherOrder)) {
      std::vector<const Graph*> subgraphs;
      for (int i = 0; i < node.num_subgraphs(); ++i) subgraphs.push_back(node.subgraph(i));
      return run_higher_order(node.op(), attrs, operands, subgraphs);
    }
    return run_op(node.op(), attrs, operands);
  }

  const Graph& graph_;
  SymbolBindings bindings_;
  std::unordered_map<const Value*, Tensor> env_;
};

}  // namespace

Expected<std::vector<Tensor>> interpret(const Graph& g, std::span<const Tensor> inputs,
                                        const InterpreterOptions& options) {
  Frame frame(g);
  KILN_TRY(frame.bind_inputs(inputs));
  KILN_TRY(frame.run_nodes(options));
  return frame.outputs();
}

}  // namespace kiln
