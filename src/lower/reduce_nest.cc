#include "lower/reduce_nest.h"

#include <cstddef>

#include "core/element.h"

namespace kiln::lowering {

LoopKernel ReduceNest::kernel() const {
  LoopKernel k;
  k.kind = num_reduce_loops > 0 ? KernelKind::Reduction : KernelKind::Pointwise;
  k.loops = loops;
  k.num_reduce_loops = num_reduce_loops;
  return k;
}

ReduceNest reduce_nest(const std::vector<int64_t>& sizes, const std::vector<bool>& reduced, bool keepdim) {
  ReduceNest r;
  const size_t rank = sizes.size();
  std::vector<size_t> order;  // kept dims first (outer loops), then reduced dims (inner)
  for (size_t d = 0; d < rank; ++d)
    if (!reduced[d]) order.push_back(d);
  for (size_t d = 0; d < rank; ++d)
    if (reduced[d]) order.push_back(d);
  r.in_coords.resize(rank);
  for (size_t j = 0; j < order.size(); ++j) {
    const size_t d = order[j];
    r.loops.push_back(sizes[d]);
    if (sizes[d] != 1) r.in_coords[d] = IndexExpr::var(static_cast<int>(j));
    if (!reduced[d]) continue;
    ++r.num_reduce_loops;
    r.position = r.position.scaled(sizes[d]).plus(r.in_coords[d]);
    r.count *= sizes[d];
  }
  for (size_t d = 0; d < rank; ++d) {
    if (!reduced[d])
      r.out_coords.push_back(r.in_coords[d]);
    else if (keepdim)
      r.out_coords.push_back(IndexExpr());
  }
  return r;
}

int exact_constant(BodyBuilder& b, const Scalar& v, DType dt) {
  alignas(8) std::byte slot[8] = {};
  store_double(slot, dt, 0, v.to_double());
  return b.constant(v, load_double(slot, dt, 0) == v.to_double() ? dt : DType::F64);
}

}  // namespace kiln::lowering
