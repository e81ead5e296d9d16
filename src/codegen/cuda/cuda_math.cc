#include "codegen/cuda/cuda_math.h"

#include <vector>

#include "codegen/cpp/cpp_math.h"
#include "codegen/cpp/cpp_scalar.h"
#include "lower/compute_op.h"
#include "support/check.h"

namespace kiln::cuda {

namespace {

// CUDA's function `name` on `a`: its float form (`name` + "f") when `single`.
std::string fn(const char* name, bool single, const std::vector<std::string>& a) {
  std::string s = std::string(name) + (single ? "f(" : "(");
  for (size_t i = 0; i < a.size(); ++i) s += (i ? ", " : "") + a[i];
  return s + ")";
}

std::string infix(const std::vector<std::string>& a, const char* op) {
  return "(" + a[0] + " " + op + " " + a[1] + ")";
}

std::string helper(const char* name, const std::vector<std::string>& a) { return fn(name, false, a); }

// Where a result of dtype `out` computed in float (`single`) may come from the hardware's
// approximate functions (docs/CUDA_CODEGEN.md, "Approximate functions for half-precision
// results"): its value is only ever rounded to bf16's 8 or f16's 11 significant bits, so a bound
// of at most a quarter of half an ulp (2^-9 or 2^-12 relative at its smallest) is allowed: exp
// and sigmoid through ex2.approx (2^-16), tanh.approx (2^-10.987) for bf16 only.
bool approximate_exp(DType out, bool single) { return single && (out == DType::BF16 || out == DType::F16); }
bool approximate_tanh(DType out, bool single) { return single && out == DType::BF16; }

// `op` on its path (cpp_math.h's ComputeOperands): a floating expression in the compute type,
// an int64_t one, or a bool.
std::string op_expr(ComputeOp op, const cpp::ComputeOperands& x, DType out, const AttrMap& attrs) {
  const std::vector<std::string>& a = x.a;
  const bool fl = x.floating, single = x.single;
  const std::string one = single ? "1.0f" : "1.0", zero = single ? "0.0f" : "0.0";
  const std::string bits = std::to_string(out == DType::Bool ? 1 : dtype_size(out) * 8);
  switch (op) {
    case ComputeOp::Neg: return fl ? "(-" + a[0] + ")" : helper("kiln_wrap_neg", a);
    case ComputeOp::Abs:
      return fl ? fn("fabs", single, a) : "(" + a[0] + " < 0 ? kiln_wrap_neg(" + a[0] + ") : " + a[0] + ")";
    // NaN and -0 pass through, as torch's relu (a clamp at 0) passes them.
    case ComputeOp::Relu:
      return fl ? "(" + a[0] + " < " + zero + " ? " + zero + " : " + a[0] + ")"
                : "(" + a[0] + " > 0 ? " + a[0] + " : (int64_t)0)";
    case ComputeOp::Sign:
      if (!fl) return "((int64_t)(" + a[0] + " > 0) - (int64_t)(" + a[0] + " < 0))";
      return "(" + a[0] + " > " + zero + " ? " + one + " : (" + a[0] + " < " + zero + " ? -" + one + " : " + zero +
             "))";
    case ComputeOp::Floor: return fl ? fn("floor", single, a) : a[0];
    case ComputeOp::Ceil: return fl ? fn("ceil", single, a) : a[0];
    case ComputeOp::Round: return fl ? fn("rint", single, a) : a[0];  // half to even
    case ComputeOp::Trunc: return fl ? fn("trunc", single, a) : a[0];
    // Plain + - * are contracted into FMAs by NVCC unless written with the _rn intrinsics,
    // which round each op as the evaluator does.
    case ComputeOp::Add: return fl ? fn(single ? "__fadd_rn" : "__dadd_rn", false, a) : helper("kiln_wrap_add", a);
    case ComputeOp::Sub: return fl ? fn(single ? "__fsub_rn" : "__dsub_rn", false, a) : helper("kiln_wrap_sub", a);
    case ComputeOp::Mul: return fl ? fn(single ? "__fmul_rn" : "__dmul_rn", false, a) : helper("kiln_wrap_mul", a);
    case ComputeOp::Maximum:
      return fl ? helper("kiln_maximum", a) : "(" + a[0] + " < " + a[1] + " ? " + a[1] + " : " + a[0] + ")";
    case ComputeOp::Minimum:
      return fl ? helper("kiln_minimum", a) : "(" + a[1] + " < " + a[0] + " ? " + a[1] + " : " + a[0] + ")";
    case ComputeOp::Pow: return fl ? fn("pow", single, a) : helper("kiln_pow_i64", a);
    case ComputeOp::Remainder: return helper(fl ? "kiln_remainder" : "kiln_remainder_i64", a);
    case ComputeOp::Fmod: return fl ? fn("fmod", single, a) : helper("kiln_fmod_i64", a);
    case ComputeOp::Div: {
      if (!attrs.find("rounding_mode")) return infix(a, "/");
      if (!fl) return helper(cpp::floor_mode(attrs) ? "kiln_div_floor_i64" : "kiln_div_trunc_i64", a);
      const std::string rnd = cpp::rounding_function(out, single);
      if (cpp::floor_mode(attrs)) return "kiln_div_floor(" + a[0] + ", " + a[1] + ", " + rnd + ")";
      const std::string q = "(" + a[0] + " / " + a[1] + ")";
      return fn("trunc", single, {rnd == "kiln_keepf" || rnd == "kiln_keep" ? q : rnd + q});
    }
    case ComputeOp::Exp: return approximate_exp(out, single) ? helper("kiln_exp_approx", a) : fn("exp", single, a);
    case ComputeOp::Log: return fn("log", single, a);
    case ComputeOp::Log1p: return fn("log1p", single, a);
    case ComputeOp::Expm1: return fn("expm1", single, a);
    case ComputeOp::Sqrt: return fn("sqrt", single, a);
    case ComputeOp::Rsqrt: return "(" + one + " / " + fn("sqrt", single, a) + ")";
    case ComputeOp::Reciprocal: return "(" + one + " / " + a[0] + ")";
    case ComputeOp::Sin: return fn("sin", single, a);
    case ComputeOp::Cos: return fn("cos", single, a);
    case ComputeOp::Tan: return fn("tan", single, a);
    case ComputeOp::Atan: return fn("atan", single, a);
    case ComputeOp::Tanh: return approximate_tanh(out, single) ? helper("kiln_tanh_approx", a) : fn("tanh", single, a);
    case ComputeOp::Sigmoid:
      if (approximate_exp(out, single)) return helper("kiln_sigmoid_approx", a);
      if (single) return helper("kiln_sigmoid", a);  // f32: the rounded division without its branch
      return "(" + one + " / (" + one + " + " + fn("exp", single, {"-" + a[0]}) + "))";
    case ComputeOp::Erf: return fn("erf", single, a);
    case ComputeOp::Atan2: return fn("atan2", single, a);
    case ComputeOp::Lerp: return helper("kiln_lerp", a);
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
    // x - x is 0 for a finite x and NaN for inf and NaN.
    case ComputeOp::Isinf:
      return fl ? "(" + x.held[0] + " == " + x.held[0] + " && " + x.held[0] + " - " + x.held[0] + " != 0)" : "false";
    case ComputeOp::Isnan: return fl ? "(" + x.held[0] + " != " + x.held[0] + ")" : "false";
    case ComputeOp::Isfinite: return fl ? "(" + x.held[0] + " - " + x.held[0] + " == 0)" : "true";
    case ComputeOp::Eq: return infix(a, "==");
    case ComputeOp::Ne: return infix(a, "!=");
    case ComputeOp::Lt: return infix(a, "<");
    case ComputeOp::Le: return infix(a, "<=");
    case ComputeOp::Gt: return infix(a, ">");
    case ComputeOp::Ge: return infix(a, ">=");
    case ComputeOp::Where:
      return "(" + x.t[0] + " ? " + cpp::convert_value(x.held[1], x.dtypes[1], out) + " : " +
             cpp::convert_value(x.held[2], x.dtypes[2], out) + ")";
  }
  KILN_UNREACHABLE("bad compute op");
}

}  // namespace

std::string compute_expr(OpKind op, std::span<const std::string> args, std::span<const DType> arg_dtypes, DType out,
                         const AttrMap& attrs) {
  return cpp::compute_expr_with(op_expr, op, args, arg_dtypes, out, attrs);
}

}  // namespace kiln::cuda
