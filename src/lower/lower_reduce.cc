// Lowering of the reductions to reduction kernels: sum, mean, prod, amax, amin, any and all
// here; argmax and argmin (lower_arg_reduce.cc), var and std and a mean beside them
// (lower_welford.cc) in their own files. The dispatch for every op with the Reduction trait
// is here.
#include "lower/lowering.h"

#include "lower/reduce_nest.h"
#include "ops/op_call.h"
#include "ops/reduce_dims.h"

namespace kiln::lowering {

namespace {

ReduceKind fold_of(OpKind op) {
  switch (op) {
    case OpKind::Prod: return ReduceKind::Prod;
    case OpKind::Amax:
    case OpKind::Any: return ReduceKind::Max;
    case OpKind::Amin:
    case OpKind::All: return ReduceKind::Min;
    default: return ReduceKind::Sum;
  }
}

}  // namespace

Expected<ReduceNest> Lowering::reduction_nest(const Node& n) {
  const std::vector<int64_t> sizes = sizes_of(n.operand(0).value);
  const OpCallBase call(n.op(), n.attrs());
  Expected<std::vector<bool>> red = reduced_dims(call, static_cast<int>(sizes.size()));
  if (!red) return node_error(n, red.error().message());
  return reduce_nest(sizes, *red, call.attr_bool("keepdim"));
}

Expected<bool> Lowering::reduction(const Node& n) {
  if (!n.operand(0).is_value()) return false;
  switch (n.op()) {
    case OpKind::Mean:
      if (const Node* partner = welford_partner(n)) return welford(n, partner);
      break;
    case OpKind::Sum:
    case OpKind::Prod:
    case OpKind::Amax:
    case OpKind::Amin:
    case OpKind::Any:
    case OpKind::All: break;
    case OpKind::Argmax:
    case OpKind::Argmin: return arg_reduction(n);
    case OpKind::Var:
    case OpKind::Std: return welford(n, welford_partner(n));
    default: return false;  // logsumexp: decomposed by the CPU backend, else its reference kernel
  }
  const Value* input = n.operand(0).value;
  KILN_ASSIGN_OR_RETURN(ReduceNest nest, reduction_nest(n));
  const DType r = n.result()->type().dtype;
  const ReduceKind fold = fold_of(n.op());
  // amax and amin have no identity: the reference kernel reports the empty group.
  if ((n.op() == OpKind::Amax || n.op() == OpKind::Amin) && nest.count == 0) return false;
  // any and all fold `x != 0` (NaN counts as true) with max and min in i64 and compare the
  // result with 0 after, so that an empty group gives the identity, false or true.
  const bool logical = n.op() == OpKind::Any || n.op() == OpKind::All;
  prepare(input, numel_of(sizes_of(input)));
  LoopKernel k = nest.kernel();
  BodyBuilder b{k};
  int v = value_at(b, input, nest.in_coords);
  if (logical)
    v = b.compute(OpKind::Ne, {v, b.constant(Scalar(int64_t{0}), b.dtype(v))}, DType::Bool);
  else
    v = b.cast(v, r);
  if (nest.num_reduce_loops > 0) {
    BodyOp rop;
    rop.kind = BodyOp::Kind::Reduce;
    rop.reduce = fold;
    rop.args = {v};
    rop.dtype = logical ? DType::I64 : r;
    v = b.add(std::move(rop));
    k.reduce_op = v;
    if (logical) v = b.compute(OpKind::Gt, {v, b.constant(Scalar(int64_t{0}), DType::I64)}, DType::Bool);
    if (n.op() == OpKind::Mean) v = b.compute(OpKind::Div, {v, exact_constant(b, Scalar(nest.count), r)}, r);
  }
  v = b.cast(v, r);
  const int out = result_buffer(n.result(), sizes_of(n.result()));
  b.store(out, strided(buffer(out).strides, nest.out_coords), v);
  append(std::move(k));
  return true;
}

}  // namespace kiln::lowering
