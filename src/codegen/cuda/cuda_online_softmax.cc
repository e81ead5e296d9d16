#include "codegen/cuda/cuda_online_softmax.h"

#include <optional>

namespace kiln::cuda {

namespace {

// Whether op `i` of `part` only reads and computes: a load without mask or indirect terms, a
// constant, a compute or a cast (so dropping its value, or computing it once for two parts,
// changes nothing).
bool pure(const LoopKernel& part, size_t i) {
  const BodyOp& op = part.body[i];
  switch (op.kind) {
    case BodyOp::Kind::Load: return !op.masked && op.indirect.empty();
    case BodyOp::Kind::Const:
    case BodyOp::Kind::Compute:
    case BodyOp::Kind::Cast: return true;
    default: return false;
  }
}

bool row_ops_pure(const LoopKernel& part) {
  for (size_t i = 0; i < static_cast<size_t>(part.reduce_op); ++i)
    if (!pure(part, i)) return false;
  return true;
}

bool loads_buffer(const LoopKernel& part, int buffer) {
  for (size_t i = 0; i < static_cast<size_t>(part.reduce_op); ++i)
    if (part.body[i].kind == BodyOp::Kind::Load && part.body[i].buffer == buffer) return true;
  return false;
}

// Whether op `i` of `a` and op `j` of `b` compute the same value at each point: the same op on
// the same operands, loads of the same buffer at the same index.
bool same_value(const LoopKernel& a, int i, const LoopKernel& b, int j) {
  const BodyOp &x = a.body[static_cast<size_t>(i)], &y = b.body[static_cast<size_t>(j)];
  if (x.kind != y.kind || x.dtype != y.dtype || x.op != y.op || !(x.attrs == y.attrs) || x.buffer != y.buffer ||
      !(x.index == y.index) || !(x.value == y.value) || x.args.size() != y.args.size())
    return false;
  for (size_t k = 0; k < x.args.size(); ++k)
    if (!same_value(a, x.args[k], b, y.args[k])) return false;
  return true;
}

// The one reduce op of reduction `part` when it has one of kind `kind` with an f32 result and
// operand; nullopt otherwise.
std::optional<size_t> single_f32_reduce(const LoopKernel& part, ReduceKind kind) {
  if (part.kind != KernelKind::Reduction || reduce_ops_end(part) != static_cast<size_t>(part.reduce_op) + 1)
    return std::nullopt;
  const size_t r = static_cast<size_t>(part.reduce_op);
  const BodyOp& rop = part.body[r];
  if (rop.reduce != kind || rop.dtype != DType::F32 ||
      part.body[static_cast<size_t>(rop.args.at(0))].dtype != DType::F32)
    return std::nullopt;
  return r;
}

bool per_row(const LoopKernel& part, const IndexExpr& index) {
  for (int d = part.num_outer_loops(); d < static_cast<int>(part.loops.size()); ++d)
    if (index.uses_var(d)) return false;
  return true;
}

bool is_compute(const BodyOp& op, OpKind kind) {
  return op.kind == BodyOp::Kind::Compute && op.op == kind && op.dtype == DType::F32 && op.attrs.empty();
}

}  // namespace

bool folds_online(const LoopProgram& p, const LoopKernel& max_part, const LoopKernel& sum_part) {
  if (max_part.loops != sum_part.loops || max_part.num_reduce_loops != sum_part.num_reduce_loops) return false;
  const std::optional<size_t> max_op = single_f32_reduce(max_part, ReduceKind::Max);
  const std::optional<size_t> sum_op = single_f32_reduce(sum_part, ReduceKind::Sum);
  if (!max_op || !sum_op || !row_ops_pure(max_part) || !row_ops_pure(sum_part)) return false;
  if (max_part.body.size() != *max_op + 2) return false;  // the epilogue: the max's store alone
  const BodyOp& store = max_part.body.back();
  if (store.kind != BodyOp::Kind::Store || store.args.at(0) != static_cast<int>(*max_op) || !store.indirect.empty() ||
      p.buffers[static_cast<size_t>(store.buffer)].dtype != DType::F32 || !per_row(max_part, store.index))
    return false;
  const BodyOp& exp = sum_part.body[static_cast<size_t>(sum_part.body[*sum_op].args.at(0))];
  if (!is_compute(exp, OpKind::Exp)) return false;
  const BodyOp& sub = sum_part.body[static_cast<size_t>(exp.args.at(0))];
  if (!is_compute(sub, OpKind::Sub)) return false;
  const BodyOp& max_load = sum_part.body[static_cast<size_t>(sub.args.at(1))];
  if (max_load.kind != BodyOp::Kind::Load || max_load.buffer != store.buffer || !(max_load.index == store.index))
    return false;
  // The row's value as the max part computes it, before the max is stored: t never read there.
  if (loads_buffer(max_part, store.buffer)) return false;
  return same_value(max_part, max_part.body[*max_op].args.at(0), sum_part, sub.args.at(0));
}

}  // namespace kiln::cuda
