#include "onnx/export_util.h"

namespace kiln::onnx {

DType compute_dtype(DType result) {
  switch (result) {
    case DType::F16:
    case DType::BF16: return DType::F32;
    case DType::Bool:
    case DType::U8:
    case DType::I8:
    case DType::I16: return DType::I32;
    default: return result;
  }
}

Expected<std::vector<std::string>> compute_as_result(ExportContext& cx, int num_operands, const ComputeFn& f) {
  const DType out = cx.result_type().dtype;
  const DType c = compute_dtype(out);
  std::vector<std::string> xs;
  for (int i = 0; i < num_operands; ++i) xs.push_back(cx.operand_as(i, c));
  KILN_ASSIGN_OR_RETURN(std::string r, f(cx, xs, c));
  return std::vector<std::string>{cx.b.cast(r, c, out)};
}

std::string where(OnnxBuilder& b, const std::string& cond, const std::string& x, const std::string& y) {
  return b.op("Where", {cond, x, y});
}

std::string is_nan(OnnxBuilder& b, const std::string& x) { return b.op("Not", {b.op("Equal", {x, x})}); }

std::string sign_bit(OnnxBuilder& b, const std::string& x, DType d) {
  const std::string zero = b.scalar(0, d);
  return b.op("Or", {b.op("Less", {x, zero}), b.op("Less", {b.op("Reciprocal", {x}), zero})});
}

std::string where_keeping_zero_sign(OnnxBuilder& b, const std::string& cond, const std::string& x, const std::string& y,
                                    DType d) {
  const std::string x_is_negative_zero = b.op("And", {b.op("Equal", {x, b.scalar(0, d)}), sign_bit(b, x, d)});
  const std::string flip = where(b, b.op("And", {cond, x_is_negative_zero}), b.scalar(-1, d), b.scalar(1, d));
  return b.op("Mul", {where(b, cond, x, y), flip});
}

std::string copysign(OnnxBuilder& b, const std::string& magnitude, const std::string& sign_of, DType d) {
  const std::string sign = where(b, sign_bit(b, sign_of, d), b.scalar(-1, d), b.scalar(1, d));
  return b.op("Mul", {b.op("Abs", {magnitude}), sign});
}

std::string int_floor_div(OnnxBuilder& b, const std::string& a, const std::string& bb) {
  const std::string rem = b.op("Mod", {a, bb}, {{"fmod", int64_t{0}}});  // the divisor's sign: exact
  return b.op("Div", {b.op("Sub", {a, rem}), bb});
}

std::string trunc(OnnxBuilder& b, const std::string& x, DType d) {
  return copysign(b, b.op("Floor", {b.op("Abs", {x})}), x, d);
}

std::string log1p(OnnxBuilder& b, const std::string& x, DType d) {
  const std::string one = b.scalar(1, d);
  const std::string u = b.op("Add", {one, x});
  const std::string um1 = b.op("Sub", {u, one});
  const std::string scaled = b.op("Mul", {b.op("Log", {u}), b.op("Div", {x, um1})});
  // u == 1: log1p(x) = x; u == inf: inf (x / (u - 1) would be NaN). The result has x's sign.
  const std::string big = b.op("IsInf", {u}, {{"detect_negative", int64_t{0}}});
  return copysign(b, where(b, b.op("Equal", {um1, b.scalar(0, d)}), x, where(b, big, u, scaled)), x, d);
}

std::string reduce_op(ExportContext& cx, const std::string& op, const std::string& x, const std::vector<int64_t>& axes,
                      bool keepdims) {
  std::vector<OnnxAttr> attrs{{"keepdims", int64_t{keepdims ? 1 : 0}}};
  if (op == "ReduceSum" || cx.opset >= 18) return cx.b.op(op, {x, cx.b.ints(axes)}, attrs);
  attrs.push_back({"axes", axes});
  return cx.b.op(op, {x}, attrs);
}

}  // namespace kiln::onnx
