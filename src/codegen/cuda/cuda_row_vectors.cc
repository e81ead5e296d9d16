#include "codegen/cuda/cuda_row_vectors.h"

#include <algorithm>
#include <string>

#include "codegen/cpp/cpp_schedule.h"

namespace kiln::cuda {

namespace {

// Whether `part` walks one own loop (the last) and no point's store precedes another's load
// of the same element: the pointwise part's stores never repeat one, the reduction part stores
// nothing before its reduce ops.
bool walks_one_loop(const LoopKernel& part, int rows) {
  if (static_cast<int>(part.loops.size()) != rows + 1) return false;
  if (part.kind == KernelKind::Pointwise) return cpp::stores_independent(part, rows + 1);
  if (part.kind != KernelKind::Reduction || part.num_outer_loops() != rows) return false;
  return std::none_of(part.body.begin(), part.body.begin() + part.reduce_op,
                      [](const BodyOp& op) { return op.kind == BodyOp::Kind::Store; });
}

}  // namespace

RowVectors row_vectors(const LoopProgram& p, const LoopKernel& part, int rows) {
  RowVectors plan;
  if (!walks_one_loop(part, rows)) return plan;
  const size_t walked = part.kind == KernelKind::Reduction ? static_cast<size_t>(part.reduce_op) : part.body.size();
  const int width = vector_group_width(p, {&part}, rows);
  if (width == 1 || part.loops.back() < width) return plan;  // so the head (< width points) is in the row
  std::vector<IndexExpr> at_row_start;
  for (int d = 0; d <= rows; ++d) at_row_start.push_back(d == rows ? IndexExpr::constant_of(0) : IndexExpr::var(d));
  std::vector<VectorAccess> access(part.body.size(), VectorAccess::None);
  bool found = false;
  for (size_t i = 0; i < walked; ++i) {
    const BodyOp& op = part.body[i];
    if (op.kind != BodyOp::Kind::Load && op.kind != BodyOp::Kind::Store) continue;
    std::string why;
    if (unaligned_vector_access(p, op, rows, why) != VectorAccess::Contiguous) continue;
    const IndexExpr start = op.index.substitute(at_row_start);
    if (!found) plan.row_start = start;
    found = true;
    if (start == plan.row_start) access[i] = VectorAccess::Contiguous;
  }
  if (!found) return plan;
  plan.width = width;
  plan.access = std::move(access);
  return plan;
}

}  // namespace kiln::cuda
