#include "lower/loop_ir.h"

#include "ops/op_info.h"

namespace kiln {

int64_t Buffer::storage_size() const {
  int64_t n = 1;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0) return 0;
    n += (sizes[d] - 1) * (d < strides.size() ? strides[d] : 0);
  }
  return n;
}

std::string_view reduce_kind_name(ReduceKind k) {
  switch (k) {
    case ReduceKind::Sum: return "sum";
    case ReduceKind::Prod: return "prod";
    case ReduceKind::Max: return "max";
    case ReduceKind::Min: return "min";
    case ReduceKind::Argmax: return "argmax";
    case ReduceKind::Argmin: return "argmin";
    case ReduceKind::WelfordMean: return "welford_mean";
    case ReduceKind::WelfordM2: return "welford_m2";
  }
  return "sum";
}

std::string_view random_kind_name(RandomKind k) {
  switch (k) {
    case RandomKind::Uniform: return "uniform";
    case RandomKind::Normal: return "normal";
    case RandomKind::Int: return "int";
  }
  return "uniform";
}

int reduce_arity(ReduceKind k) { return k == ReduceKind::Argmax || k == ReduceKind::Argmin ? 2 : 1; }

bool is_plain_fold(ReduceKind k) {
  switch (k) {
    case ReduceKind::Sum:
    case ReduceKind::Prod:
    case ReduceKind::Max:
    case ReduceKind::Min: return true;
    case ReduceKind::Argmax:
    case ReduceKind::Argmin:
    case ReduceKind::WelfordMean:
    case ReduceKind::WelfordM2: return false;
  }
  return false;
}

int LoopProgram::find_buffer(std::string_view name) const {
  for (size_t i = 0; i < buffers.size(); ++i)
    if (buffers[i].name == name) return static_cast<int>(i);
  return -1;
}

std::vector<const LoopKernel*> loop_kernel_parts(const LoopKernel& k) {
  if (k.kind != KernelKind::Fused) return {&k};
  std::vector<const LoopKernel*> out;
  for (const LoopKernel& part : k.parts) out.push_back(&part);
  return out;
}

std::set<int> kernel_buffers_read(const LoopKernel& k) {
  std::set<int> out;
  for (const ExternOperand& o : k.operands)
    if (o.buffer >= 0) out.insert(o.buffer);
  for (const LoopKernel* p : loop_kernel_parts(k))
    for (const BodyOp& op : p->body)
      if (op.kind == BodyOp::Kind::Load) out.insert(op.buffer);
  if (k.predicate >= 0) out.insert(k.predicate);
  out.insert(k.carried.begin(), k.carried.end());
  out.insert(k.next.begin(), k.next.end());
  for (const std::vector<LoopKernel>& region : k.regions)
    for (const LoopKernel& inner : region) out.merge(kernel_buffers_read(inner));
  return out;
}

std::set<int> kernel_buffers_written(const LoopKernel& k) {
  std::set<int> out(k.results.begin(), k.results.end());
  // An in-place extern op (copy_, add_, ...) also writes its first operand.
  if (k.kind == KernelKind::Extern && op_info(k.op).has(kInplace) && !k.operands.empty() && k.operands[0].buffer >= 0)
    out.insert(k.operands[0].buffer);
  for (const LoopKernel* p : loop_kernel_parts(k))
    for (const BodyOp& op : p->body)
      if (op.kind == BodyOp::Kind::Store) out.insert(op.buffer);
  out.insert(k.carried.begin(), k.carried.end());
  out.insert(k.next.begin(), k.next.end());
  for (const std::vector<LoopKernel>& region : k.regions)
    for (const LoopKernel& inner : region) out.merge(kernel_buffers_written(inner));
  return out;
}

size_t reduce_ops_end(const LoopKernel& k) {
  size_t end = static_cast<size_t>(k.reduce_op);
  while (end < k.body.size() && k.body[end].kind == BodyOp::Kind::Reduce) ++end;
  return end;
}

bool is_column_reduction(const LoopKernel& k) {
  if (k.kind != KernelKind::Reduction || k.num_outer_loops() < 1 || k.reduce_op < 0) return false;
  // Sums, prods, maxes and mins: the interchanged loops keep an accumulator per column for each.
  for (size_t r = static_cast<size_t>(k.reduce_op); r < reduce_ops_end(k); ++r)
    if (!is_plain_fold(k.body[r].reduce)) return false;
  const int c = k.num_outer_loops() - 1, inner = static_cast<int>(k.loops.size()) - 1;
  bool unit = false;
  for (int i = 0; i < k.reduce_op; ++i) {
    const BodyOp& op = k.body[static_cast<size_t>(i)];
    if (op.kind == BodyOp::Kind::Index) return false;
    if (op.kind != BodyOp::Kind::Load) continue;
    if (!op.index.is_affine()) return false;
    const int64_t cc = op.index.coeff_of(c);
    if (cc != 0 && cc != 1) return false;
    // The reduce loop is the contiguous one of a load that walks the columns. A load of one
    // value per row (column coefficient 0: layer_norm's mean and rstd in its weight gradient)
    // is a scalar broadcast over the columns in the interchanged loops.
    if (cc != 0 && op.index.coeff_of(inner) == 1) return false;
    unit = unit || cc == 1;
  }
  return unit;
}

}  // namespace kiln
