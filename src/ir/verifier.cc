// The verifier walks a graph once in order. Structural checks (ownership, definition before
// use, exact use lists) come first for each node, then the schema checks, and only then the
// type rules: rules may assume operands and attributes that fit the schema.
#include "ir/verifier.h"

#include <algorithm>
#include <functional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "ir/node_types.h"
#include "ir/printer.h"
#include "ops/kernel_call_layout.h"
#include "ops/rng_state.h"
#include "ops/schema_check.h"

namespace kiln {

namespace {

Diagnostic node_error(const Node& n, Diagnostic d) {
  d.with_loc(n.loc());
  d.add_context("at " + print_node(n));
  return d;
}

template <typename... Args>
Diagnostic node_error(const Node& n, Args&&... args) {
  return node_error(n, make_error(std::forward<Args>(args)...));
}

// What the use lists must agree with, gathered once so checking them stays linear.
struct UseFacts {
  std::unordered_set<const Node*> nodes;
  std::unordered_map<const Value*, int> slots;  // operand slots holding each value

  explicit UseFacts(const Graph& g) {
    for (Node* n : g.nodes()) {
      nodes.insert(n);
      for (const Operand& o : n->operands())
        if (o.value) ++slots[o.value];
    }
  }
};

// Every use a value records is an operand slot that holds it, and every such slot is
// recorded exactly once.
Status check_uses(const UseFacts& facts, const Value& v) {
  auto it = facts.slots.find(&v);
  size_t slots = it == facts.slots.end() ? 0 : static_cast<size_t>(it->second);
  if (v.uses().size() != slots)
    return make_error("use list of a value has ", v.uses().size(), " entries but ", slots, " operands refer to it");
  for (const Use& u : v.uses()) {
    bool valid = facts.nodes.count(u.user) && u.operand_index >= 0 && u.operand_index < u.user->num_operands() &&
                 u.user->operand(u.operand_index).value == &v;
    if (!valid) return make_error("use list of a value names an operand that does not refer to it");
  }
  // With the count equal and every entry valid, a repeated entry would leave a slot out.
  std::vector<Use> sorted = v.uses();
  std::sort(sorted.begin(), sorted.end(), [](const Use& a, const Use& b) {
    return a.user != b.user ? std::less<const Node*>()(a.user, b.user) : a.operand_index < b.operand_index;
  });
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    return make_error("use list of a value records one operand twice");
  return Status::ok();
}

Status check_operands(const Graph& g, const Node& n, const std::unordered_set<const Value*>& defined) {
  const OpSchema& schema = n.info().schema;
  auto args = operand_args_of(schema, n.num_operands());
  if (!args) return node_error(n, args.error());
  for (int i = 0; i < n.num_operands(); ++i) {
    const Operand& o = n.operand(i);
    if (o.is_value() && o.value->graph() != &g)
      return node_error(n, schema.name, ": operand ", i, " is defined in another graph");
    if (o.is_value() && !defined.count(o.value))
      return node_error(n, schema.name, ": operand ", i, " is used before it is defined");
    Status kind = check_operand_kind(schema, *(*args)[static_cast<size_t>(i)], o.is_value(), o.literal);
    if (!kind) return node_error(n, kind.error());
  }
  return Status::ok();
}

// The symbols the dims of `g`'s inputs name: the only ones a run binds.
std::set<std::string> input_symbols(const Graph& g) {
  std::set<std::string> out;
  for (const Value* in : g.inputs())
    for (const Dim& d : in->type().shape.dims())
      if (d.is_symbolic()) d.expr().collect_symbols(out);
  return out;
}

Status check_attrs(const Graph& g, const Node& n, const std::set<std::string>& known_symbols) {
  const OpSchema& schema = n.info().schema;
  for (const auto& [name, value] : n.attrs().items()) {
    auto fitted = fit_attr(schema, name, value);
    if (!fitted) return node_error(n, fitted.error());
    std::set<std::string> used;
    value.collect_symbols(used);
    for (const std::string& symbol : used)
      if (!known_symbols.count(symbol))
        return node_error(n, "attribute '", name, "' of ", schema.name, " uses the symbol '", symbol,
                          "', which no input of @", g.name(), " has in its shape");
  }
  Status required = check_required_attrs(schema, n.attrs());
  if (!required) return node_error(n, required.error());
  return Status::ok();
}

Status check_subgraphs(const Node& n) {
  const OpSchema& schema = n.info().schema;
  size_t expected = schema.subgraph_args().size();
  if (static_cast<size_t>(n.num_subgraphs()) != expected)
    return node_error(n, schema.name, " expects ", expected, " subgraph", expected == 1 ? "" : "s", ", got ",
                      n.num_subgraphs());
  for (int i = 0; i < n.num_subgraphs(); ++i) {
    Status s = verify_graph(*n.subgraph(i));
    if (!s) return node_error(n, s.error());
  }
  return Status::ok();
}

// The result types the node records are the ones its op's rules give.
Status check_result_types(const Node& n) {
  const OpSchema& schema = n.info().schema;
  std::vector<TypeOperand> operands = type_operands(n);
  std::vector<SubgraphSignature> signatures = subgraph_signatures(n);
  std::vector<TensorType> recorded_types;
  for (int i = 0; i < n.num_results(); ++i) recorded_types.push_back(n.result(i)->type());
  TypeCall call(n.op(), n.attrs(), operands, signatures);
  call.recorded = recorded_types;  // keeps the symbols a cond's join introduced
  auto inferred = infer_types(call);
  if (!inferred) return node_error(n, inferred.error());
  if (static_cast<int>(inferred->size()) != n.num_results())
    return node_error(n, schema.name, ": node has ", n.num_results(), " result", n.num_results() == 1 ? "" : "s",
                      " but its rules give ", inferred->size());
  for (int i = 0; i < n.num_results(); ++i) {
    const TensorType& recorded = n.result(i)->type();
    const TensorType& want = (*inferred)[static_cast<size_t>(i)];
    if (recorded == want) continue;
    std::string which = n.num_results() == 1 ? "result type " : "result " + std::to_string(i) + " type ";
    return node_error(n, schema.name, ": ", which, recorded.to_string(), " does not match inferred ", want.to_string());
  }
  return Status::ok();
}

// The arguments kernel_call_functional views in one storage pass that storage's one value.
Status check_kernel_views(const Node& n) {
  if (n.op() != OpKind::KernelCallFunctional) return Status::ok();
  std::vector<bool> is_tensor;
  for (const Operand& o : n.operands()) is_tensor.push_back(o.is_value());
  Expected<KernelCallLayout> layout = decode_kernel_call(OpCallBase(n.op(), n.attrs()), is_tensor);
  if (!layout) return Status::ok();  // the type rules report it
  for (const std::optional<KernelArgView>& v : layout->view)
    if (v && n.operand(static_cast<int>(v->arg)).value != n.operand(static_cast<int>(v->group)).value)
      return node_error(n, "kernel_call_functional: argument ", v->arg, " is viewed in the storage of argument ",
                        v->group, " but passes another value");
  return Status::ok();
}

Status check_node(const Graph& g, const Node& n, const UseFacts& facts, const std::unordered_set<const Value*>& defined,
                  const std::set<std::string>& known_symbols) {
  const OpSchema& schema = n.info().schema;
  if (n.graph() != &g) return node_error(n, schema.name, ": node belongs to another graph");
  if (!schema.variadic_results && n.num_results() != schema.num_results)
    return node_error(n, schema.name, " has ", schema.num_results, " result", schema.num_results == 1 ? "" : "s",
                      ", got ", n.num_results());
  for (int i = 0; i < n.num_results(); ++i) {
    const Value* r = n.result(i);
    if (r->producer() != &n || r->index() != i || r->graph() != &g)
      return node_error(n, schema.name, ": result ", i, " does not record this node as its producer");
  }
  KILN_TRY(check_operands(g, n, defined));
  KILN_TRY(check_attrs(g, n, known_symbols));
  KILN_TRY(check_subgraphs(n));
  KILN_TRY(check_kernel_views(n));
  for (const Value* r : n.results()) {
    Status uses = check_uses(facts, *r);
    if (!uses) return node_error(n, uses.error());
  }
  return check_result_types(n);
}

}  // namespace

Status verify_graph(const Graph& g) {
  UseFacts facts(g);
  std::unordered_set<const Value*> defined;
  for (int i = 0; i < g.num_inputs(); ++i) {
    const Value* in = g.input(i);
    if (in->graph() != &g || in->producer() != nullptr || in->index() != i)
      return make_error("graph @", g.name(), ": input ", i, " is not recorded as this graph's input");
    Status uses = check_uses(facts, *in);
    if (!uses) return make_error("graph @", g.name(), ": input %", in->name(), ": ", uses.error().message());
    if (in->role() == InputRole::RngState && !is_rng_state_type(in->type()))
      return make_error("graph @", g.name(), ": input %", in->name(),
                        " of role rng_state must be i64[2] (seed, offset), got ", in->type().to_string());
    defined.insert(in);
  }
  const std::set<std::string> known_symbols = input_symbols(g);
  for (Node* n : g.nodes()) {
    KILN_TRY(check_node(g, *n, facts, defined, known_symbols));
    for (Value* r : n->results()) defined.insert(r);
  }
  for (size_t i = 0; i < g.outputs().size(); ++i)
    if (!defined.count(g.outputs()[i]))
      return make_error("graph @", g.name(), ": output ", i, " is not defined in the graph");
  return Status::ok();
}

}  // namespace kiln
