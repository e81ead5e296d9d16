// Lowering of the elementwise ops that are compute ops of the loop IR (compute_ops.def): a node
// becomes the compute op of its own kind, its operands read in the dtypes the op's form asks
// for. One case per op, so a declared op without its lowering does not build. What stays an
// extern kernel is what its reference kernel reports as an error (an integer division by a
// zero or non-literal divisor, round's decimals on integers, an integer power with a negative
// literal exponent or of bools) and an alpha the reference kernel refuses.
#include <cmath>

#include "lower/lowering.h"
#include "ops/op_call.h"
#include "ops/type_rules.h"
#include "support/check.h"

namespace kiln::lowering {

namespace {

// An integer divisor the reference kernel accepts without looking at the data: a literal
// that is not zero (a tensor may hold zeros, which it reports; compiled code cannot).
bool nonzero_literal(const Operand& o) { return !o.is_value() && !o.literal.is_none() && o.literal.to_int() != 0; }

}  // namespace

bool Lowering::lowers_as_compute(const Node& n, ComputeOp op, DType r) {
  const OpCallBase call(compute_op_kind(op), n.attrs());
  const bool integral = !is_floating(r);
  switch (op) {
    case ComputeOp::Round: return call.attr_int("decimals") == 0 || !integral;
    case ComputeOp::Remainder:
    case ComputeOp::Fmod: return !integral || nonzero_literal(n.operand(1));
    case ComputeOp::Div: return !call.attr_opt_str("rounding_mode") || !integral || nonzero_literal(n.operand(1));
    case ComputeOp::Pow:
      return !integral || (r != DType::Bool && (n.operand(1).is_value() || n.operand(1).literal.to_int() >= 0));
    case ComputeOp::Add:
    case ComputeOp::Sub: {
      // alpha as the reference kernel checks it: not floating for integers, bool only for bools.
      const Scalar alpha = call.attr_scalar("alpha");
      return !(alpha.is_float() && integral) && !(alpha.is_bool() && r != DType::Bool);
    }
    default: return true;
  }
}

int Lowering::emit_compute(BodyBuilder& b, const Node& n, ComputeOp op, DType r, const std::vector<IndexExpr>& c) {
  const OpKind kind = compute_op_kind(op);
  const OpCallBase call(kind, n.attrs());
  auto x = [&](int i) { return operand(b, n, i, r, c); };
  auto own = [&](int i) { return operand(b, n, i, n.operand(i).value->type().dtype, c); };
  auto truth = [&](int i) { return operand(b, n, i, DType::Bool, c); };
  switch (op) {
    case ComputeOp::Floor:
    case ComputeOp::Ceil:
    case ComputeOp::Round:
    case ComputeOp::Trunc: {
      if (!is_floating(r)) return x(0);  // integers are already whole
      const int64_t decimals = op == ComputeOp::Round ? call.attr_int("decimals") : 0;
      if (decimals == 0) return b.compute(kind, {x(0)}, r);
      // round(x * 10^d) / 10^d, or round(x / 10^-d) * 10^-d, in double as the reference kernel.
      const int v = b.cast(x(0), DType::F64);
      const int scale =
          b.constant(Scalar(std::pow(10.0, static_cast<double>(decimals > 0 ? decimals : -decimals))), DType::F64);
      const OpKind in = decimals > 0 ? OpKind::Mul : OpKind::Div, out = decimals > 0 ? OpKind::Div : OpKind::Mul;
      const int rounded = b.compute(OpKind::Round, {b.compute(in, {v, scale}, DType::F64)}, DType::F64);
      return b.cast(b.compute(out, {rounded, scale}, DType::F64), r);
    }
    case ComputeOp::Neg:
    case ComputeOp::Abs:
    case ComputeOp::Relu:
    case ComputeOp::Sign:
    case ComputeOp::BitwiseNot:
    case ComputeOp::Exp:
    case ComputeOp::Log:
    case ComputeOp::Log1p:
    case ComputeOp::Expm1:
    case ComputeOp::Sqrt:
    case ComputeOp::Rsqrt:
    case ComputeOp::Reciprocal:
    case ComputeOp::Sin:
    case ComputeOp::Cos:
    case ComputeOp::Tan:
    case ComputeOp::Atan:
    case ComputeOp::Tanh:
    case ComputeOp::Sigmoid:
    case ComputeOp::Erf: {
      // A floating function of an integer (exp of an i32) reads the integer itself, exactly, as
      // its reference kernel computes in double from the integer's value (casting it to f32
      // first would round 2^31 - 1).
      const bool exact =
          compute_domain(kind, {}) == ComputeDomain::Float && !is_floating(n.operand(0).value->type().dtype);
      return b.compute(kind, {exact ? own(0) : x(0)}, r);
    }
    case ComputeOp::Add:
    case ComputeOp::Sub: {
      const Scalar alpha = call.attr_scalar("alpha");  // add/sub of the loop IR have none
      const int lhs = x(0);
      int rhs = x(1);
      if (!(alpha == Scalar(int64_t{1}))) rhs = b.compute(OpKind::Mul, {rhs, b.constant(alpha, r)}, r);
      return b.compute(kind, {lhs, rhs}, r);
    }
    case ComputeOp::Div: {
      const std::optional<std::string> mode = call.attr_opt_str("rounding_mode");
      if (!mode) return b.compute(kind, {x(0), x(1)}, r);
      return b.compute(kind, {x(0), x(1)}, r, {{"rounding_mode", AttrValue(*mode)}});
    }
    case ComputeOp::Mul:
    case ComputeOp::Maximum:
    case ComputeOp::Minimum:
    case ComputeOp::Pow:
    case ComputeOp::Remainder:
    case ComputeOp::Fmod:
    case ComputeOp::Atan2:
    case ComputeOp::BitwiseAnd:
    case ComputeOp::BitwiseOr:
    case ComputeOp::BitwiseXor:
    case ComputeOp::BitwiseLeftShift:
    case ComputeOp::BitwiseRightShift: return b.compute(kind, {x(0), x(1)}, r);
    case ComputeOp::Lerp: return b.compute(kind, {x(0), x(1), x(2)}, r);
    case ComputeOp::LogicalNot: return b.compute(kind, {truth(0)}, DType::Bool);
    case ComputeOp::LogicalAnd:
    case ComputeOp::LogicalOr:
    case ComputeOp::LogicalXor: return b.compute(kind, {truth(0), truth(1)}, DType::Bool);
    case ComputeOp::Isinf:
    case ComputeOp::Isnan:
    case ComputeOp::Isfinite: return b.compute(kind, {own(0)}, DType::Bool);
    case ComputeOp::Eq:
    case ComputeOp::Ne:
    case ComputeOp::Lt:
    case ComputeOp::Le:
    case ComputeOp::Gt:
    case ComputeOp::Ge: {
      // Both operands in their promoted dtype, as the reference kernel compares.
      std::vector<TypeOperand> types;
      for (const Operand& o : n.operands())
        types.push_back(o.is_value() ? TypeOperand{o.value->type(), Scalar()} : TypeOperand{std::nullopt, o.literal});
      const DType cd = result_type(types);
      return b.compute(kind, {operand(b, n, 0, cd, c), operand(b, n, 1, cd, c)}, DType::Bool);
    }
    case ComputeOp::Where: return b.compute(kind, {own(0), x(1), x(2)}, r);
  }
  KILN_UNREACHABLE("bad compute op");
}

}  // namespace kiln::lowering
