#include "codegen/cpp/cpp_math.h"

#include <vector>

#include "codegen/cpp/cpp_scalar.h"
#include "lower/compute_op.h"
#include "support/check.h"

namespace kiln::cpp {

bool floor_mode(const AttrMap& attrs) {
  const AttrValue* m = attrs.find("rounding_mode");
  return m && m->is_string() && m->as_string() == "floor";
}

std::string rounding_function(DType out, bool single) {
  switch (out) {
    case DType::F16: return single ? "kiln_f16_round" : "kiln_f16_round_d";
    case DType::BF16: return single ? "kiln_bf16_round" : "kiln_bf16_round_d";
    case DType::F32: return single ? "kiln_keepf" : "kiln_f32_round_d";
    default: return single ? "kiln_keepf" : "kiln_keep";
  }
}

namespace {

std::string call(const std::string& f, const std::vector<std::string>& a) {
  std::string s = f + "(";
  for (size_t i = 0; i < a.size(); ++i) s += (i ? ", " : "") + a[i];
  return s + ")";
}

bool held_in_float(DType t) { return value_type(t) == "float"; }

// x of dtype t in the floating compute type (float when `single`, else double).
std::string to_compute(const std::string& x, DType t, bool single) {
  if (single) return held_in_float(t) ? x : "(float)" + x;
  return t == DType::F64 ? x : "(double)" + x;
}

std::string infix(const std::vector<std::string>& a, const char* op) {
  return "(" + a[0] + " " + op + " " + a[1] + ")";
}

// `op` on its path: a floating expression in the compute type, an int64_t one, or a bool.
std::string op_expr(ComputeOp op, const ComputeOperands& x, DType out, const AttrMap& attrs) {
  const std::vector<std::string>& a = x.a;
  const bool fl = x.floating, single = x.single;
  const std::string one = single ? "1.0f" : "1.0", zero = single ? "0.0f" : "0.0";
  const std::string bits = std::to_string(out == DType::Bool ? 1 : dtype_size(out) * 8);
  switch (op) {
    case ComputeOp::Neg: return fl ? "(-" + a[0] + ")" : call("kiln_wrap_neg", a);
    case ComputeOp::Abs:
      return fl ? call("std::fabs", a) : "(" + a[0] + " < 0 ? kiln_wrap_neg(" + a[0] + ") : " + a[0] + ")";
    // NaN and -0 pass through (the comparison is false), as torch's relu, a clamp at 0, passes
    // them; one compare and a masked move when vectorized.
    case ComputeOp::Relu:
      return fl ? "(" + a[0] + " < " + zero + " ? " + zero + " : " + a[0] + ")"
                : "(" + a[0] + " > 0 ? " + a[0] + " : (int64_t)0)";
    // NaN and -0 give +0 (both comparisons are false).
    case ComputeOp::Sign:
      if (!fl) return "((int64_t)(" + a[0] + " > 0) - (int64_t)(" + a[0] + " < 0))";
      return "(" + a[0] + " > " + zero + " ? " + one + " : (" + a[0] + " < " + zero + " ? -" + one + " : " + zero +
             "))";
    case ComputeOp::Floor: return fl ? call("std::floor", a) : a[0];
    case ComputeOp::Ceil: return fl ? call("std::ceil", a) : a[0];
    case ComputeOp::Round: return fl ? call("std::nearbyint", a) : a[0];  // half to even in the default rounding mode
    case ComputeOp::Trunc: return fl ? call("std::trunc", a) : a[0];
    case ComputeOp::Add: return fl ? infix(a, "+") : call("kiln_wrap_add", a);
    case ComputeOp::Sub: return fl ? infix(a, "-") : call("kiln_wrap_sub", a);
    case ComputeOp::Mul: return fl ? infix(a, "*") : call("kiln_wrap_mul", a);
    case ComputeOp::Maximum:
      return fl ? call("kiln_maximum", a) : "(" + a[0] + " < " + a[1] + " ? " + a[1] + " : " + a[0] + ")";
    case ComputeOp::Minimum:
      return fl ? call("kiln_minimum", a) : "(" + a[1] + " < " + a[0] + " ? " + a[1] + " : " + a[0] + ")";
    case ComputeOp::Pow: return call(fl ? "kiln_pow" : "kiln_pow_i64", a);
    case ComputeOp::Remainder: return call(fl ? "kiln_remainder" : "kiln_remainder_i64", a);
    case ComputeOp::Fmod: return call(fl ? "std::fmod" : "kiln_fmod_i64", a);
    case ComputeOp::Div: {
      if (!attrs.find("rounding_mode")) return infix(a, "/");
      if (!fl) return call(floor_mode(attrs) ? "kiln_div_floor_i64" : "kiln_div_trunc_i64", a);
      const std::string rnd = rounding_function(out, single);
      if (floor_mode(attrs)) return "kiln_div_floor(" + a[0] + ", " + a[1] + ", " + rnd + ")";
      const std::string q = "(" + a[0] + " / " + a[1] + ")";
      return "std::trunc(" + (rnd == "kiln_keepf" || rnd == "kiln_keep" ? q : rnd + q) + ")";
    }
    case ComputeOp::Exp: return call(single ? "kiln_expf" : "std::exp", a);
    case ComputeOp::Log: return call("std::log", a);
    case ComputeOp::Log1p: return call(single ? "kiln_log1pf" : "std::log1p", a);
    case ComputeOp::Expm1: return call(single ? "kiln_expm1f" : "std::expm1", a);
    case ComputeOp::Sqrt: return call("std::sqrt", a);
    case ComputeOp::Rsqrt: return "(" + one + " / std::sqrt(" + a[0] + "))";
    case ComputeOp::Reciprocal: return "(" + one + " / " + a[0] + ")";
    case ComputeOp::Sin: return call("std::sin", a);
    case ComputeOp::Cos: return call("std::cos", a);
    case ComputeOp::Tan: return call("std::tan", a);
    case ComputeOp::Atan: return call("kiln_atan", a);
    case ComputeOp::Tanh: return call(single ? "kiln_tanhf" : "std::tanh", a);
    case ComputeOp::Sigmoid:
      return "(" + one + " / (" + one + (single ? " + kiln_expf(-" : " + std::exp(-") + a[0] + ")))";
    case ComputeOp::Erf: return call(single ? "kiln_erff" : "std::erf", a);
    case ComputeOp::Atan2: return call("std::atan2", a);
    case ComputeOp::Lerp: return call("kiln_lerp", a);
    case ComputeOp::BitwiseNot: return out == DType::Bool ? "(int64_t)(" + a[0] + " == 0)" : "(~" + a[0] + ")";
    case ComputeOp::BitwiseAnd: return infix(a, "&");
    case ComputeOp::BitwiseOr: return infix(a, "|");
    case ComputeOp::BitwiseXor: return infix(a, "^");
    case ComputeOp::BitwiseLeftShift: return "kiln_shl(" + a[0] + ", " + a[1] + ", " + bits + ")";
    case ComputeOp::BitwiseRightShift: return "kiln_shr(" + a[0] + ", " + a[1] + ", " + bits + ")";
    case ComputeOp::LogicalNot: return "(!" + x.t[0] + ")";
    case ComputeOp::LogicalAnd: return infix(x.t, "&&");
    case ComputeOp::LogicalOr: return infix(x.t, "||");
    case ComputeOp::LogicalXor: return infix(x.t, "!=");
    case ComputeOp::Isinf: return fl ? "std::isinf(" + x.held[0] + ")" : "false";
    case ComputeOp::Isnan: return fl ? "std::isnan(" + x.held[0] + ")" : "false";
    case ComputeOp::Isfinite: return fl ? "std::isfinite(" + x.held[0] + ")" : "true";
    case ComputeOp::Eq: return infix(a, "==");
    case ComputeOp::Ne: return infix(a, "!=");
    case ComputeOp::Lt: return infix(a, "<");
    case ComputeOp::Le: return infix(a, "<=");
    case ComputeOp::Gt: return infix(a, ">");
    case ComputeOp::Ge: return infix(a, ">=");
    case ComputeOp::Where:
      return "(" + x.t[0] + " ? " + convert_value(x.held[1], x.dtypes[1], out) + " : " +
             convert_value(x.held[2], x.dtypes[2], out) + ")";
  }
  KILN_UNREACHABLE("bad compute op");
}

}  // namespace

std::string compute_expr(OpKind op, std::span<const std::string> args, std::span<const DType> arg_dtypes, DType out,
                         const AttrMap& attrs) {
  return compute_expr_with(op_expr, op, args, arg_dtypes, out, attrs);
}

std::string compute_expr_with(ComputeOpPrinter print, OpKind op, std::span<const std::string> args,
                              std::span<const DType> arg_dtypes, DType out, const AttrMap& attrs) {
  const ComputeOp c = compute_op(op);
  KILN_CHECK(static_cast<int>(args.size()) == compute_op_arity(c) && args.size() == arg_dtypes.size())
      << "compute op with " << args.size() << " operands";
  bool any_floating = false, all_single = true;
  for (DType t : arg_dtypes) {
    any_floating = any_floating || is_floating(t);
    all_single = all_single && held_in_float(t);
  }
  const ComputeForm form = compute_op_form(c);
  const bool numeric = form == ComputeForm::Any || form == ComputeForm::Float || form == ComputeForm::Int;
  const ComputeDomain domain = compute_domain(op, attrs);
  ComputeOperands x;
  x.held = args;
  x.dtypes = arg_dtypes;
  x.floating = domain == ComputeDomain::Float || (any_floating && domain == ComputeDomain::Any);
  // Floating work is in float when every operand (and the result, if floating) is held in
  // float; in double otherwise (the evaluator's double, exact for integer operands).
  x.single = all_single && (held_in_float(out) || !is_floating(out));
  for (size_t i = 0; i < args.size(); ++i) {
    x.t.push_back(truth_value(args[i], arg_dtypes[i]));
    if (x.floating)
      x.a.push_back(to_compute(args[i], arg_dtypes[i], x.single));
    else if (!numeric)
      x.a.push_back(args[i]);  // an integer comparison compares values as held
    else
      x.a.push_back(arg_dtypes[i] == DType::Bool ? "(int64_t)" + args[i] : int64_value(args[i], arg_dtypes[i]));
  }
  const std::string e = print(c, x, out, attrs);
  if (!numeric) return e;
  if (!x.floating) return convert_value(e, DType::I64, out);  // a narrow integer wraps, a bool is 0 or 1
  const DType computed = x.single ? DType::F32 : DType::F64;
  if (!is_floating(out)) return convert_value(e, computed, out);
  // Floating results stay unrounded (f16 in float) until a cast or store, as in the evaluator.
  return value_type(out) == value_type(computed) ? e : "(" + std::string(value_type(out)) + ")" + e;
}

}  // namespace kiln::cpp
