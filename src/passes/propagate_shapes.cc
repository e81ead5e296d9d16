// Forward shape propagation (TorchScript's PropagateInputShapes, SPEC section 3), with
// symbolic dims: joins of cond branches and loop-variant carried dims become symbols.
#include "passes/propagate_shapes.h"

#include <functional>
#include <set>

#include "ir/node_types.h"
#include "ir/printer.h"
#include "ops/op_call.h"
#include "support/check.h"

namespace kiln {

namespace {

void collect_symbols(const TensorType& t, std::set<std::string>& out) {
  for (const Dim& d : t.shape.dims()) d.expr().collect_symbols(out);
}

void collect_symbols(const Graph& g, std::set<std::string>& out) {
  for (Value* in : g.inputs()) collect_symbols(in->type(), out);
  for (Node* n : g.nodes()) {
    for (Value* r : n->results()) collect_symbols(r->type(), out);
    for (int i = 0; i < n->num_subgraphs(); ++i) collect_symbols(*n->subgraph(i), out);
  }
  for (const Graph::Guard& gd : g.guards()) {
    gd.guard.lhs.collect_symbols(out);
    gd.guard.rhs.collect_symbols(out);
  }
}

std::vector<TensorType> types_of(const std::vector<Value*>& values) {
  std::vector<TensorType> out;
  for (const Value* v : values) out.push_back(v->type());
  return out;
}

Diagnostic at_node(const Node& n, Diagnostic d) {
  d.add_context("at " + print_node(n));
  return d;
}

class Propagator {
 public:
  explicit Propagator(const Graph& g) {
    collect_symbols(g, used_);
    for (Value* in : g.inputs()) collect_symbols(in->type(), input_symbols_);
  }

  Status run_graph(Graph& g) {
    std::vector<Graph::Guard> before = g.guards();
    g.clear_guards();
    for (Node* n : g.nodes()) KILN_TRY(run_node(g, *n));
    guards_ += static_cast<int64_t>(g.guards().size());
    if (g.guards().size() != before.size()) guards_changed_ = true;
    for (size_t i = 0; i < before.size() && !guards_changed_; ++i)
      guards_changed_ = !(before[i].guard == g.guards()[i].guard) || before[i].node != g.guards()[i].node;
    return Status::ok();
  }

  PassResult result() const {
    PassResult r;
    r.counters["types_changed"] = types_changed_;
    r.counters["guards"] = guards_;
    r.counters["fresh_symbols"] = fresh_symbols_;
    r.changed = types_changed_ > 0 || guards_changed_;
    return r;
  }

 private:
  Dim fresh() {
    std::string name;
    do name = "s" + std::to_string(next_++);
    while (used_.count(name));
    used_.insert(name);
    ++fresh_symbols_;
    return Dim::symbol(name);
  }

  void set_type(Value* v, const TensorType& t) {
    if (v->type() == t) return;
    v->set_type(t);
    ++types_changed_;
  }

  void set_inputs(Graph& sg, const std::vector<TensorType>& types) {
    for (int i = 0; i < sg.num_inputs() && i < static_cast<int>(types.size()); ++i)
      set_type(sg.input(i), types[static_cast<size_t>(i)]);
  }

  std::vector<TensorType> operand_types(const Node& n, int begin, int end) const {
    std::vector<TensorType> out;
    for (int i = begin; i < end; ++i)
      if (n.operand(i).is_value()) out.push_back(n.operand(i).value->type());
    return out;
  }

  // Iterates a loop body to a fixed point over its first carried.size() inputs; the
  // remaining inputs (scan's slices) are `fixed`. A carried dim whose value comes back
  // different becomes a loop symbol: the one the body's input already had, else a fresh one.
  Status fix_loop(const Node& n, Graph& body, const std::vector<TensorType>& carried,
                  const std::vector<TensorType>& fixed) {
    const std::vector<TensorType> recorded = types_of(body.inputs());
    std::vector<TensorType> in = carried;
    int dims = 1;
    for (const TensorType& t : carried) dims += t.shape.rank();
    for (int iter = 0;; ++iter) {
      std::vector<TensorType> all = in;
      all.insert(all.end(), fixed.begin(), fixed.end());
      set_inputs(body, all);
      KILN_TRY(run_graph(body));
      if (body.num_inputs() != static_cast<int>(all.size()) || body.outputs().size() < carried.size())
        return Status::ok();  // the op's rule reports the arity mismatch
      bool changed = false;
      for (size_t i = 0; i < carried.size(); ++i) {
        const TensorType& out = body.outputs()[i]->type();
        if (out.dtype != in[i].dtype || out.shape.rank() != in[i].shape.rank())
          return at_node(
              n, make_error(n.info().name(), ": carried value ", i, " enters as ", in[i].to_string(),
                            " but the body returns ", out.to_string(), "; only dims may change across iterations"));
        for (int d = 0; d < out.shape.rank(); ++d) {
          const Dim& have = in[i].shape[d];
          if (out.shape[d] == have || (have.is_symbol() && !(have == carried[i].shape[d]))) continue;
          const Dim& rec = recorded[i].shape.rank() == out.shape.rank() ? recorded[i].shape[d] : have;
          bool reuse = reusable(rec) && !(rec == carried[i].shape[d]);
          in[i].shape[d] = reuse ? rec : fresh();
          changed = true;
        }
      }
      if (!changed) return Status::ok();
      KILN_CHECK(iter < dims) << "propagate_shapes: loop fixed point did not converge";
    }
  }

