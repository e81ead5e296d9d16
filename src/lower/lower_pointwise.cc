// Lowering of elementwise ops: which ones have scalar bodies, and the body of each.
#include "lower/lowering.h"

#include "ops/op_call.h"
#include "ops/type_rules.h"

namespace kiln::lowering {

namespace {

bool is_unary_same(OpKind op) {
  switch (op) {
    case OpKind::Neg: case OpKind::Abs: case OpKind::Relu: case OpKind::Exp: case OpKind::Log: case OpKind::Sqrt:
    case OpKind::Rsqrt: case OpKind::Reciprocal: case OpKind::Sin: case OpKind::Cos: case OpKind::Tanh:
    case OpKind::Sigmoid:
      return true;
    default:
      return false;
  }
}

// The dtype a unary op reads its operand in: the result dtype, except that a floating function
// of an integer (exp of an i32) reads the integer itself, exactly, as its reference kernel
// computes in double from the integer's value (casting it to f32 first would round 2^31 - 1).
DType unary_operand_dtype(const Node& n, OpKind op, DType r) {
  const DType own = n.operand(0).value->type().dtype;
  return compute_domain(op, {}) == ComputeDomain::Float && !is_floating(own) ? own : r;
}

bool is_compare(OpKind op) {
  return op == OpKind::Eq || op == OpKind::Ne || op == OpKind::Lt || op == OpKind::Le || op == OpKind::Gt ||
         op == OpKind::Ge;
}

}  // namespace

bool Lowering::lowers_as_pointwise(const Node& n) {
  const OpKind op = pointwise_op(n);
  const OpCallBase call(op, n.attrs());
  const DType r = pointwise_dtype(n);
  switch (op) {
    case OpKind::Ones: case OpKind::Zeros: case OpKind::Full: case OpKind::OnesLike: case OpKind::ZerosLike:
    case OpKind::FullLike: case OpKind::Arange: case OpKind::Empty:
      return true;
    case OpKind::Tril: case OpKind::Triu:
      return n.operand(0).is_value() && n.result()->type().shape.rank() >= 2;
    default:
      break;
  }
  if (!n.info().has(kElementwise)) return false;
  const std::optional<bool> math = lowers_as_math(n, op, r);  // the ops beyond plain arithmetic
  if (math && !*math) return false;
  const bool supported = math || op == OpKind::Isinf || op == OpKind::Isnan ||
      is_unary_same(op) || is_compare(op) || op == OpKind::Add || op == OpKind::Sub || op == OpKind::Mul ||
      op == OpKind::Maximum || op == OpKind::Minimum || op == OpKind::Where || op == OpKind::MaskedFill ||
      op == OpKind::ToCopy || op == OpKind::LogicalAnd || op == OpKind::LogicalOr || op == OpKind::LogicalNot ||
      (op == OpKind::Div && !call.attr_opt_str("rounding_mode")) || (op == OpKind::Pow && is_floating(r));
  if (!supported) return false;
  for (const Operand& o : n.operands())
    if (!o.is_value() && o.literal.is_none()) return false;
  // alpha as the reference kernel checks it: not floating for integers, bool only for bools.
  const Scalar alpha = op == OpKind::Add || op == OpKind::Sub ? call.attr_scalar("alpha") : Scalar(int64_t{1});
  return !(alpha.is_float() && !is_floating(r)) && !(alpha.is_bool() && r != DType::Bool);
}

int Lowering::emit_pointwise(BodyBuilder& b, const Node& n, const std::vector<IndexExpr>& c) {
  const OpKind op = pointwise_op(n);
  const OpCallBase call(op, n.attrs());
  const DType r = pointwise_dtype(n);
  if (lowers_as_math(n, op, r)) return emit_math(b, n, op, r, c);
  switch (op) {
    case OpKind::Ones: case OpKind::OnesLike:
      return b.constant(Scalar(int64_t{1}), r);
    case OpKind::Zeros: case OpKind::ZerosLike: case OpKind::Empty:  // empty: zeros, as its reference kernel
      return b.constant(Scalar(int64_t{0}), r);
    case OpKind::Full: case OpKind::FullLike:
      return b.constant(call.attr_scalar("fill_value"), r);
    case OpKind::Arange: {
      // start + i * step, in int64 when everything is integral, else in double (as the kernel).
      const Scalar start = call.attr_scalar("start"), step = call.attr_scalar("step");
      const DType t = !is_floating(r) && !start.is_float() && !step.is_float() ? DType::I64 : DType::F64;
      const int i = b.cast(b.index(c.at(0)), t);
      const int v = b.compute(OpKind::Add, {b.constant(start, t), b.compute(OpKind::Mul, {i, b.constant(step, t)}, t)}, t);
      return b.cast(v, r);
    }
    case OpKind::Tril: case OpKind::Triu: {
      // Keeps x where col - row <= diagonal (tril) or >= diagonal (triu), else 0.
      const size_t rank = c.size();
      const int d = b.index(c[rank - 1].plus(c[rank - 2].scaled(-1)));
      const int keep = b.compute(op == OpKind::Tril ? OpKind::Le : OpKind::Ge,
                                 {d, b.constant(Scalar(call.attr_int("diagonal")), DType::I64)}, DType::Bool);
      return b.compute(OpKind::Where, {keep, operand(b, n, 0, r, c), b.constant(Scalar(int64_t{0}), r)}, r);
    }
    case OpKind::Isinf: case OpKind::Isnan: {
      const int x = operand(b, n, 0, n.operand(0).value->type().dtype, c);
      return b.compute(op, {x}, DType::Bool);
    }
    default:
      break;
  }
  if (is_unary_same(op)) return b.compute(op, {operand(b, n, 0, unary_operand_dtype(n, op, r), c)}, r);
  if (op == OpKind::ToCopy) return operand(b, n, 0, r, c);
  if (is_compare(op)) {
    std::vector<TypeOperand> types;
    for (const Operand& o : n.operands())
      types.push_back(o.is_value() ? TypeOperand{o.value->type(), Scalar()} : TypeOperand{std::nullopt, o.literal});
    const DType cd = result_type(types);
    return b.compute(op, {operand(b, n, 0, cd, c), operand(b, n, 1, cd, c)}, DType::Bool);
  }
  if (op == OpKind::LogicalNot) return b.compute(op, {operand(b, n, 0, DType::Bool, c)}, DType::Bool);
  if (op == OpKind::LogicalAnd || op == OpKind::LogicalOr)
    return b.compute(op, {operand(b, n, 0, DType::Bool, c), operand(b, n, 1, DType::Bool, c)}, DType::Bool);
  if (op == OpKind::Where) {
    const int cond = operand(b, n, 0, n.operand(0).value->type().dtype, c);
    return b.compute(op, {cond, operand(b, n, 1, r, c), operand(b, n, 2, r, c)}, r);
  }
  if (op == OpKind::MaskedFill) {
    const int self = operand(b, n, 0, r, c);
    const int mask = operand(b, n, 1, n.operand(1).value->type().dtype, c);
    return b.compute(OpKind::Where, {mask, operand(b, n, 2, r, c), self}, r);
  }
  const int x = operand(b, n, 0, r, c);
  int y = operand(b, n, 1, r, c);
  if (op == OpKind::Add || op == OpKind::Sub) {
    const Scalar alpha = call.attr_scalar("alpha");
    if (!(alpha == Scalar(int64_t{1}))) y = b.compute(OpKind::Mul, {y, b.constant(alpha, r)}, r);
  }
  return b.compute(op, {x, y}, r);
}

}  // namespace kiln::lowering
