#include "autograd/partition/runtime_estimate.h"

#include <algorithm>

namespace kiln::partitioning {

namespace {

// Elements of a static-shaped value; symbolic dims count as 4096, as the partitioner's sizes do.
double numel(const Value* v) {
  double n = 1;
  for (const Dim& d : v->type().shape.dims()) n *= d.is_static() ? static_cast<double>(d.value()) : 4096.0;
  return n;
}

double last_dim(const Value* v) {
  const std::vector<Dim>& dims = v->type().shape.dims();
  if (dims.empty()) return 1;
  return dims.back().is_static() ? static_cast<double>(dims.back().value()) : 4096.0;
}

double dim_from_end(const Value* v, size_t k) {
  const std::vector<Dim>& dims = v->type().shape.dims();
  if (dims.size() < k) return 1;
  const Dim& d = dims[dims.size() - k];
  return d.is_static() ? static_cast<double>(d.value()) : 4096.0;
}

double contraction_flops(const Node& n) {
  const Value* out = n.result(0);
  switch (n.op()) {
    case OpKind::Addmm:
    case OpKind::Baddbmm:  // (self, mat1 | batch1, mat2 | batch2)
      return 2 * numel(out) * last_dim(n.operand(1).value);
    default:  // mm, bmm, matmul, linear: K is operand 0's last dim
      return 2 * numel(out) * last_dim(n.operand(0).value);
  }
}

}  // namespace

double estimate_runtime(const Node& n) {
  double flops = 0;
  if (n.info().has(kMatmul)) {
    flops = contraction_flops(n);
  } else if (n.op() == OpKind::Conv2d) {
    const Value* weight = n.operand(1).value;  // [out_channels, in_channels / groups, kh, kw]
    flops = 2 * numel(n.result(0)) * numel(weight) / std::max(1.0, dim_from_end(weight, 4));
  } else if (n.op() == OpKind::ScaledDotProductAttention) {
    const double keys = dim_from_end(n.operand(1).value, 2);
    flops = 2 * numel(n.operand(0).value) * keys + 2 * numel(n.result(0)) * keys;
  } else {
    for (const Value* r : n.results()) flops += numel(r);
  }
  return std::max(flops, 1.0);
}

}  // namespace kiln::partitioning
