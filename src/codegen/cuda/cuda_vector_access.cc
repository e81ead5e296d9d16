#include "codegen/cuda/cuda_vector_access.h"

#include <algorithm>

#include "codegen/cpp/cpp_schedule.h"
#include "core/dtype.h"

namespace kiln::cuda {

namespace {

constexpr int kVectorBytes = 16;        // the widest access a thread makes at once
constexpr int kMostBytesPerGroup = 64;  // a group's widest access, in pieces of kVectorBytes

bool is_access(const BodyOp& op) { return op.kind == BodyOp::Kind::Load || op.kind == BodyOp::Kind::Store; }

std::string buffer_name(const LoopProgram& p, const BodyOp& op) {
  return "%" + p.buffers[static_cast<size_t>(op.buffer)].name;
}

}  // namespace

// The narrowest access that moves with innermost loop `inner` moves kVectorBytes, the widest at
// most kMostBytesPerGroup.
int vector_group_width(const LoopProgram& p, const std::vector<const LoopKernel*>& kernels, int inner) {
  int narrowest = 8, widest = 1;
  for (const LoopKernel* k : kernels)
    for (const BodyOp& op : k->body)
      if (is_access(op) && op.index.uses_var(inner)) {
        const int size = dtype_size(p.buffers[static_cast<size_t>(op.buffer)].dtype);
        narrowest = std::min(narrowest, size);
        widest = std::max(widest, size);
      }
  int width = kVectorBytes / narrowest;
  while (width > 1 && width * widest > kMostBytesPerGroup) width /= 2;
  return width;
}

VectorAccess unaligned_vector_access(const LoopProgram& p, const BodyOp& op, int inner, std::string& why) {
  const std::string name = buffer_name(p, op);
  if (!op.indirect.empty() || op.masked) {
    why = name + ": an indirect or masked access";
    return VectorAccess::None;
  }
  if (!op.index.is_affine_in(inner)) {
    why = name + ": its index divides the innermost loop";
    return VectorAccess::None;
  }
  const int64_t stride = op.index.coeff_of(inner);
  if (stride == 0 && op.kind == BodyOp::Kind::Load) return VectorAccess::Broadcast;
  if (stride != 1) {
    why = name + ": stride " + std::to_string(stride) + " in the innermost loop";
    return VectorAccess::None;
  }
  return VectorAccess::Contiguous;
}

VectorAccess vector_access(const LoopProgram& p, const BodyOp& op, int inner, int width, std::string& why) {
  const VectorAccess access = unaligned_vector_access(p, op, inner, why);
  if (access != VectorAccess::Contiguous) return access;
  bool aligned = op.index.constant % width == 0;
  for (const IndexTerm& t : op.index.terms)
    if (!(t.kind == IndexTerm::Kind::Var && t.var == inner)) aligned = aligned && t.coeff % width == 0;
  if (!aligned) {
    why = buffer_name(p, op) + ": a group's first element " + op.index.to_string() + " is not a multiple of " +
          std::to_string(width);
    return VectorAccess::None;
  }
  return VectorAccess::Contiguous;
}

PointwiseVectors pointwise_vectors(const LoopProgram& p, const LoopKernel& k) {
  PointwiseVectors plan;
  const int n = static_cast<int>(k.loops.size());
  if (k.kind != KernelKind::Pointwise || n == 0) {
    plan.scalar_reason = "no loop";
    return plan;
  }
  if (!cpp::stores_independent(k, n)) {
    plan.scalar_reason = "stores repeat elements";
    return plan;
  }
  const int width = vector_group_width(p, {&k}, n - 1);
  const int64_t inner = k.loops.back();
  int64_t points = 1;
  for (int64_t e : k.loops) points *= e;
  if (width == 1 || points < width) {
    plan.scalar_reason = "fewer points than a vector";
    return plan;
  }
  if (n > 1 && inner % width != 0) {
    plan.scalar_reason = "innermost extent " + std::to_string(inner) + " not a multiple of " + std::to_string(width);
    return plan;
  }
  std::vector<VectorAccess> access(k.body.size(), VectorAccess::None);
  for (size_t i = 0; i < k.body.size(); ++i) {
    if (!is_access(k.body[i])) continue;
    access[i] = vector_access(p, k.body[i], n - 1, width, plan.scalar_reason);
    if (access[i] == VectorAccess::None) return plan;
  }
  plan.width = width;
  plan.access = std::move(access);
  plan.groups = points / width;
  plan.tail = points % width;
  plan.scalar_reason.clear();
  return plan;
}

ColumnVectors column_vectors(const LoopProgram& p, const LoopKernel& k) {
  ColumnVectors plan;
  const int column = k.num_outer_loops() - 1;
  const int width = vector_group_width(p, {&k}, column);
  if (width == 1 || k.loops[static_cast<size_t>(column)] % width != 0) return plan;
  std::vector<VectorAccess> access(k.body.size(), VectorAccess::None);
  std::string why;
  for (size_t i = 0; i < static_cast<size_t>(k.reduce_op); ++i) {
    if (k.body[i].kind != BodyOp::Kind::Load) continue;
    access[i] = vector_access(p, k.body[i], column, width, why);
    if (access[i] == VectorAccess::None) return plan;
  }
  plan.width = width;
  plan.access = std::move(access);
  return plan;
}

VectorPieces vector_pieces(int width, DType t) {
  const int bytes = width * dtype_size(t), piece = std::min(kVectorBytes, bytes);
  return {.bytes = piece, .count = bytes / piece};
}

}  // namespace kiln::cuda
