// Shape rules of the contractions: mm, bmm, matmul (every rank combination, batch dims
// broadcast), addmm, linear and baddbmm. Dtype rules are the shared promote_same.
#include <string>

#include "ops/type_rules.h"
#include "ops/type_rules_util.h"

namespace kiln {

namespace {

// Contraction dims agree unless both are static and differ (symbols are checked at run time).
bool contractible(const Dim& a, const Dim& b) { return a.is_symbolic() || b.is_symbolic() || a == b; }

std::string shape_x(const Shape& s) {
  std::string out;
  for (int i = 0; i < s.rank(); ++i) out += (i ? "x" : "") + s[i].to_string();
  return out;
}

// `a_name`/`b_name` are the operands' names in the op's schema (mm: self and mat2; addmm: mat1
// and mat2), so the rank error names the operand the user wrote.
Expected<Shape> mm_shape(std::string_view op, const Shape& a, const Shape& b, std::string_view a_name,
                         std::string_view b_name) {
  if (a.rank() != 2) return make_error(op, ": ", a_name, " must be a matrix, got shape ", a.to_string());
  if (b.rank() != 2) return make_error(op, ": ", b_name, " must be a matrix, got shape ", b.to_string());
  if (!contractible(a[1], b[0]))
    return make_error(op, ": mat1 and mat2 shapes cannot be multiplied (", shape_x(a), " and ", shape_x(b), ")");
  return Shape({a[0], b[1]});
}

Expected<Shape> bmm_shape(std::string_view op, const Shape& a, const Shape& b) {
  if (a.rank() != 3) return make_error(op, ": batch1 must be a 3D tensor, got shape ", a.to_string());
  if (b.rank() != 3) return make_error(op, ": batch2 must be a 3D tensor, got shape ", b.to_string());
  if (!contractible(a[0], b[0]))
    return make_error(op, ": batch1 and batch2 must have same number of batches, got ", a[0].to_string(), " and ",
                      b[0].to_string());
  if (!contractible(a[2], b[1]))
    return make_error(op, ": Expected size for first two dimensions of batch2 tensor to be: [", a[0].to_string(), ", ",
                      a[2].to_string(), "] but got: [", b[0].to_string(), ", ", b[1].to_string(), "].");
  return Shape({a[0].is_static() ? a[0] : b[0], a[1], b[2]});
}

// `self` must broadcast to `out` (addmm, baddbmm, linear's bias).
Status check_broadcasts_to(std::string_view op, std::string_view what, const Shape& self, const Shape& out) {
  auto b = broadcast_shapes(self, out);
  if (!b || !(*b == out))
    return make_error(op, ": ", what, " of shape ", self.to_string(), " cannot be broadcast to ", out.to_string());
  return Status::ok();
}

// torch rejects mixed dtypes in contractions with this text; the shared promote_same dtype rule
// runs after the shape rule and would report it less specifically.
Status check_same_dtype(std::string_view op, const TensorType& a, const TensorType& b) {
  if (a.dtype == DType::Bool) return make_error(op, ": not implemented for 'bool'");
  if (a.dtype == b.dtype) return Status::ok();
  return make_error(op, ": expected m1 and m2 to have the same dtype, but got: ", dtype_name(a.dtype),
                    " != ", dtype_name(b.dtype));
}

Status check_operand_dtypes(const TypeCall& call, int first) {
  for (int i = first + 1; i < static_cast<int>(call.operands.size()); ++i)
    if (call.operands[static_cast<size_t>(i)].is_tensor())
      KILN_TRY(check_same_dtype(call.name(), operand_type(call, first), operand_type(call, i)));
  if (first > 0) KILN_TRY(check_same_dtype(call.name(), operand_type(call, first), operand_type(call, 0)));
  return Status::ok();
}

}  // namespace

Expected<Shape> matmul_shape(const Shape& a, const Shape& b) {
  const int ra = a.rank(), rb = b.rank();
  if (ra == 0 || rb == 0)
    return make_error("matmul: both arguments to matmul need to be at least 1D, but they are ", ra, "D and ", rb, "D");
  if (ra == 1 && rb == 1) {
    if (!contractible(a[0], b[0]))
      return make_error("matmul: inconsistent tensor size, expected tensor [", a[0].to_string(), "] and src [",
                        b[0].to_string(), "] to have the same number of elements, but got ", a[0].to_string(), " and ",
                        b[0].to_string(), " elements respectively");
    return Shape();
  }
  // Promote 1-D operands to matrices, multiply, then drop the added dims.
  Shape a2 = ra == 1 ? Shape({Dim(1), a[0]}) : a;
  Shape b2 = rb == 1 ? Shape({b[0], Dim(1)}) : b;
  const Dim& k_a = a2[a2.rank() - 1];
  const Dim& k_b = b2[b2.rank() - 2];
  if (!contractible(k_a, k_b))
    return make_error("matmul: mat1 and mat2 shapes cannot be multiplied (", shape_x(a), " and ", shape_x(b), ")");
  Shape batch_a(std::vector<Dim>(a2.dims().begin(), a2.dims().end() - 2));
  Shape batch_b(std::vector<Dim>(b2.dims().begin(), b2.dims().end() - 2));
  auto batch = broadcast_shapes(batch_a, batch_b);
  if (!batch)
    return make_error("matmul: batch dimensions ", batch_a.to_string(), " and ", batch_b.to_string(),
                      " are not broadcastable");
  std::vector<Dim> out = batch->dims();
  if (ra > 1) out.push_back(a2[a2.rank() - 2]);
  if (rb > 1) out.push_back(b2[b2.rank() - 1]);
  return Shape(std::move(out));
}

Expected<std::vector<Shape>> shape_rule_mm(const TypeCall& call) {
  KILN_TRY(check_operand_dtypes(call, 0));
  KILN_ASSIGN_OR_RETURN(Shape s,
                        mm_shape("mm", operand_type(call, 0).shape, operand_type(call, 1).shape, "self", "mat2"));
  return std::vector<Shape>{s};
}

Expected<std::vector<Shape>> shape_rule_bmm(const TypeCall& call) {
  KILN_TRY(check_operand_dtypes(call, 0));
  KILN_ASSIGN_OR_RETURN(Shape s, bmm_shape("bmm", operand_type(call, 0).shape, operand_type(call, 1).shape));
  return std::vector<Shape>{s};
}

Expected<std::vector<Shape>> shape_rule_matmul(const TypeCall& call) {
  KILN_TRY(check_operand_dtypes(call, 0));
  KILN_ASSIGN_OR_RETURN(Shape s, matmul_shape(operand_type(call, 0).shape, operand_type(call, 1).shape));
  return std::vector<Shape>{s};
}

Expected<std::vector<Shape>> shape_rule_addmm(const TypeCall& call) {
  KILN_TRY(check_operand_dtypes(call, 1));
  KILN_ASSIGN_OR_RETURN(Shape s,
                        mm_shape("addmm", operand_type(call, 1).shape, operand_type(call, 2).shape, "mat1", "mat2"));
  KILN_TRY(check_broadcasts_to("addmm", "self", operand_type(call, 0).shape, s));
  return std::vector<Shape>{s};
}

Expected<std::vector<Shape>> shape_rule_baddbmm(const TypeCall& call) {
  KILN_TRY(check_operand_dtypes(call, 1));
  KILN_ASSIGN_OR_RETURN(Shape s, bmm_shape("baddbmm", operand_type(call, 1).shape, operand_type(call, 2).shape));
  KILN_TRY(check_broadcasts_to("baddbmm", "self", operand_type(call, 0).shape, s));
  return std::vector<Shape>{s};
}

Expected<std::vector<Shape>> shape_rule_linear(const TypeCall& call) {
  KILN_TRY(check_operand_dtypes(call, 0));
  const Shape& x = operand_type(call, 0).shape;
  const Shape& w = operand_type(call, 1).shape;
  if (w.rank() != 1 && w.rank() != 2) return make_error("linear: weight must be 1-D or 2-D, got shape ", w.to_string());
  if (x.rank() == 0) return make_error("linear: input must be at least 1-D, got a 0-d tensor");
  // linear(x, w) is matmul(x, w.t()).
  Shape wt = w.rank() == 2 ? Shape({w[1], w[0]}) : w;
  auto s = matmul_shape(x, wt);
  if (!s)
    return make_error("linear: mat1 and mat2 shapes cannot be multiplied (", shape_x(x), " and ", shape_x(wt), ")");
  if (call.operands.size() > 2 && call.operands[2].is_tensor())
    KILN_TRY(check_broadcasts_to("linear", "bias", operand_type(call, 2).shape, *s));
  return std::vector<Shape>{*s};
}

}  // namespace kiln
