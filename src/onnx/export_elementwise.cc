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

std::string sc(OnnxBuilder& b, double v, DType d) { return b.scalar(v, d); }

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
      if (lhs_0d == rhs_0d || cross) d = promote_types(d, o);
      else if (lhs_0d) d = o;
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

// 2^n as the integer dtype d, for shift amounts n (0 <= n < bits).
std::string pow2(OnnxBuilder& b, const std::string& n, DType d) {
  const std::string f = b.op("Pow", {b.scalar(2, DType::F64), b.cast(n, d, DType::F64)});
  return b.cast(f, DType::F64, d);
}

Expected<Names> shift(ExportContext& cx, bool left) {
  const DType d = cx.result_type().dtype;
  if (!is_integral(d)) return make_error(cx.call.name(), " of ", dtype_name(d), " has no ONNX mapping");
  const std::string a = cx.operand_as(0, d), n = cx.operand_as(1, d);
  if (left) return Names{cx.b.op("Mul", {a, pow2(cx.b, n, d)})};  // wraps as PyTorch's shift does
  return Names{int_floor_div(cx.b, a, pow2(cx.b, n, d))};          // arithmetic shift: floor(a / 2^n)
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
    r = *mode == "floor" ? cx.b.op("Floor", {q}) : trunc(cx.b, q, c);
  } else {
    r = *mode == "floor" ? int_floor_div(cx.b, a, b) : cx.b.op("Div", {a, b});  // ONNX's integer Div truncates
  }
  return Names{cx.b.cast(r, c, out)};
}

// a + alpha * b (sub: a - alpha * b).
OpExporter add_sub(const std::string& op_type) {
  return computed(2, [op_type](OnnxBuilder& b, const Names& x, DType d, const OpCallBase& call) {
    const Scalar alpha = call.attr_scalar("alpha");
    std::string y = x[1];
    if (alpha.to_double() != 1.0) y = b.op("Mul", {y, b.constant(Tensor::full({}, alpha, d))});
    return b.op(op_type, {x[0], y});
  });
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

std::string atan2(OnnxBuilder& b, const Names& x, DType d) {
  const std::string& y = x[0];
  const std::string& xx = x[1];
  const std::string zero = sc(b, 0, d), pi = sc(b, std::numbers::pi, d), half_pi = sc(b, std::numbers::pi / 2, d);
  const std::string base = b.op("Atan", {b.op("Div", {y, xx})});
  const std::string y_neg = b.op("Less", {y, zero});
  const std::string left = b.op("Add", {base, where(b, y_neg, b.op("Neg", {pi}), pi)});
  const std::string on_axis =
      where(b, b.op("Greater", {y, zero}), half_pi, where(b, y_neg, b.op("Neg", {half_pi}), zero));
  return where(b, b.op("Greater", {xx, zero}), base, where(b, b.op("Less", {xx, zero}), left, on_axis));
}

std::string gelu(OnnxBuilder& b, const Names& x, DType d, const OpCallBase& call) {
  const std::string half_x = b.op("Mul", {x[0], sc(b, 0.5, d)});
  std::string inner;
  if (call.attr_str("approximate") == "tanh") {
    const std::string cube = b.op("Mul", {b.op("Mul", {x[0], x[0]}), x[0]});
    const std::string poly = b.op("Add", {x[0], b.op("Mul", {cube, sc(b, 0.044715, d)})});
    inner = b.op("Tanh", {b.op("Mul", {poly, sc(b, std::sqrt(2.0 / std::numbers::pi), d)})});
  } else {
    inner = b.op("Erf", {b.op("Mul", {x[0], sc(b, 1.0 / std::numbers::sqrt2, d)})});
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
  return where(b, b.op("Equal", {u, one}), x, where(b, b.op("Or", {exact, big}), um1, scaled));
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

std::string clip(OnnxBuilder& b, const std::string& x, DType d, const Scalar& lo, const Scalar& hi) {
  Names in{x, lo.is_none() ? "" : b.constant(Tensor::full({}, lo, d))};
  if (!hi.is_none()) in.push_back(b.constant(Tensor::full({}, hi, d)));
  return b.op("Clip", in);
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
      {OpKind::Tan, simple("Tan", 1)},
      {OpKind::Atan, simple("Atan", 1)},
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
      {OpKind::Erf, simple("Erf", 1)},
      {OpKind::Sign, simple("Sign", 1)},
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
      {OpKind::BitwiseNot, computed(1, [](B& b, const Names& x, DType d, const OpCallBase&) {
         if (d == DType::Bool) return b.op("Not", {x[0]});
         return b.op("Sub", {sc(b, -1, d), x[0]});  // ~x == -1 - x in two's complement (255 - x for u8)
       })},
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
      {OpKind::Pow, simple("Pow", 2)},
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
      {OpKind::Lerp, computed(3, [](B& b, const Names& x, DType, const OpCallBase&) {
         return b.op("Add", {x[0], b.op("Mul", {x[2], b.op("Sub", {x[1], x[0]})})});
       })},
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
