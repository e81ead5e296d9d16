// Lowering of the elementwise ops that are compositions of the loop IR's compute ops: clamp,
// hardtanh, addcmul, addcdiv and the activations (gelu, silu, softplus, elu, leaky_relu), which
// the CPU backend decomposes first but which lower directly as well. What stays an extern
// kernel is what its reference kernel reports as an error (addcmul of bools, gelu's unknown
// approximate).
#include <cmath>
#include <numbers>

#include "lower/lowering.h"
#include "ops/op_call.h"
#include "support/check.h"

namespace kiln::lowering {

namespace {

bool is_composite_op(OpKind op) {
  switch (op) {
    case OpKind::Clamp:
    case OpKind::Hardtanh:
    case OpKind::Addcmul:
    case OpKind::Addcdiv:
    case OpKind::Gelu:
    case OpKind::Silu:
    case OpKind::Softplus:
    case OpKind::Elu:
    case OpKind::LeakyRelu: return true;
    default: return false;
  }
}

}  // namespace

bool Lowering::lowers_as_composite(const Node& n, OpKind op, DType r) {
  const OpCallBase call(op, n.attrs());
  switch (op) {
    case OpKind::Addcmul: return r != DType::Bool;
    case OpKind::Gelu: {
      const std::string approximate = call.attr_str("approximate");
      return approximate == "none" || approximate == "tanh";
    }
    default: return is_composite_op(op);
  }
}

int Lowering::emit_composite(BodyBuilder& b, const Node& n, OpKind op, DType r, const std::vector<IndexExpr>& c) {
  const OpCallBase call(op, n.attrs());
  auto x = [&](int i) { return operand(b, n, i, r, c); };
  auto k = [&](double v) { return b.constant(Scalar(v), r); };
  auto f = [&](OpKind o, std::vector<int> args) { return b.compute(o, std::move(args), r); };
  auto i64 = [&](const Scalar& v) { return b.constant(Scalar(v.to_int()), DType::I64); };
  switch (op) {
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
    case OpKind::Addcmul:
    case OpKind::Addcdiv: {
      // self + value * t1 * t2 (in that order: t1 * t2 alone may overflow where the result
      // does not), or self + value * (t1 / t2); an integer value truncated.
      const Scalar value = call.attr_scalar("value");
      const int self = x(0);
      auto scaled = [&](int t) {
        if (value == Scalar(int64_t{1})) return t;
        return f(OpKind::Mul, {is_floating(r) ? k(value.to_double()) : i64(value), t});
      };
      const int term =
          op == OpKind::Addcmul ? f(OpKind::Mul, {scaled(x(1)), x(2)}) : scaled(f(OpKind::Div, {x(1), x(2)}));
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
    default: break;
  }
  KILN_UNREACHABLE("not a composite op");
}

}  // namespace kiln::lowering
