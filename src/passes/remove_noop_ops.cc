// The no-op rules of remove_noop_ops: each names the operand a node returns unchanged.
#include "passes/remove_noop_ops.h"

#include <cmath>

#include "ops/op_call.h"
#include "passes/uniform_value.h"

namespace kiln {

namespace {

using Match = std::optional<std::vector<Value*>>;
using Mutating = std::unordered_set<const Graph*>;

// The operand a no-op node returns, or null when it is not a no-op.
using SourceFn = Value* (*)(const Node& n);

Value* value_operand(const Node& n, int i) {
  return i < n.num_operands() && n.operand(i).is_value() ? n.operand(i).value : nullptr;
}

// Views whose same-typed result is the operand itself.
Value* same_shape_view(const Node& n) { return value_operand(n, 0); }

Value* full_slice(const Node& n) {
  const OpCallBase call(n.op(), n.attrs());
  const std::optional<int64_t> start = call.attr_opt_int("start");
  if ((start && *start != 0) || call.attr_int("step") != 1) return nullptr;
  return value_operand(n, 0);
}

Value* identity_permute(const Node& n) {
  const std::vector<int64_t>& dims = OpCallBase(n.op(), n.attrs()).attr_ints("dims");
  const int64_t rank = static_cast<int64_t>(dims.size());
  for (int64_t i = 0; i < rank; ++i)
    if (dims[static_cast<size_t>(i)] != i && dims[static_cast<size_t>(i)] != i - rank) return nullptr;
  return value_operand(n, 0);
}

Value* transpose_with_itself(const Node& n) {
  const OpCallBase call(n.op(), n.attrs());
  const int rank = n.result()->type().shape.rank();
  const std::optional<int> d0 = wrap_dim(call.attr_int("dim0"), rank);
  const std::optional<int> d1 = wrap_dim(call.attr_int("dim1"), rank);
  return d0 && d1 && *d0 == *d1 ? value_operand(n, 0) : nullptr;
}

// clone, contiguous, _to_copy to the same dtype, cat of one tensor.
Value* copy(const Node& n) { return n.num_operands() == 1 ? value_operand(n, 0) : nullptr; }

Value* zero_pad(const Node& n) {
  for (int64_t p : OpCallBase(n.op(), n.attrs()).attr_ints("pad"))
    if (p != 0) return nullptr;
  return value_operand(n, 0);
}

Value* repeat_ones(const Node& n) {
  for (int64_t r : OpCallBase(n.op(), n.attrs()).attr_ints("repeats"))
    if (r != 1) return nullptr;
  return value_operand(n, 0);
}

Value* integer_rounding(const Node& n) {
  if (!is_integral(n.result()->type().dtype)) return nullptr;
  if (n.op() == OpKind::Round && OpCallBase(n.op(), n.attrs()).attr_int("decimals") != 0) return nullptr;
  return value_operand(n, 0);
}

Value* pow_one(const Node& n) { return operand_equals(n.operand(1), 1.0) ? value_operand(n, 0) : nullptr; }

bool finite_alpha(const Node& n) {
  return std::isfinite(OpCallBase(n.op(), n.attrs()).attr_scalar("alpha").to_double());
}

// add(x, 0) with finite alpha, or add(0, x) with alpha 1; sub(x, 0) with finite alpha.
Value* add_zero(const Node& n) {
  if (!finite_alpha(n)) return nullptr;
  if (operand_equals(n.operand(1), 0.0)) return value_operand(n, 0);
  const bool unit_alpha = OpCallBase(n.op(), n.attrs()).attr_scalar("alpha").to_double() == 1.0;
  if (n.op() == OpKind::Add && unit_alpha && operand_equals(n.operand(0), 0.0)) return value_operand(n, 1);
  return nullptr;
}

Value* mul_one(const Node& n) {
  if (operand_equals(n.operand(1), 1.0)) return value_operand(n, 0);
  if (operand_equals(n.operand(0), 1.0)) return value_operand(n, 1);
  return nullptr;
}

Value* div_one(const Node& n) {
  if (OpCallBase(n.op(), n.attrs()).attr_opt_str("rounding_mode")) return nullptr;
  return operand_equals(n.operand(1), 1.0) ? value_operand(n, 0) : nullptr;
}

// A rule that forwards the source `source_of` names, when the types agree exactly, the graph
// does not mutate and forwarding creates no new output aliasing.
RewriteRule forwarding_rule(std::string name, std::vector<OpKind> roots, SourceFn source_of, const Mutating& mutating) {
  return {std::move(name), std::move(roots), [source_of, &mutating](Node& n, GraphBuilder&) -> Match {
            if (n.num_results() != 1 || mutating.count(n.graph())) return std::nullopt;
            Value* source = source_of(n);
            if (!source || source->type() != n.result()->type() || !may_forward(n, source)) return std::nullopt;
            return std::vector<Value*>{source};
          }};
}

}  // namespace

RuleSet remove_noop_rules(const Mutating& mutating) {
  using K = OpKind;
  return {"remove_noop_ops",
          {
              forwarding_rule("same_shape_view", {K::View, K::Reshape, K::Expand, K::Flatten, K::Squeeze},
                              same_shape_view, mutating),
              forwarding_rule("full_slice", {K::Slice}, full_slice, mutating),
              forwarding_rule("identity_permute", {K::Permute}, identity_permute, mutating),
              forwarding_rule("transpose_with_itself", {K::Transpose}, transpose_with_itself, mutating),
              forwarding_rule("copy", {K::Clone, K::Contiguous, K::ToCopy, K::Cat}, copy, mutating),
              forwarding_rule("zero_pad", {K::ConstantPadNd}, zero_pad, mutating),
              forwarding_rule("repeat_ones", {K::Repeat}, repeat_ones, mutating),
              forwarding_rule("integer_rounding", {K::Floor, K::Ceil, K::Trunc, K::Round}, integer_rounding, mutating),
              forwarding_rule("pow_one", {K::Pow}, pow_one, mutating),
              forwarding_rule("add_zero", {K::Add, K::Sub}, add_zero, mutating),
              forwarding_rule("mul_one", {K::Mul}, mul_one, mutating),
              forwarding_rule("div_one", {K::Div}, div_one, mutating),
          }};
}

Expected<PassResult> remove_noop_ops(Graph& g, const RuleDriverOptions& options) {
  const Mutating mutating = graphs_with_mutation(g);
  return apply_rules(g, remove_noop_rules(mutating), options);
}

}  // namespace kiln
