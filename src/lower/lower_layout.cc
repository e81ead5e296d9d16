// Lowering of chunk and split (views of their input) and cat (a kernel per input).
#include "lower/lowering.h"

#include "ops/op_call.h"

namespace kiln::lowering {

Status Lowering::split_views(const Node& n) {
  const Value* in = n.operand(0).value;
  realize(in);
  const Access& a = access_.at(in);
  const int rank = static_cast<int>(a.sizes.size());
  int64_t dim = OpCallBase(n.op(), n.attrs()).attr_int("dim");
  if (dim < 0) dim += rank;
  int64_t start = 0;
  for (int r = 0; r < n.num_results(); ++r) {
    const std::vector<int64_t> sizes = sizes_of(n.result(r));
    std::vector<IndexExpr> coords = vars(0, rank);
    coords[static_cast<size_t>(dim)] = coords[static_cast<size_t>(dim)].plus(IndexExpr::constant_of(start));
    access_[n.result(r)] = Access{a.buffer, a.map.substitute(coords), sizes};
    start += sizes[static_cast<size_t>(dim)];
  }
  return Status::ok();
}

Status Lowering::cat(const Node& n) {
  const std::vector<int64_t> sizes = sizes_of(n.result());
  const int rank = static_cast<int>(sizes.size());
  int64_t dim = OpCallBase(n.op(), n.attrs()).attr_int("dim");
  if (dim < 0) dim += rank;
  const DType r = n.result()->type().dtype;
  std::vector<const Value*> parts;
  for (const Operand& o : n.operands()) {
    if (!o.is_value()) return extern_kernel(n);
    if (static_cast<int>(sizes_of(o.value).size()) != rank) return extern_kernel(n);  // legacy empty 1-d inputs
    parts.push_back(o.value);
  }
  for (const Value* v : parts) prepare(v, numel_of(sizes_of(v)));
  const int out = result_buffer(n.result(), sizes);
  int64_t start = 0;
  for (const Value* v : parts) {
    const std::vector<int64_t> in_sizes = sizes_of(v);
    LoopKernel k = make_kernel(KernelKind::Pointwise);
    k.loops = in_sizes;
    BodyBuilder b{k};
    const std::vector<IndexExpr> c = loop_coords(in_sizes);
    const int x = b.cast(value_at(b, v, c), r);
    std::vector<IndexExpr> oc = c;
    oc[static_cast<size_t>(dim)] = oc[static_cast<size_t>(dim)].plus(IndexExpr::constant_of(start));
    b.store(out, strided(buffer(out).strides, oc), x);
    append(std::move(k));
    start += in_sizes[static_cast<size_t>(dim)];
  }
  return Status::ok();
}

}  // namespace kiln::lowering
