// Lowering of elementwise ops: which ones have scalar bodies, and the body of each (the
// compute ops' in lower_compute.cc, the compositions' in lower_composite.cc).
#include "lower/lowering.h"

#include "ops/op_call.h"
#include "support/check.h"

namespace kiln::lowering {

bool Lowering::lowers_as_pointwise(const Node& n) {
  const OpKind op = pointwise_op(n);
  const DType r = pointwise_dtype(n);
  switch (op) {
    case OpKind::Ones:
    case OpKind::Zeros:
    case OpKind::Full:
    case OpKind::OnesLike:
    case OpKind::ZerosLike:
    case OpKind::FullLike:
    case OpKind::Arange:
    case OpKind::Empty: return true;
    case OpKind::Tril:
    case OpKind::Triu: return n.operand(0).is_value() && n.result()->type().shape.rank() >= 2;
    default: break;
  }
  if (!n.info().has(kElementwise)) return false;
  const std::optional<ComputeOp> compute = find_compute_op(op);
  const bool supported = compute ? lowers_as_compute(n, *compute, r)
                                 : lowers_as_composite(n, op, r) || op == OpKind::MaskedFill || op == OpKind::ToCopy;
  if (!supported) return false;
  for (const Operand& o : n.operands())
    if (!o.is_value() && o.literal.is_none()) return false;
  return true;
}

int Lowering::emit_pointwise(BodyBuilder& b, const Node& n, const std::vector<IndexExpr>& c) {
  const OpKind op = pointwise_op(n);
  const OpCallBase call(op, n.attrs());
  const DType r = pointwise_dtype(n);
  if (const std::optional<ComputeOp> compute = find_compute_op(op)) return emit_compute(b, n, *compute, r, c);
  if (lowers_as_composite(n, op, r)) return emit_composite(b, n, op, r, c);
  switch (op) {
    case OpKind::Ones:
    case OpKind::OnesLike: return b.constant(Scalar(int64_t{1}), r);
    case OpKind::Zeros:
    case OpKind::ZerosLike:
    case OpKind::Empty:  // empty: zeros, as its reference kernel
      return b.constant(Scalar(int64_t{0}), r);
    case OpKind::Full:
    case OpKind::FullLike: return b.constant(call.attr_scalar("fill_value"), r);
    case OpKind::Arange: {
      // start + i * step, in int64 when everything is integral, else in double (as the kernel).
      const Scalar start = call.attr_scalar("start"), step = call.attr_scalar("step");
      const DType t = !is_floating(r) && !start.is_float() && !step.is_float() ? DType::I64 : DType::F64;
      const int i = b.cast(b.index(c.at(0)), t);
      const int v =
          b.compute(OpKind::Add, {b.constant(start, t), b.compute(OpKind::Mul, {i, b.constant(step, t)}, t)}, t);
      return b.cast(v, r);
    }
    case OpKind::Tril:
    case OpKind::Triu: {
      // Keeps x where col - row <= diagonal (tril) or >= diagonal (triu), else 0.
      const size_t rank = c.size();
      const int d = b.index(c[rank - 1].plus(c[rank - 2].scaled(-1)));
      const int keep = b.compute(op == OpKind::Tril ? OpKind::Le : OpKind::Ge,
                                 {d, b.constant(Scalar(call.attr_int("diagonal")), DType::I64)}, DType::Bool);
      return b.compute(OpKind::Where, {keep, operand(b, n, 0, r, c), b.constant(Scalar(int64_t{0}), r)}, r);
    }
    default: break;
  }
  if (op == OpKind::ToCopy) return operand(b, n, 0, r, c);
  KILN_CHECK(op == OpKind::MaskedFill) << "no pointwise body for " << n.info().name();
  const int self = operand(b, n, 0, r, c);
  const int mask = operand(b, n, 1, n.operand(1).value->type().dtype, c);
  return b.compute(OpKind::Where, {mask, operand(b, n, 2, r, c), self}, r);
}

}  // namespace kiln::lowering
