// Lowering of the elementwise ops beyond plain arithmetic: math functions, sign, rounding,
// remainder, fmod, rounding division, integer pow, bitwise and logical xor ops, isfinite,
// clamp, lerp, addcmul, addcdiv and the activations (gelu, silu, softplus, elu, leaky_relu,
// hardtanh, which the CPU backend decomposes first but which lower directly as well). Each is a
// compute op of the loop IR (lower/eval_math.h gives their semantics) or a small composition of
// them. What stays an extern kernel is what its reference kernel reports as an error (an integer
// division by a zero or non-literal divisor, round's decimals on integers, an integer power
// with a negative literal exponent or of bools, addcmul of bools, gelu's unknown approximate).
#include <cmath>
#include <numbers>

#include "lower/lowering.h"
#include "ops/op_call.h"

namespace kiln::lowering {

namespace {

// Ops lower_math.cc lowers (lowers_as_math); the others are lower_pointwise.cc's.
bool is_math_op(OpKind op) {
  switch (op) {
    case OpKind::Log1p: case OpKind::Expm1: case OpKind::Erf: case OpKind::Tan: case OpKind::Atan: case OpKind::Sign:
    case OpKind::Floor: case OpKind::Ceil: case OpKind::Round: case OpKind::Trunc: case OpKind::Isfinite:
    case OpKind::BitwiseNot: case OpKind::Remainder: case OpKind::Fmod: case OpKind::Atan2: case OpKind::LogicalXor:
    case OpKind::BitwiseAnd: case OpKind::BitwiseOr: case OpKind::BitwiseXor: case OpKind::BitwiseLeftShift:
    case OpKind::BitwiseRightShift: case OpKind::Clamp: case OpKind::Lerp: case OpKind::Addcmul: case OpKind::Addcdiv:
    case OpKind::Gelu: case OpKind::Silu: case OpKind::Softplus: case OpKind::Elu: case OpKind::LeakyRelu:
    case OpKind::Hardtanh:
      return true;
    default:
      return false;
  }
}

// An integer divisor the reference kernel accepts without looking at the data: a literal
// that is not zero (a tensor may hold zeros, which it reports; compiled code cannot).
bool nonzero_literal(const Operand& o) { return !o.is_value() && !o.literal.is_none() && o.literal.to_int() != 0; }

}  // namespace

std::optional<bool> Lowering::lowers_as_math(const Node& n, OpKind op, DType r) {
  const OpCallBase call(op, n.attrs());
  const bool integral = !is_floating(r);
  switch (op) {
    case OpKind::Round:
      return call.attr_int("decimals") == 0 || !integral;
    case OpKind::Remainder: case OpKind::Fmod:
      return !integral || nonzero_literal(n.operand(1));
    case OpKind::Div:
      if (!call.attr_opt_str("rounding_mode")) return std::nullopt;  // true division: lower_pointwise.cc
      return !integral || nonzero_literal(n.operand(1));
    case OpKind::Pow:
      if (!integral) return std::nullopt;
      return r != DType::Bool && (n.operand(1).is_value() || n.operand(1).literal.to_int() >= 0);
    case OpKind::Addcmul:
      return r != DType::Bool;
    case OpKind::Gelu: {
      const std::string approximate = call.attr_str("approximate");
      return approximate == "none" || approximate == "tanh";
    }
    default:
      if (!is_math_op(op)) return std::nullopt;
      return true;
  }
}

int Lowering::emit_math(BodyBuilder& b, const Node& n, OpKind op, DType r, const std::vector<IndexExpr>& c) {
  const OpCallBase call(op, n.attrs());
  auto x = [&](int i) { return operand(b, n, i, r, c); };
  auto k = [&](double v) { return b.constant(Scalar(v), r); };
  auto f = [&](OpKind o, std::vector<int> args) { return b.compute(o, std::move(args), r); };
  auto i64 = [&](const Scalar& v) { return b.constant(Scalar(v.to_int()), DType::I64); };
  switch (op) {
    case OpKind::Floor: case OpKind::Ceil: case OpKind::Round: case OpKind::Trunc: {
      if (!is_floating(r)) return x(0);  // integers are already whole
      const int64_t decimals = op == OpKind::Round ? call.attr_int("decimals") : 0;
      if (decimals == 0) return f(op, {x(0)});
      // round(x * 10^d) / 10^d, or round(x / 10^-d) * 10^-d, in double as the reference kernel.
      const int v = b.cast(x(0), DType::F64);
      const int scale = b.constant(Scalar(std::pow(10.0, static_cast<double>(decimals > 0 ? decimals : -decimals))), DType::F64);
      const OpKind in = decimals > 0 ? OpKind::Mul : OpKind::Div, out = decimals > 0 ? OpKind::Div : OpKind::Mul;
      const int rounded = b.compute(OpKind::Round, {b.compute(in, {v, scale}, DType::F64)}, DType::F64);
      return b.cast(b.compute(out, {rounded, scale}, DType::F64), r);
    }
    case OpKind::Isfinite:
      return b.compute(op, {operand(b, n, 0, n.operand(0).value->type().dtype, c)}, DType::Bool);
    case OpKind::LogicalXor:
      return b.compute(op, {operand(b, n, 0, DType::Bool, c), operand(b, n, 1, DType::Bool, c)}, DType::Bool);
    case OpKind::Div:
      return b.compute(op, {x(0), x(1)}, r, {{"rounding_mode", AttrValue(*call.attr_opt_str("rounding_mode"))}});
    case OpKind::Clamp: {
      // Bounds promote like literals and round to the result dtype (the reference kernel);
      // integers clamp in int64 by the bounds' own values, then wrap once.
      const Scalar lo = call.attr_scalar("min"), hi = call.attr_scalar("max");
      const DType t = is_floating(r) ? r : DType::I64;
      int v = b.cast(x(0), t);
      if (!lo.is_none()) v = b.compute(OpKind::Maximum, {v, is_floating(r) ? k(lo.to_double()) : i64(lo)}, t);
      if (!hi.is_none()) v = b.compute(OpKind::Minimum, {v, is_floating(r) ? k(hi.to_double()) : i64(hi)}, t);
      return b.cast(v, r);
    }
    case OpKind::Hardtanh: {
      // x < lo ? lo : (x > hi ? hi : x): NaN falls through both comparisons; lo > hi gives lo;
      // a NaN bound gives NaN everywhere (the reference kernel's, as clamp's).
      const Scalar lo = call.attr_scalar("min_val"), hi = call.attr_scalar("max_val");
      if (is_floating(r) && (std::isnan(lo.to_double()) || std::isnan(hi.to_double())))
        return b.cast(k(std::nan("")), r);
      const DType t = is_floating(r) ? r : DType::I64;
      const int v = b.cast(x(0), t);
      const int l = is_floating(r) ? k(lo.to_double()) : i64(lo), h = is_floating(r) ? k(hi.to_double()) : i64(hi);
      const int upper = b.compute(OpKind::Where, {b.compute(OpKind::Gt, {v, h}, DType::Bool), h, v}, t);
      return b.cast(b.compute(OpKind::Where, {b.compute(OpKind::Lt, {v, l}, DType::Bool), l, upper}, t), r);
    }
    case OpKind::Addcmul: case OpKind::Addcdiv: {
      // self + value * t1 * t2 (in that order: t1 * t2 alone may overflow where the result
      // does not), or self + value * (t1 / t2); an integer value truncated.
      const Scalar value = call.attr_scalar("value");
      const int self = x(0);
      auto scaled = [&](int t) {
        if (value == Scalar(int64_t{1})) return t;
        return f(OpKind::Mul, {is_floating(r) ? k(value.to_double()) : i64(value), t});
      };
      const int term = op == OpKind::Addcmul ? f(OpKind::Mul, {scaled(x(1)), x(2)}) : scaled(f(OpKind::Div, {x(1), x(2)}));
      return f(OpKind::Add, {self, term});
    }
    case OpKind::Gelu: {
      // As the decomposition (passes/decompositions_activation.cc): 0.5 x (1 + erf(x / sqrt 2)),
      // or 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
      const int v = x(0);
      int inner;
      if (call.attr_str("approximate") == "none") {
        inner = f(OpKind::Erf, {f(OpKind::Mul, {v, k(std::numbers::sqrt2 / 2)})});
      } else {
        const int cube = f(OpKind::Mul, {f(OpKind::Mul, {v, v}), v});
        const int poly = f(OpKind::Add, {v, f(OpKind::Mul, {cube, k(0.044715)})});
        inner = f(OpKind::Tanh, {f(OpKind::Mul, {poly, k(std::sqrt(2.0 / std::numbers::pi))})});
      }
      return f(OpKind::Mul, {f(OpKind::Mul, {v, k(0.5)}), f(OpKind::Add, {inner, k(1.0)})});
    }
    case OpKind::Silu: {
      const int v = x(0);
      return f(OpKind::Div, {v, f(OpKind::Add, {f(OpKind::Exp, {f(OpKind::Neg, {v})}), k(1.0)})});
    }
    case OpKind::Softplus: {
      // x beta > threshold ? x : log1p(exp(x beta)) / beta
      const int v = x(0), beta = k(call.attr_scalar("beta").to_double());
      const int scaled = f(OpKind::Mul, {v, beta});
      const int soft = f(OpKind::Div, {f(OpKind::Log1p, {f(OpKind::Exp, {scaled})}), beta});
      const int big = b.compute(OpKind::Gt, {scaled, k(call.attr_scalar("threshold").to_double())}, DType::Bool);
      return f(OpKind::Where, {big, v, soft});
    }
    case OpKind::Elu: {
      // x <= 0 ? expm1(x input_scale) alpha scale : x scale
      const int v = x(0), scale = k(call.attr_scalar("scale").to_double());
      const int e = f(OpKind::Expm1, {f(OpKind::Mul, {v, k(call.attr_scalar("input_scale").to_double())})});
      const int negative = f(OpKind::Mul, {f(OpKind::Mul, {e, k(call.attr_scalar("alpha").to_double())}), scale});
      const int le = b.compute(OpKind::Le, {v, k(0.0)}, DType::Bool);
      return f(OpKind::Where, {le, negative, f(OpKind::Mul, {v, scale})});
    }
    case OpKind::LeakyRelu: {
      const int v = x(0);
      const int gt = b.compute(OpKind::Gt, {v, k(0.0)}, DType::Bool);
      return f(OpKind::Where, {gt, v, f(OpKind::Mul, {v, k(call.attr_scalar("negative_slope").to_double())})});
    }
    case OpKind::Lerp:
      return f(op, {x(0), x(1), x(2)});
    default:
      break;
  }
  if (compute_arity(op) == 1) {
    // A floating function of an integer reads the integer exactly (unary_operand_dtype).
    const DType own = n.operand(0).value->type().dtype;
    const bool exact = compute_domain(op, {}) == ComputeDomain::Float && !is_floating(own);
    return f(op, {exact ? operand(b, n, 0, own, c) : x(0)});
  }
  return f(op, {x(0), x(1)});  // remainder, fmod, atan2, bitwise ops, shifts, integer pow
}

}  // namespace kiln::lowering
