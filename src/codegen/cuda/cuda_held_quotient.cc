// Quotients by a statistic of a held row (cuda_held_row.h's by_reciprocal): softmax's x / sum.
// An f32 division is tens of instructions a point with its slow path inlined, and NVVM and
// ptxas spend most of a held softmax's cold compile on them; instead the divisor s's
// reciprocal is computed once a row and each point multiplies: (x * k) * (1 / (s * k)), k a
// power of two that keeps s * k and its reciprocal normal (2^24 where |s| < 2^-126, 2^-24 where
// |s| > 2^126, else 1), within 1.5 ulp of x / s (docs/CUDA_CODEGEN.md, "Quotients by a row's
// statistic").
#include <set>

#include "codegen/cuda/cuda_body.h"
#include "codegen/cuda/cuda_held_row.h"
#include "codegen/cuda/cuda_kernel_writer.h"

namespace kiln::cuda {

namespace {

bool is_f32_division(const LoopKernel& part, size_t i) {
  const BodyOp& op = part.body[i];
  if (op.kind != BodyOp::Kind::Compute || op.op != OpKind::Div || op.attrs.find("rounding_mode")) return false;
  if (op.dtype != DType::F32) return false;
  for (int a : op.args)
    if (part.body[static_cast<size_t>(a)].dtype != DType::F32) return false;
  return true;
}

// Whether op `a` of `part` (its held values `of`) loads a statistic of the row held in a
// register, which the part does not store: the same value at each of its points.
bool loads_row_statistic(const HeldRow& h, const LoopKernel& part, const std::vector<int>& of, int a) {
  const int v = of[static_cast<size_t>(a)];
  if (part.body[static_cast<size_t>(a)].kind != BodyOp::Kind::Load || v < 0 || h.values[static_cast<size_t>(v)].row)
    return false;
  for (size_t i = 0; i < part.body.size(); ++i)
    if (part.body[i].kind == BodyOp::Kind::Store && of[i] == v) return false;
  return true;
}

}  // namespace

void divide_by_reciprocals(const LoopKernel& k, HeldRow& h) {
  h.by_reciprocal.clear();
  for (size_t j = 0; j < k.parts.size(); ++j) {
    const LoopKernel& part = k.parts[j];
    std::vector<bool>& marked = h.by_reciprocal.emplace_back(part.body.size(), false);
    if (part.kind != KernelKind::Pointwise || is_scalar_part(part, k.loops.size())) continue;
    for (size_t i = 0; i < part.body.size(); ++i)
      marked[i] = is_f32_division(part, i) && loads_row_statistic(h, part, h.value_of[j], part.body[i].args.at(1));
  }
}

void KernelWriter::row_reciprocals(const LoopKernel& part) {
  const std::vector<bool>& marked = held_->by_reciprocal[static_cast<size_t>(held_part_)];
  const std::vector<int>& of = held_->value_of[static_cast<size_t>(held_part_)];
  std::set<int> written;
  for (size_t i = 0; i < part.body.size(); ++i) {
    if (!marked[i]) continue;
    const int d = part.body[i].args.at(1);
    if (!written.insert(d).second) continue;  // another quotient by the same divisor wrote it
    const std::string s = value_name(d) + "_row", k = value_name(d) + "_k";
    line("const float " + s + " = " +
         loaded_value(p_, part.body[static_cast<size_t>(d)], held_element(of[static_cast<size_t>(d)])) +
         ";  // a divisor, the row's: its reciprocal once");
    line("const float " + k + " = fabsf(" + s + ") < 0x1p-126f ? 0x1p24f : (fabsf(" + s +
         ") > 0x1p126f ? 0x1p-24f : 1.0f);");
    line("const float " + value_name(d) + "_r = 1.0f / __fmul_rn(" + s + ", " + k + ");");
  }
}

std::string KernelWriter::held_op_text(const LoopKernel& part, int i) const {
  if (!held_->by_reciprocal[static_cast<size_t>(held_part_)][static_cast<size_t>(i)]) return body_op_text(p_, part, i);
  const BodyOp& op = part.body[static_cast<size_t>(i)];
  const std::string x = value_name(op.args.at(0)), s = value_name(op.args.at(1));
  return "const float " + value_name(i) + " = __fmul_rn(__fmul_rn(" + x + ", " + s + "_k), " + s + "_r);  // " + x +
         " / " + s;
}

}  // namespace kiln::cuda
