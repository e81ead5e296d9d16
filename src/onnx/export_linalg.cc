// Exporters of the contractions: mm, bmm and matmul are ONNX MatMul (which follows NumPy's
// matmul, as torch.matmul does, for 1-d operands and batch broadcasting); addmm, baddbmm and
// linear add the scaled product to a bias. ONNX Runtime's MatMul lacks f16/bf16 and the
// small integer dtypes on CPU, so those go through f32 and int64.
#include "onnx/export_util.h"

namespace kiln::onnx {

namespace {

using Names = std::vector<std::string>;

// The dtype a product of dtype `result` is computed in.
DType matmul_dtype(DType result) {
  if (is_floating(result)) return compute_dtype(result);
  return result == DType::I32 || result == DType::I64 ? result : DType::I64;
}

// Whether operand `a`'s contracted (last) dim is statically empty. ONNX Runtime's MatMul leaves
// its output unwritten there (garbage in a fresh process where PyTorch gives zeros: oracle
// linear_vector_weight_empty in CI), so such a product is exported as zeros of its shape.
bool contracts_nothing(const ExportContext& cx, int a) {
  const Shape& s = cx.type(a).shape;
  return s.rank() > 0 && s[s.rank() - 1] == 0;
}

// Zeros of dtype `c` in the result's shape (which every product here has).
Expected<std::string> zero_product(ExportContext& cx, DType c) {
  KILN_ASSIGN_OR_RETURN(std::string shape, cx.shape_tensor(cx.result_type().shape));
  return cx.b.op("Expand", {cx.b.constant(Tensor::full({}, Scalar(0), c)), shape});
}

// Operands `a` @ `b` in dtype `c`.
Expected<std::string> product(ExportContext& cx, int a, int b, DType c) {
  if (contracts_nothing(cx, a)) return zero_product(cx, c);
  return cx.b.op("MatMul", {cx.operand_as(a, c), cx.operand_as(b, c)});
}

Expected<Names> matmul(ExportContext& cx) {
  const DType out = cx.result_type().dtype, c = matmul_dtype(out);
  KILN_ASSIGN_OR_RETURN(std::string y, product(cx, 0, 1, c));
  return Names{cx.b.cast(y, c, out)};
}

std::string scaled(OnnxBuilder& b, const std::string& x, const Scalar& s, DType d) {
  if (s.to_double() == 1.0) return x;
  return b.op("Mul", {x, b.constant(Tensor::full({}, s, d))});
}

// addmm, baddbmm: beta * self + alpha * (mat1 @ mat2). With beta = 0, self is ignored (its
// NaN and inf do not propagate), as in PyTorch; the result keeps the broadcast shape.
Expected<Names> add_product(ExportContext& cx) {
  const DType out = cx.result_type().dtype, c = matmul_dtype(out);
  const Scalar beta = cx.call.attr_scalar("beta"), alpha = cx.call.attr_scalar("alpha");
  KILN_ASSIGN_OR_RETURN(std::string product_name, product(cx, 1, 2, c));
  const std::string prod = scaled(cx.b, product_name, alpha, c);
  std::string y;
  if (beta.to_double() == 0.0) {
    KILN_ASSIGN_OR_RETURN(std::string shape, cx.shape_tensor(cx.result_type().shape));
    y = cx.b.op("Expand", {prod, shape});
  } else {
    y = cx.b.op("Add", {scaled(cx.b, cx.operand_as(0, c), beta, c), prod});
  }
  return Names{cx.b.cast(y, c, out)};
}

// linear: input @ weight^T + bias (a 1-d weight is a vector product).
Expected<Names> linear(ExportContext& cx) {
  const DType out = cx.result_type().dtype, c = matmul_dtype(out);
  std::string y;
  if (contracts_nothing(cx, 0)) {
    KILN_ASSIGN_OR_RETURN(y, zero_product(cx, c));
  } else {
    std::string w = cx.operand_as(1, c);
    if (cx.rank(1) == 2) w = cx.b.op("Transpose", {w}, {{"perm", std::vector<int64_t>{1, 0}}});
    y = cx.b.op("MatMul", {cx.operand_as(0, c), w});
  }
  if (!cx.is_none(2)) y = cx.b.op("Add", {y, cx.operand_as(2, c)});
  return Names{cx.b.cast(y, c, out)};
}

}  // namespace

std::vector<OpExporterEntry> linalg_exporters() {
  return {
      {OpKind::Mm, matmul},         {OpKind::Bmm, matmul},          {OpKind::Matmul, matmul},
      {OpKind::Addmm, add_product}, {OpKind::Baddbmm, add_product}, {OpKind::Linear, linear},
  };
}

}  // namespace kiln::onnx