  Status run_subgraphs(const Node& n) {
    switch (n.op()) {
      case OpKind::Cond: {
        std::vector<TensorType> args = operand_types(n, 1, n.num_operands());
        for (int i = 0; i < n.num_subgraphs(); ++i) {
          set_inputs(*n.subgraph(i), args);
          KILN_TRY(run_graph(*n.subgraph(i)));
        }
        return Status::ok();
      }
      case OpKind::WhileLoop: {
        if (n.num_subgraphs() != 2) return Status::ok();
        KILN_TRY(fix_loop(n, *n.subgraph(1), operand_types(n, 0, n.num_operands()), {}));
        set_inputs(*n.subgraph(0), types_of(n.subgraph(1)->inputs()));
        return run_graph(*n.subgraph(0));
      }
      case OpKind::Scan: {
        const int num_init = static_cast<int>(OpCallBase(n.op(), n.attrs()).attr_int("num_init"));
        std::vector<TensorType> xs = operand_types(n, num_init, n.num_operands());
        if (n.num_subgraphs() != 1 || xs.empty()) return Status::ok();
        std::optional<int> dim = wrap_dim(OpCallBase(n.op(), n.attrs()).attr_int("dim"), xs[0].shape.rank());
        if (!dim) return Status::ok();
        for (TensorType& x : xs)
          if (x.shape.rank() > *dim) x.shape.dims().erase(x.shape.dims().begin() + *dim);
        return fix_loop(n, *n.subgraph(0), operand_types(n, 0, num_init), xs);
      }
      case OpKind::Map: {
        const int num_mapped = static_cast<int>(OpCallBase(n.op(), n.attrs()).attr_int("num_mapped"));
        std::vector<TensorType> args = operand_types(n, 0, n.num_operands());
        for (int i = 0; i < num_mapped && i < static_cast<int>(args.size()); ++i) {
          std::vector<Dim>& dims = args[static_cast<size_t>(i)].shape.dims();
          if (!dims.empty()) dims.erase(dims.begin());
        }
        if (n.num_subgraphs() != 1) return Status::ok();
        set_inputs(*n.subgraph(0), args);
        return run_graph(*n.subgraph(0));
      }
      default:
        for (int i = 0; i < n.num_subgraphs(); ++i) KILN_TRY(run_graph(*n.subgraph(i)));
        return Status::ok();
    }
  }

  Status run_node(Graph& g, Node& n) {
    KILN_TRY(run_subgraphs(n));
    std::vector<TypeOperand> operands = type_operands(n);
    std::vector<SubgraphSignature> signatures = subgraph_signatures(n);
    std::vector<TensorType> recorded = types_of(n.results());
    for (TensorType& t : recorded)
      for (Dim& d : t.shape.dims())
        if (d.is_symbol() && !reusable(d)) d = Dim(0);  // never taken for a join
    std::vector<ShapeGuard> guards;
    std::function<Dim()> fresh_fn = [this] { return fresh(); };
    TypeCall call(n.op(), n.attrs(), operands, signatures);
    call.recorded = recorded;
    call.fresh = &fresh_fn;
    call.guards = &guards;
    Expected<std::vector<TensorType>> inferred = infer_types(call);
    if (!inferred) return at_node(n, inferred.error());
    if (static_cast<int>(inferred->size()) != n.num_results())
      return at_node(n, make_error(n.info().name(), ": node has ", n.num_results(), " results but its rules give ",
                                   inferred->size()));
    for (int i = 0; i < n.num_results(); ++i) set_type(n.result(i), (*inferred)[static_cast<size_t>(i)]);
    for (ShapeGuard& gd : guards) g.add_guard(std::move(gd), &n);
    return Status::ok();
  }

  // A recorded symbol is kept for a join or a loop only when it is not an input's symbol:
  // those have a meaning of their own (stale text may record B where the join is new).
  bool reusable(const Dim& d) const { return d.is_symbol() && !input_symbols_.count(d.symbol_name()); }

  std::set<std::string> used_;
  std::set<std::string> input_symbols_;
  int64_t next_ = 0;
  int64_t types_changed_ = 0;
  int64_t guards_ = 0;
  int64_t fresh_symbols_ = 0;
  bool guards_changed_ = false;
};

}  // namespace

Expected<PassResult> propagate_shapes(Graph& g) {
  Propagator p(g);
  KILN_TRY(p.run_graph(g));
  // Graph outputs are values; their types changed with their producers.
  return p.result();
}

}  // namespace kiln
