// Lowering of reductions (sum, mean, amax, amin) to reduction kernels.
#include "lower/lowering.h"

#include "ops/op_call.h"
#include "ops/reduce_dims.h"

namespace kiln::lowering {

Expected<bool> Lowering::reduction(const Node& n) {
  if (!n.operand(0).is_value()) return false;
  const Value* input = n.operand(0).value;
  const std::vector<int64_t> in_sizes = sizes_of(input);
  const OpCallBase call(n.op(), n.attrs());
  const int rank = static_cast<int>(in_sizes.size());
  Expected<std::vector<bool>> red = reduced_dims(call, rank);
  if (!red) return node_error(n, red.error().message());
  const bool keepdim = call.attr_bool("keepdim");
  const DType r = n.result()->type().dtype;
  std::vector<int> kept, reduced;
  int64_t count = 1;
  for (int d = 0; d < rank; ++d) {
    if ((*red)[static_cast<size_t>(d)]) {
      reduced.push_back(d);
      count *= in_sizes[static_cast<size_t>(d)];
    } else {
      kept.push_back(d);
    }
  }
  const bool minmax = n.op() == OpKind::Amax || n.op() == OpKind::Amin;
  if (minmax && count == 0) return false;
  prepare(input, numel_of(in_sizes));
  LoopKernel k = make_kernel(reduced.empty() ? KernelKind::Pointwise : KernelKind::Reduction);
  // Loop variables: kept dims first (outer), then reduced dims (inner).
  std::vector<IndexExpr> in_coords(static_cast<size_t>(rank));
  for (size_t j = 0; j < kept.size(); ++j) {
    k.loops.push_back(in_sizes[static_cast<size_t>(kept[j])]);
    if (in_sizes[static_cast<size_t>(kept[j])] != 1) in_coords[static_cast<size_t>(kept[j])] = IndexExpr::var(static_cast<int>(j));
  }
  for (size_t j = 0; j < reduced.size(); ++j) {
    k.loops.push_back(in_sizes[static_cast<size_t>(reduced[j])]);
    if (in_sizes[static_cast<size_t>(reduced[j])] != 1)
      in_coords[static_cast<size_t>(reduced[j])] = IndexExpr::var(static_cast<int>(kept.size() + j));
  }
  k.num_reduce_loops = static_cast<int>(reduced.size());
  std::vector<IndexExpr> out_coords;
  for (int d = 0; d < rank; ++d) {
    if (!(*red)[static_cast<size_t>(d)]) out_coords.push_back(in_coords[static_cast<size_t>(d)]);
    else if (keepdim) out_coords.push_back(IndexExpr());
  }
  BodyBuilder b{k};
  const int x = b.cast(value_at(b, input, in_coords), r);
  int v = x;
  if (!reduced.empty()) {
    BodyOp rop;
    rop.kind = BodyOp::Kind::Reduce;
    rop.reduce = n.op() == OpKind::Amax ? ReduceKind::Max : n.op() == OpKind::Amin ? ReduceKind::Min : ReduceKind::Sum;
    rop.args = {x};
    rop.dtype = r;
    v = b.add(std::move(rop));
    k.reduce_op = v;
    if (n.op() == OpKind::Mean) v = b.compute(OpKind::Div, {v, b.constant(Scalar(count), r)}, r);
  }
  const int out = result_buffer(n.result(), sizes_of(n.result()));
  b.store(out, strided(buffer(out).strides, out_coords), v);
  append(std::move(k));
  return true;
}

}  // namespace kiln::lowering
