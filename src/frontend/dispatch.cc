#include "frontend/dispatch.h"

#include <memory>

#include "frontend/trace.h"
#include "interp/interpreter.h"

namespace kiln {
namespace {

Status drop_default_attrs(OpKind op, AttrMap& attrs) {
  const OpSchema& schema = op_info(op).schema;
  std::vector<std::string> defaults;
  for (const auto& [name, value] : attrs.items()) {
    const ArgSchema* arg = schema.find_arg(name);
    if (!arg || !arg->is_attr()) return make_error(schema.name, ": no attribute named '", name, "'");
    if (arg->default_value && *arg->default_value == value) defaults.push_back(name);
  }
  for (const std::string& name : defaults) attrs.erase(name);
  return Status::ok();
}

// The capture that must record this call, or null to run it eagerly. Whether a traced
// operand may be used in that capture is for TraceContext::value_of to say.
Expected<TraceContext*> tracing_context(std::span<const KernelOperand> operands) {
  TraceContext* ctx = active_trace();
  for (const KernelOperand& o : operands) {
    if (!o.tensor.is_traced()) continue;
    if (!ctx) return make_error("a traced tensor was used outside the capture that made it");
  }
  return ctx;
}

// Trailing optional tensors left out (`none` with a schema default) are not recorded, just as
// default attributes are not: `linear(%x, %w)` rather than `linear(%x, %w, none)`.
std::span<const KernelOperand> without_trailing_defaults(const OpSchema& schema,
                                                         std::span<const KernelOperand> operands) {
  if (schema.has_variadic_operand()) return operands;
  std::vector<const ArgSchema*> args = schema.operand_args();
  size_t n = std::min(operands.size(), args.size());
  while (n > 0 && operands[n - 1].is_none() && args[n - 1]->default_value) --n;
  return operands.first(n);
}

Expected<std::vector<Tensor>> record(TraceContext& ctx, OpKind op, std::span<const KernelOperand> all_operands,
                                     AttrMap attrs, std::span<const Graph* const> subgraphs, const SourceLoc& loc) {
  const OpInfo& info = op_info(op);
  KILN_TRY(info.schema.operand_ranges(static_cast<int>(all_operands.size())));
  std::span<const KernelOperand> operands = without_trailing_defaults(info.schema, all_operands);
  Graph::NewNode node{op, {}, std::move(attrs), {}};
  node.loc = loc;
  std::vector<TypeOperand> types;
  for (const KernelOperand& o : operands) {
    TypeOperand t;
    if (o.is_tensor()) {
      KILN_ASSIGN_OR_RETURN(Value * v, ctx.value_of(o.tensor));
      node.operands.emplace_back(v);
      t.type = v->type();
    } else {
      node.operands.emplace_back(o.literal);
      t.literal = o.literal;
    }
    types.push_back(std::move(t));
  }
  std::vector<SubgraphSignature> signatures;
  for (const Graph* g : subgraphs) {
    signatures.push_back(graph_signature(*g));
    node.subgraphs.push_back(g->clone());
  }
  TypeCall call(op, node.attrs, types, signatures);
  KILN_ASSIGN_OR_RETURN(node.result_types, infer_types(call));
  Node* n = ctx.graph().append(std::move(node));
  std::vector<Tensor> results;
  for (Value* r : n->results()) results.push_back(ctx.wrap(r));
  return results;
}

Expected<std::vector<Tensor>> record_or_run(OpKind op, std::vector<KernelOperand> operands, AttrMap attrs,
                                            std::span<const Graph* const> subgraphs, const SourceLoc& loc) {
  KILN_TRY(drop_default_attrs(op, attrs));
  const size_t expected_subgraphs = op_info(op).schema.subgraph_args().size();
  if (subgraphs.size() != expected_subgraphs)
    return make_error(op_info(op).name(), ": takes ", expected_subgraphs, " subgraphs, got ", subgraphs.size());
  KILN_ASSIGN_OR_RETURN(TraceContext * ctx, tracing_context(operands));
  if (ctx) return record(*ctx, op, operands, std::move(attrs), subgraphs, loc);
  if (op_info(op).has(kHigherOrder)) return run_higher_order(op, attrs, operands, subgraphs);
  return run_op(op, attrs, operands);
}

}  // namespace

Expected<std::vector<Tensor>> dispatch(OpKind op, std::vector<KernelOperand> operands, AttrMap attrs, SourceLoc loc) {
  return dispatch_higher_order(op, std::move(operands), std::move(attrs), {}, std::move(loc));
}

Expected<std::vector<Tensor>> dispatch_higher_order(OpKind op, std::vector<KernelOperand> operands, AttrMap attrs,
                                                    std::span<const Graph* const> subgraphs, SourceLoc loc) {
  Expected<std::vector<Tensor>> results = record_or_run(op, std::move(operands), std::move(attrs), subgraphs, loc);
  if (!results) results.error().with_loc(std::move(loc));
  return results;
}

SourceLoc source_loc(const CallSite& site) {
  if (site.line() == 0) return {};
  return {site.file_name(), static_cast<int>(site.line()), static_cast<int>(site.column())};
}

}  // namespace kiln
