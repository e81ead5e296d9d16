// Uniform-value folding: evaluate pure nodes of full/zeros/ones with the reference kernels
// (ops/op_call.h; passes may not use the interpreter) and replace uniform results by `full`.
#include "passes/fold_constants.h"

#include <cstring>

#include "ops/op_call.h"
#include "passes/dce.h"
#include "passes/uniform_value.h"

namespace kiln {

namespace {

using Match = std::optional<std::vector<Value*>>;
using Mutating = std::unordered_set<const Graph*>;

bool is_like_op(OpKind op) { return op == OpKind::FullLike || op == OpKind::ZerosLike || op == OpKind::OnesLike; }

// Ops the folder may evaluate: pure, one result, no body, no hidden randomness, and not a
// creation op (full/zeros/ones are the folded form; empty and arange are not uniform).
bool is_foldable_op(const OpInfo& info) {
  if (is_like_op(info.kind)) return true;
  if (!info.is_pure() || info.has(kHigherOrder | kCreation)) return false;
  // dropout_p > 0 draws random numbers although the op is not marked random.
  return info.kind != OpKind::ScaledDotProductAttention;
}

std::vector<OpKind> foldable_ops() {
  std::vector<OpKind> out;
  for (const OpInfo& info : all_ops())
    if (is_foldable_op(info)) out.push_back(info.kind);
  return out;
}

std::optional<int64_t> static_numel(const TensorType& t) {
  if (!t.shape.is_static()) return std::nullopt;
  return t.shape.numel();
}

// `n`'s operands as concrete tensors: uniform values filled to their own shape, or, when
// `one_element`, to a shape of ones of the same rank (so promotion sees the same ranks).
std::optional<std::vector<KernelOperand>> materialize(const Node& n, bool one_element, int64_t max_elements) {
  std::vector<KernelOperand> out;
  for (const Operand& operand : n.operands()) {
    if (!operand.is_value()) {
      out.push_back({Tensor(), operand.literal});
      continue;
    }
    std::optional<Scalar> value = uniform_value(operand.value);
    const TensorType& type = operand.value->type();
    if (!value) return std::nullopt;
    std::vector<int64_t> sizes(static_cast<size_t>(type.shape.rank()), 1);
    if (!one_element) {
      std::optional<int64_t> numel = static_numel(type);
      if (!numel || *numel > max_elements) return std::nullopt;
      sizes = type.shape.sizes();
    }
    out.push_back({Tensor::full(sizes, *value, type.dtype), Scalar()});
  }
  return out;
}

// The one value every element of `t` holds, compared bit for bit; nullopt if none.
std::optional<Scalar> uniform_element(const Tensor& t) {
  if (t.numel() == 0) return std::nullopt;
  const bool floating = is_floating(t.dtype());
  for (int64_t i = 1; i < t.numel(); ++i) {
    if (floating) {
      const double a = t.item_double(0), b = t.item_double(i);
      if (std::memcmp(&a, &b, sizeof a) != 0) return std::nullopt;
    } else if (t.item_int(0) != t.item_int(i)) {
      return std::nullopt;
    }
  }
  if (t.dtype() == DType::Bool) return Scalar(t.item_int(0) != 0);
  return floating ? Scalar(t.item_double(0)) : Scalar(t.item_int(0));
}

// The value `n` computes in every element, if it is a uniform constant.
std::optional<Scalar> evaluate(const Node& n, const FoldOptions& options) {
  if (is_like_op(n.op()))  // the fill value as the result dtype holds it
    return uniform_element(Tensor::full({1}, *uniform_value(n.result()), n.result()->type().dtype));
  const bool one_element = n.info().has(kElementwise);
  if (!one_element) {
    std::optional<int64_t> numel = static_numel(n.result()->type());
    if (!numel || *numel > options.max_elements) return std::nullopt;
  }
  std::optional<std::vector<KernelOperand>> operands = materialize(n, one_element, options.max_elements);
  if (!operands) return std::nullopt;
  Expected<std::vector<Tensor>> results = run_op(n.op(), n.attrs(), *operands);
  if (!results || results->size() != 1 || (*results)[0].dtype() != n.result()->type().dtype) return std::nullopt;
  return uniform_element((*results)[0]);
}

RewriteRule fold_uniform_rule(const Mutating& mutating, const FoldOptions& options) {
  return {"fold_uniform", foldable_ops(), [&mutating, options](Node& n, GraphBuilder& b) -> Match {
            const TensorType& type = n.result()->type();
            if (n.num_results() != 1 || n.num_subgraphs() > 0 || mutating.count(n.graph()) || !type.shape.is_static())
              return std::nullopt;
            std::optional<Scalar> value = evaluate(n, options);
            if (!value) return std::nullopt;
            AttrMap attrs{
                {"size", type.shape.sizes()}, {"fill_value", AttrValue::from_scalar(*value)}, {"dtype", type.dtype}};
            return std::vector<Value*>{b.apply1(OpKind::Full, {}, std::move(attrs))};
          }};
}

}  // namespace

RuleSet fold_constant_rules(const Mutating& mutating, const FoldOptions& options) {
  return {"fold_constants", {fold_uniform_rule(mutating, options)}};
}

Expected<PassResult> fold_constants(Graph& g, const FoldOptions& options) {
  const Mutating mutating = graphs_with_mutation(g);
  KILN_ASSIGN_OR_RETURN(PassResult result, apply_rules(g, fold_constant_rules(mutating, options), options.driver));
  if (!result.changed) return result;
  PassResult dce = eliminate_dead_code(g);
  result.counters["nodes_removed"] = dce.counters["nodes_removed"];
  return result;
}

}  // namespace kiln
