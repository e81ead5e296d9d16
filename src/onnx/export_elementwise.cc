// Exporters of the elementwise ops: unary math and activations, binary arithmetic with
// kiln's (PyTorch's) type promotion, comparisons, logical and bitwise ops, where, clamp and
// the ternary arithmetic ops. Where ONNX's op differs from PyTorch's semantics (remainder's
// sign, integer floor division, NaN in max/min, softplus's threshold, elu's scales), the
// exporter writes the PyTorch semantics out of ONNX ops; docs/ONNX.md lists each.
#include <cmath>
#include <numbers>

#include "onnx/export_util.h"

namespace kiln::onnx {

namespace {

using Names = std::vector<std::string>;

// A node whose result is one ONNX op applied to its operands in the compute dtype.
OpExporter simple(const std::string& op_type, int arity) {
  return [op_type, arity](ExportContext& cx) {
    return compute_as_result(cx, arity, [&](ExportContext& c, const Names& x, DType) -> Expected<std::string> {
      return c.b.op(op_type, x);
    });
  };
}

// A node computed by `f` from its operands in the compute dtype.
OpExporter computed(int arity, std::function<std::string(OnnxBuilder&, const Names&, DType, const OpCallBase&)> f) {
  return [arity, f](ExportContext& cx) {
    return compute_as_result(cx, arity, [&](ExportContext& c, const Names& x, DType d) -> Expected<std::string> {
      return f(c.b, x, d, c.call);
    });
  };
}

// `simple` for ops ONNX Runtime implements in float32 only (Atan, Erf): a float64 result is
// computed in float32, within verify's tolerance but not float64-exact.
OpExporter simple_f32(const std::string& op_type) {
  return [op_type](ExportContext& cx) -> Expected<Names> {
    const DType out = cx.result_type().dtype;
    const DType c = DType::F32;
    return Names{cx.b.cast(cx.b.op(op_type, {cx.operand_as(0, c)}), c, out)};
  };
}

std::string sc(OnnxBuilder& b, double v, DType d) { return b.scalar(v, d); }

// Erf and Atan of dtype d; ONNX Runtime has them in float32 only, so float64 goes through it.
std::string f32_op(OnnxBuilder& b, const std::string& op, const std::string& x, DType d) {
  if (d != DType::F64) return b.op(op, {x});
  return b.cast(b.op(op, {b.cast(x, d, DType::F32)}), DType::F32, d);
}
std::string atan(OnnxBuilder& b, const std::string& x, DType d) { return f32_op(b, "Atan", x, d); }
std::string erf(OnnxBuilder& b, const std::string& x, DType d) { return f32_op(b, "Erf", x, d); }

// NaN when either operand is NaN (ONNX's Max and Min do not promise it), else op(a, b).
std::string nan_propagating(OnnxBuilder& b, const std::string& op, const Names& x, DType d) {
  const std::string r = b.op(op, {x[0], x[1]});
  if (!is_floating(d)) return r;
  const std::string nan = b.op("Or", {is_nan(b, x[0]), is_nan(b, x[1])});
  return where(b, nan, b.op("Add", {x[0], x[1]}), r);
}

// The dtype comparisons compare in: the promoted dtype of the operands (bool through i32:
// ONNX's Less and Greater take no bool), widened as compute_dtype.
DType comparison_dtype(const ExportContext& cx) {
  DType d = cx.dtype(0);
  if (cx.num_operands() > 1) {
    if (cx.is_value(1)) {
      const bool lhs_0d = cx.type(0).shape.rank() == 0, rhs_0d = cx.type(1).shape.rank() == 0;
      // A 0-d operand promotes only within its category (torch.result_type).
      const DType o = cx.dtype(1);
      const bool cross = is_floating(o) != is_floating(d) || (o == DType::Bool) != (d == DType::Bool);
      if (lhs_0d == rhs_0d || cross)
        d = promote_types(d, o);
      else if (lhs_0d)
        d = o;
    } else {
      const DType o = cx.dtype(1);
      if ((is_floating(o) && !is_floating(d)) || (d == DType::Bool && o != DType::Bool))
        d = is_floating(o) ? kDefaultFloat : DType::I64;
    }
  }
  d = compute_dtype(d);
  return d == DType::Bool ? DType::I32 : d;
}

OpExporter comparison(const std::string& op_type, bool negate) {
  return [op_type, negate](ExportContext& cx) -> Expected<Names> {
    DType d = comparison_dtype(cx);
    if (op_type == "Equal" && cx.dtype(0) == DType::Bool && cx.dtype(1) == DType::Bool) d = DType::Bool;
    std::string r = cx.b.op(op_type, {cx.operand_as(0, d), cx.operand_as(1, d)});
    if (negate) r = cx.b.op("Not", {r});
    return Names{r};
  };
}

OpExporter logical(const std::string& op_type) {
  return [op_type](ExportContext& cx) -> Expected<Names> {
    return Names{cx.b.op(op_type, {cx.operand_as(0, DType::Bool), cx.operand_as(1, DType::Bool)})};
  };
}

// bitwise_and/or/xor: And/Or/Xor on bools; BitwiseAnd/... from opset 18 on integers.
OpExporter bitwise(const std::string& bool_op, const std::string& int_op) {
  return [bool_op, int_op](ExportContext& cx) -> Expected<Names> {
    const DType d = cx.result_type().dtype;
    if (d == DType::Bool) return Names{cx.b.op(bool_op, {cx.operand_as(0, d), cx.operand_as(1, d)})};
    if (cx.opset < 18)
      return make_error(cx.call.name(), " on ", dtype_name(d), " needs ONNX opset 18 (", int_op, "); opset ", cx.opset,
                        " has it for bool only");
    return Names{cx.b.op(int_op, {cx.operand_as(0, d), cx.operand_as(1, d)})};
  };
}

// Shifts of integers, as kiln's kernels shift: a << n wraps (0 once n reaches the width),
// a >> n is arithmetic for signed dtypes (the sign once n reaches width - 1) and logical for
// u8 (0 once n reaches 8). The compute dtype may be wider than the result (i32 for i8): the
// width is the result's.
Expected<Names> shift(ExportContext& cx, bool left) {
  const DType out = cx.result_type().dtype;
  if (!is_integral(out)) return make_error(cx.call.name(), " of ", dtype_name(out), " has no ONNX mapping");
  const DType d = compute_dtype(out);
  OnnxBuilder& b = cx.b;
  const std::string a = cx.operand_as(0, d), n = cx.operand_as(1, d);
  const int64_t bits = 8 * dtype_size(out);
  const std::string zero = b.scalar(0, d);
  // 2^min(n, cap) for 0 <= n; negative shift amounts count as wide (kiln shifts unsigned).
  auto pow2 = [&](int64_t cap) {
    const std::string m = b.op("Max", {b.op("Min", {n, b.scalar(static_cast<double>(cap), d)}), zero});
    return b.op("Pow", {b.scalar(2, d), m});
  };
  auto wide = [&](int64_t limit) {
    return b.op("Or", {b.op("GreaterOrEqual", {n, b.scalar(static_cast<double>(limit), d)}), b.op("Less", {n, zero})});
  };
  std::string r;
  if (left) {
    r = where(b, wide(bits), zero, b.op("Mul", {a, pow2(bits - 1)}));
  } else if (is_signed(out)) {
    const std::string sign = where(b, b.op("Less", {a, zero}), b.scalar(-1, d), zero);
    r = where(b, wide(bits - 1), sign, int_floor_div(b, a, pow2(bits - 2)));
  } else {
    r = where(b, wide(bits), zero, int_floor_div(b, a, pow2(bits - 1)));
  }
  return Names{b.cast(r, d, out)};
}

// PyTorch's floor division of floats (div_floor_floating): through fmod, so that the result
// is the exactly rounded floor; x / 0 stays x / 0 (inf or NaN).
std::string float_floor_div(OnnxBuilder& b, const std::string& a, const std::string& y, DType d) {
  const std::string zero = b.scalar(0, d), one = b.scalar(1, d);
  const std::string mod = b.op("Mod", {a, y}, {{"fmod", int64_t{1}}});
  std::string q = b.op("Div", {b.op("Sub", {a, mod}), y});
  const std::string adjust = b.op("And", {b.op("Not", {b.op("Equal", {mod, zero})}),
                                          b.op("Xor", {b.op("Less", {y, zero}), b.op("Less", {mod, zero})})});
  q = where(b, adjust, b.op("Sub", {q, one}), q);
  std::string fl = b.op("Floor", {q});
  fl = where(b, b.op("Greater", {b.op("Sub", {q, fl}), b.scalar(0.5, d)}), b.op("Add", {fl, one}), fl);
  fl = where(b, b.op("Equal", {q, zero}), zero, fl);
  // The result has a / y's sign (a zero quotient is copysign(0, a / y) in PyTorch's).
  const std::string ratio = b.op("Div", {a, y});
  return copysign(b, where(b, b.op("Equal", {y, zero}), ratio, fl), ratio, d);
}

Expected<Names> div(ExportContext& cx) {
  const std::optional<std::string> mode = cx.call.attr_opt_str("rounding_mode");
  const DType out = cx.result_type().dtype;
  const DType c = compute_dtype(out);
  const std::string a = cx.operand_as(0, c), b = cx.operand_as(1, c);
  std::string r;
  if (!mode) {
    r = cx.b.op("Div", {a, b});
  } else if (is_floating(c)) {
    const std::string q = cx.b.op("Div", {a, b});
    r = *mode == "floor" ? float_floor_div(cx.b, a, b, c) : trunc(cx.b, q, c);
  } else {
    r = *mode == "floor" ? int_floor_div(cx.b, a, b) : cx.b.op("Div", {a, b});  // ONNX's integer Div truncates
  }
  return Names{cx.b.cast(r, c, out)};
}

// a + alpha * b (sub: a - alpha * b). A bool result takes alpha as a bool, as PyTorch (and the
// reference kernel): a or (alpha and b), so alpha = -1 adds like 1.
OpExporter add_sub(const std::string& op_type) {
  return [op_type](ExportContext& cx) {
    const bool bool_result = cx.result_type().dtype == DType::Bool;
    return compute_as_result(cx, 2, [&](ExportContext& c, const Names& x, DType d) -> Expected<std::string> {
      Scalar alpha = c.call.attr_scalar("alpha");
      if (bool_result) alpha = Scalar(int64_t{alpha.to_double() != 0.0 ? 1 : 0});
      std::string y = x[1];
      if (alpha.to_double() != 1.0) y = c.b.op("Mul", {y, c.b.constant(Tensor::full({}, alpha, d))});
      return c.b.op(op_type, {x[0], y});
    });
  };
}

std::string remainder(OnnxBuilder& b, const Names& x, DType d) {
  if (!is_floating(d)) return b.op("Mod", {x[0], x[1]}, {{"fmod", int64_t{0}}});
  // fmod, then moved into the divisor's sign as Python's % does.
  const std::string r = b.op("Mod", {x[0], x[1]}, {{"fmod", int64_t{1}}});
  const std::string zero = sc(b, 0, d);
  const std::string differ = b.op("Xor", {b.op("Less", {r, zero}), b.op("Less", {x[1], zero})});
  const std::string fix = b.op("And", {b.op("Not", {b.op("Equal", {r, zero})}), differ});
  return where(b, fix, b.op("Add", {r, x[1]}), r);
}

// atan2 as C's at every edge point: atan(y / x), or pi - |atan(y / x)| where x's sign bit is
// set (x < 0, x = -0 or -inf), with y's sign, as the result has. y / x is y itself (a zero) where
// both are zeros, and +-1 where both are infinite (giving +-pi/4 or +-3pi/4); NaN propagates
// through the division.
std::string atan2(OnnxBuilder& b, const Names& x, DType d) {
  const std::string& y = x[0];
  const std::string& xx = x[1];
  const std::string zero = sc(b, 0, d), pi = sc(b, std::numbers::pi, d);
  const std::string both_zero = b.op("And", {b.op("Equal", {y, zero}), b.op("Equal", {xx, zero})});
  const std::string both_inf = b.op("And", {b.op("IsInf", {y}), b.op("IsInf", {xx})});
  const std::string ratio = where(
      b, both_zero, y, where(b, both_inf, b.op("Mul", {b.op("Sign", {y}), b.op("Sign", {xx})}), b.op("Div", {y, xx})));
  const std::string base = atan(b, ratio, d);
  return copysign(b, where(b, sign_bit(b, xx, d), b.op("Sub", {pi, b.op("Abs", {base})}), base), y, d);
}

std::string gelu(OnnxBuilder& b, const Names& x, DType d, const OpCallBase& call) {
  const std::string half_x = b.op("Mul", {x[0], sc(b, 0.5, d)});
  std::string inner;
  if (call.attr_str("approximate") == "tanh") {
    const std::string cube = b.op("Mul", {b.op("Mul", {x[0], x[0]}), x[0]});
    const std::string poly = b.op("Add", {x[0], b.op("Mul", {cube, sc(b, 0.044715, d)})});
    inner = b.op("Tanh", {b.op("Mul", {poly, sc(b, std::sqrt(2.0 / std::numbers::pi), d)})});
  } else {
    inner = erf(b, b.op("Mul", {x[0], sc(b, 1.0 / std::numbers::sqrt2, d)}), d);
  }
  return b.op("Mul", {half_x, b.op("Add", {inner, sc(b, 1, d)})});
}

// expm1 without losing small x (Kahan: (u - 1) * x / log(u) with u = exp(x)).
std::string expm1(OnnxBuilder& b, const std::string& x, DType d) {
  const std::string one = sc(b, 1, d);
  const std::string u = b.op("Exp", {x});
  const std::string um1 = b.op("Sub", {u, one});
  const std::string scaled = b.op("Div", {b.op("Mul", {um1, x}), b.op("Log", {u})});
  const std::string exact = b.op("Or", {b.op("Equal", {u, one}), b.op("Equal", {um1, sc(b, -1, d)})});
  const std::string big = b.op("IsInf", {u}, {{"detect_negative", int64_t{0}}});
  // The result has x's sign.
  return copysign(b, where(b, b.op("Equal", {u, one}), x, where(b, b.op("Or", {exact, big}), um1, scaled)), x, d);
}

std::string softplus(OnnxBuilder& b, const Names& x, DType d, const OpCallBase& call) {
  const std::string beta = b.constant(Tensor::full({}, call.attr_scalar("beta"), d));
  const std::string threshold = b.constant(Tensor::full({}, call.attr_scalar("threshold"), d));
  const std::string bx = b.op("Mul", {x[0], beta});
  // log1p(exp(bx)) / beta, or x where bx > threshold.
  const std::string soft = b.op("Div", {log1p(b, b.op("Exp", {bx}), d), beta});
  return where(b, b.op("Greater", {bx, threshold}), x[0], soft);
}

std::string elu(OnnxBuilder& b, const Names& x, DType d, const OpCallBase& call) {
  const std::string alpha = b.constant(Tensor::full({}, call.attr_scalar("alpha"), d));
  const std::string scale = b.constant(Tensor::full({}, call.attr_scalar("scale"), d));
  const std::string in_scale = b.constant(Tensor::full({}, call.attr_scalar("input_scale"), d));
  const std::string neg = b.op("Mul", {b.op("Mul", {alpha, scale}), expm1(b, b.op("Mul", {x[0], in_scale}), d)});
  const std::string pos = b.op("Mul", {x[0], scale});
  // NaN stays NaN (the compare is false, and expm1(NaN) is NaN).
  return where(b, b.op("Greater", {x[0], sc(b, 0, d)}), pos, neg);
}

// A NaN bound makes every element NaN, as kiln's min(max(x, lo), hi) does.
std::string clip(OnnxBuilder& b, const std::string& x, DType d, const Scalar& lo, const Scalar& hi) {
  const bool nan_bound = (!lo.is_none() && std::isnan(lo.to_double())) || (!hi.is_none() && std::isnan(hi.to_double()));
  if (nan_bound && is_floating(d)) return b.op("Add", {x, sc(b, std::nan(""), d)});
  Names in{x, lo.is_none() ? "" : b.constant(Tensor::full({}, lo, d))};
  if (!hi.is_none()) in.push_back(b.constant(Tensor::full({}, hi, d)));
  return b.op("Clip", in);
}

// Integer pow with a negative exponent is 1 for base 1, +-1 for base -1, else 0 (kiln, as
// PyTorch); ONNX's integer Pow leaves it undefined.
std::string pow(OnnxBuilder& b, const Names& x, DType d) {
  if (is_floating(d)) return b.op("Pow", {x[0], x[1]});
  // Integer powers wrap as kiln's repeated multiplication does; ONNX Runtime's integer Pow
  // goes through double and saturates. Square-and-multiply over every exponent bit.
  const std::string two = sc(b, 2, d), one_ = sc(b, 1, d);
  std::string r = one_, p = x[0], e = b.op("Max", {x[1], sc(b, 0, d)});
  for (int bit = 0; bit < 8 * dtype_size(d) - 1; ++bit) {
    const std::string odd = b.op("Equal", {b.op("Mod", {e, two}, {{"fmod", int64_t{0}}}), one_});
    r = where(b, odd, b.op("Mul", {r, p}), r);
    p = b.op("Mul", {p, p});
    e = b.op("Div", {e, two});
  }
  const std::string zero = sc(b, 0, d), one = sc(b, 1, d), minus_one = sc(b, -1, d);
  const std::string even = b.op("Equal", {b.op("Mod", {x[1], sc(b, 2, d)}, {{"fmod", int64_t{0}}}), zero});
  const std::string special = where(b, b.op("Equal", {x[0], one}), one,
                                    where(b, b.op("Equal", {x[0], minus_one}), where(b, even, one, minus_one), zero));
  return where(b, b.op("Less", {x[1], zero}), special, r);
}

// lerp in PyTorch's two-sided form, as kiln's kernel (elementwise_scalar.h): from self for
// |weight| < 0.5, from end otherwise, so it is exact at weight 0 and 1 and an infinite self
// at weight >= 0.5 gives inf, not inf - inf.
std::string lerp(OnnxBuilder& b, const Names& x, DType d, const OpCallBase&) {
  const std::string &self = x[0], &end = x[1], &weight = x[2];
  const std::string diff = b.op("Sub", {end, self});
  const std::string from_self = b.op("Add", {self, b.op("Mul", {weight, diff})});
  const std::string from_end = b.op("Sub", {end, b.op("Mul", {diff, b.op("Sub", {sc(b, 1, d), weight})})});
  return where_keeping_zero_sign(b, b.op("Less", {b.op("Abs", {weight}), sc(b, 0.5, d)}), from_self, from_end, d);
}

std::string round(OnnxBuilder& b, const Names& x, DType d, const OpCallBase& call) {
  const int64_t decimals = call.attr_int("decimals");
  if (!is_floating(d)) return b.op("Identity", {x[0]});
  if (decimals == 0) return b.op("Round", {x[0]});
  const std::string scale = sc(b, std::pow(10.0, static_cast<double>(decimals)), d);
  return b.op("Div", {b.op("Round", {b.op("Mul", {x[0], scale})}), scale});
}

}  // namespace

std::vector<OpExporterEntry> elementwise_exporters() {
  using B = OnnxBuilder;
  std::vector<OpExporterEntry> t = {
      {OpKind::Neg, simple("Neg", 1)},
      {OpKind::Abs, simple("Abs", 1)},
      {OpKind::Exp, simple("Exp", 1)},
      {OpKind::Log, simple("Log", 1)},
      {OpKind::Log1p, computed(1, [](B& b, const Names& x, DType d, const OpCallBase&) { return log1p(b, x[0], d); })},
      {OpKind::Expm1, computed(1, [](B& b, const Names& x, DType d, const OpCallBase&) { return expm1(b, x[0], d); })},
      {OpKind::Sqrt, simple("Sqrt", 1)},
      {OpKind::Rsqrt, computed(1, [](B& b, const Names& x, DType, const OpCallBase&) {
         return b.op("Reciprocal", {b.op("Sqrt", {x[0]})});
       })},
      {OpKind::Reciprocal, simple("Reciprocal", 1)},
      {OpKind::Sin, simple("Sin", 1)},
      {OpKind::Cos, simple("Cos", 1)},
      {OpKind::Tan, computed(1, [](B& b, const Names& x, DType d, const OpCallBase&) {
         // ONNX Runtime's Tan is float32 only: float64 as sin / cos keeps its precision (a
         // float32 argument of 1e30 is another angle).
         if (d == DType::F64) return b.op("Div", {b.op("Sin", {x[0]}), b.op("Cos", {x[0]})});
         return b.op("Tan", {x[0]});
       })},
      {OpKind::Atan, simple_f32("Atan")},
      {OpKind::Tanh, simple("Tanh", 1)},
      {OpKind::Sigmoid, simple("Sigmoid", 1)},
      {OpKind::Relu, computed(1, [](B& b, const Names& x, DType d, const OpCallBase&) {
         if (d == DType::U8 || d == DType::Bool) return b.op("Identity", {x[0]});
         return b.op("Relu", {x[0]});
       })},
      {OpKind::Gelu, computed(1, gelu)},
      {OpKind::Silu, computed(1, [](B& b, const Names& x, DType, const OpCallBase&) {
         return b.op("Mul", {x[0], b.op("Sigmoid", {x[0]})});
       })},
      {OpKind::Erf, simple_f32("Erf")},
      {OpKind::Sign, computed(1, [](B& b, const Names& x, DType d, const OpCallBase&) {
         const std::string r = b.op("Sign", {x[0]});
         return is_floating(d) ? where(b, is_nan(b, x[0]), sc(b, 0, d), r) : r;  // sign(NaN) is 0 in kiln
       })},
      {OpKind::Floor, computed(1, [](B& b, const Names& x, DType d, const OpCallBase&) {
         return is_floating(d) ? b.op("Floor", {x[0]}) : b.op("Identity", {x[0]});
       })},
      {OpKind::Ceil, computed(1, [](B& b, const Names& x, DType d, const OpCallBase&) {
         return is_floating(d) ? b.op("Ceil", {x[0]}) : b.op("Identity", {x[0]});
       })},
      {OpKind::Round, computed(1, round)},
      {OpKind::Trunc, computed(1, [](B& b, const Names& x, DType d, const OpCallBase&) {
         return is_floating(d) ? trunc(b, x[0], d) : b.op("Identity", {x[0]});
       })},
      {OpKind::LogicalNot,
       [](ExportContext& cx) -> Expected<Names> { return Names{cx.b.op("Not", {cx.operand_as(0, DType::Bool)})}; }},
      {OpKind::Isnan,
       [](ExportContext& cx) -> Expected<Names> { return Names{is_nan(cx.b, cx.operand_as(0, compute_dtype(cx.dtype(0))))}; }},
      {OpKind::Isinf, [](ExportContext& cx) -> Expected<Names> {
         const std::string x = cx.operand_as(0, compute_dtype(cx.dtype(0)));
         if (!is_floating(cx.dtype(0))) return Names{is_nan(cx.b, x)};  // integers are never inf: all false
         return Names{cx.b.op("IsInf", {x})};
       }},
      {OpKind::Isfinite, [](ExportContext& cx) -> Expected<Names> {
         const std::string x = cx.operand_as(0, compute_dtype(cx.dtype(0)));
         if (!is_floating(cx.dtype(0))) return Names{cx.b.op("Equal", {x, x})};
         return Names{cx.b.op("Not", {cx.b.op("Or", {cx.b.op("IsInf", {x}), is_nan(cx.b, x)})})};
       }},
      {OpKind::BitwiseNot, [](ExportContext& cx) -> Expected<Names> {
         if (cx.result_type().dtype == DType::Bool) return Names{cx.b.op("Not", {cx.operand_as(0, DType::Bool)})};
         return compute_as_result(cx, 1, [](ExportContext& c, const Names& x, DType d) -> Expected<std::string> {
           return c.b.op("Sub", {sc(c.b, -1, d), x[0]});  // ~x == -1 - x in two's complement, wrapped on the cast
         });
       }},
      {OpKind::LeakyRelu, computed(1, [](B& b, const Names& x, DType, const OpCallBase& call) {
         return b.op("LeakyRelu", {x[0]}, {{"alpha", call.attr_scalar("negative_slope").to_double()}});
       })},
      {OpKind::Softplus, computed(1, softplus)},
      {OpKind::Elu, computed(1, elu)},
      {OpKind::Hardtanh, computed(1, [](B& b, const Names& x, DType d, const OpCallBase& call) {
         return clip(b, x[0], d, call.attr_scalar("min_val"), call.attr_scalar("max_val"));
       })},
      {OpKind::Add, add_sub("Add")},
      {OpKind::Sub, add_sub("Sub")},
      {OpKind::Mul, simple("Mul", 2)},
      {OpKind::Div, div},
      {OpKind::Pow, computed(2, [](B& b, const Names& x, DType d, const OpCallBase&) { return pow(b, x, d); })},
      {OpKind::Maximum, computed(2, [](B& b, const Names& x, DType d, const OpCallBase&) {
         return nan_propagating(b, "Max", x, d);
       })},
      {OpKind::Minimum, computed(2, [](B& b, const Names& x, DType d, const OpCallBase&) {
         return nan_propagating(b, "Min", x, d);
       })},
      {OpKind::Remainder, computed(2, [](B& b, const Names& x, DType d, const OpCallBase&) { return remainder(b, x, d); })},
      {OpKind::Fmod, computed(2, [](B& b, const Names& x, DType, const OpCallBase&) {
         return b.op("Mod", {x[0], x[1]}, {{"fmod", int64_t{1}}});
       })},
      {OpKind::Atan2, computed(2, [](B& b, const Names& x, DType d, const OpCallBase&) { return atan2(b, x, d); })},
      {OpKind::Eq, comparison("Equal", false)},
      {OpKind::Ne, comparison("Equal", true)},
      {OpKind::Lt, comparison("Less", false)},
      {OpKind::Le, comparison("LessOrEqual", false)},
      {OpKind::Gt, comparison("Greater", false)},
      {OpKind::Ge, comparison("GreaterOrEqual", false)},
      {OpKind::LogicalAnd, logical("And")},
      {OpKind::LogicalOr, logical("Or")},
      {OpKind::LogicalXor, logical("Xor")},
      {OpKind::BitwiseAnd, bitwise("And", "BitwiseAnd")},
      {OpKind::BitwiseOr, bitwise("Or", "BitwiseOr")},
      {OpKind::BitwiseXor, bitwise("Xor", "BitwiseXor")},
      {OpKind::BitwiseLeftShift, [](ExportContext& cx) { return shift(cx, true); }},
      {OpKind::BitwiseRightShift, [](ExportContext& cx) { return shift(cx, false); }},
      {OpKind::Where, [](ExportContext& cx) -> Expected<Names> {
         const DType out = cx.result_type().dtype;
         const DType c = compute_dtype(out);
         const std::string r = where(cx.b, cx.operand_as(0, DType::Bool), cx.operand_as(1, c), cx.operand_as(2, c));
         return Names{cx.b.cast(r, c, out)};
       }},
      {OpKind::Clamp, computed(1, [](B& b, const Names& x, DType d, const OpCallBase& call) {
         return clip(b, x[0], d, call.attr_scalar("min"), call.attr_scalar("max"));
       })},
      {OpKind::Lerp, computed(3, lerp)},
      {OpKind::Addcmul, computed(3, [](B& b, const Names& x, DType d, const OpCallBase& call) {
         const std::string value = b.constant(Tensor::full({}, call.attr_scalar("value"), d));
         return b.op("Add", {x[0], b.op("Mul", {value, b.op("Mul", {x[1], x[2]})})});
       })},
      {OpKind::Addcdiv, computed(3, [](B& b, const Names& x, DType d, const OpCallBase& call) {
         const std::string value = b.constant(Tensor::full({}, call.attr_scalar("value"), d));
         return b.op("Add", {x[0], b.op("Mul", {value, b.op("Div", {x[1], x[2]})})});
       })},
  };
  return t;
}

}  // namespace kiln::onnx
