// Lowering of var and std to Welford reductions: one pass over the data folds the mean and m2
// (the sum of squared deviations from the mean), and the epilogue divides m2 by
// max(0, count - correction) (std: then the square root), as the reference kernel does. A
// mean of the same values over the same dims elsewhere in the graph (the var_mean pattern:
// the normalizations' statistics) is computed by the same kernel, from the same accumulator.
#include "lower/lowering.h"

#include <algorithm>

#include "ops/op_call.h"
#include "ops/reduce_dims.h"

namespace kiln::lowering {

namespace {

bool is_variance(const Node& n) { return n.op() == OpKind::Var || n.op() == OpKind::Std; }

std::optional<std::vector<bool>> reduced_flags(const Node& n) {
  const OpCallBase call(n.op(), n.attrs());
  Expected<std::vector<bool>> red = reduced_dims(call, static_cast<int>(sizes_of(n.operand(0).value).size()));
  if (!red) return std::nullopt;
  return *red;
}

}  // namespace

const Node* Lowering::welford_partner(const Node& n) const {
  if (!n.operand(0).is_value()) return nullptr;
  const std::optional<std::vector<bool>> dims = reduced_flags(n);
  if (!dims) return nullptr;
  bool after = false;
  for (const Node* m : g_.nodes()) {
    if (m == &n) {
      after = true;
      continue;
    }
    if (!after) continue;
    // A write in between would make the later node read other values than this one.
    if (m->info().has(kInplace) || m->op() == OpKind::CopyInplace) return nullptr;
    const bool pairs = n.op() == OpKind::Mean ? is_variance(*m) : m->op() == OpKind::Mean;
    if (!pairs || !m->operand(0).is_value() || m->operand(0).value != n.operand(0).value) continue;
    if (m->result()->type().dtype == n.result()->type().dtype && reduced_flags(*m) == dims) return m;
  }
  return nullptr;
}

Expected<bool> Lowering::welford(const Node& n, const Node* partner) {
  const Value* input = n.operand(0).value;
  const DType r = n.result()->type().dtype;
  KILN_ASSIGN_OR_RETURN(ReduceNest nest, reduction_nest(n));
  prepare(input, numel_of(sizes_of(input)));
  LoopKernel k = nest.kernel();
  BodyBuilder b{k};
  const int x = b.cast(value_at(b, input, nest.in_coords), r);
  int mean = -1, m2 = -1;
  if (nest.num_reduce_loops == 0) {  // a 0-d input: the mean is the value, m2 is (x - x)^2
    mean = x;                        // (0, but NaN for NaN and inf, as the reference kernel's deviation from the mean)
    const int d = b.compute(OpKind::Sub, {x, x}, r);
    m2 = b.compute(OpKind::Mul, {d, d}, r);
  } else {
    for (ReduceKind kind : {ReduceKind::WelfordMean, ReduceKind::WelfordM2}) {
      BodyOp rop;
      rop.kind = BodyOp::Kind::Reduce;
      rop.reduce = kind;
      rop.args = {x};
      rop.dtype = r;
      (kind == ReduceKind::WelfordMean ? mean : m2) = b.add(std::move(rop));
    }
    k.reduce_op = mean;
  }
  // Each node's result: the mean, or m2 / max(0, count - correction) and its root for std.
  for (const Node* node : {&n, partner}) {
    if (node == nullptr) continue;
    int v = mean;
    if (is_variance(*node)) {
      const Scalar c = OpCallBase(node->op(), node->attrs()).attr_scalar("correction");
      const double divisor = std::max(0.0, static_cast<double>(nest.count) - (c.is_none() ? 1.0 : c.to_double()));
      v = b.compute(OpKind::Div, {m2, exact_constant(b, Scalar(divisor), r)}, r);
      if (node->op() == OpKind::Std) v = b.compute(OpKind::Sqrt, {v}, r);
    }
    const bool keepdim = OpCallBase(node->op(), node->attrs()).attr_bool("keepdim");
    const std::vector<IndexExpr>& coords = keepdim == OpCallBase(n.op(), n.attrs()).attr_bool("keepdim")
                                               ? nest.out_coords
                                               : reduce_nest(sizes_of(input), *reduced_flags(n), keepdim).out_coords;
    const int out = result_buffer(node->result(), sizes_of(node->result()));
    b.store(out, strided(buffer(out).strides, coords), v);
  }
  if (partner) lowered_ahead_.insert(partner);
  append(std::move(k));
  return true;
}

}  // namespace kiln::lowering
