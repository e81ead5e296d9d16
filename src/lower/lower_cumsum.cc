// Lowering of cumsum to a scan kernel (the kernel kind the scan higher-order op lowers to,
// lower_higher_order.cc): a running sum per point of the other dims, carried in a buffer of
// f64 (floating results) or i64 (integer ones) as the reference kernel accumulates, each step
// storing the sum so far rounded to the result dtype.
#include "lower/lowering.h"

#include "ops/op_call.h"
#include "ops/type_rules.h"

namespace kiln::lowering {

Expected<bool> Lowering::cumsum(const Node& n) {
  if (!n.operand(0).is_value()) return false;
  const Value* input = n.operand(0).value;
  const std::vector<int64_t> sizes = sizes_of(input);
  const int rank = static_cast<int>(sizes.size());
  const OpCallBase call(n.op(), n.attrs());
  const std::optional<int> dim = wrap_dim(call.attr_int("dim"), rank == 0 ? 1 : rank);
  if (!dim) return false;  // the reference kernel reports the bad dim
  const DType r = n.result()->type().dtype;
  const DType acc = is_floating(r) ? DType::F64 : DType::I64;
  prepare(input, numel_of(sizes));
  const int out = result_buffer(n.result(), sizes_of(n.result()));
  if (rank == 0) {  // one element: its own sum
    LoopKernel k = make_kernel(KernelKind::Pointwise);
    BodyBuilder b{k};
    b.store(out, IndexExpr(), b.cast(b.cast(value_at(b, input, {}), acc), r));
    append(std::move(k));
    return true;
  }
  // The other dims (outer loops, in order) and the scanned one (innermost, in order).
  std::vector<int64_t> rows;
  for (int d = 0; d < rank; ++d)
    if (d != *dim) rows.push_back(sizes[static_cast<size_t>(d)]);
  const std::vector<IndexExpr> row_coords = loop_coords(rows);
  const int carry = add_buffer("t" + std::to_string(temps_++), BufferKind::Temp, acc, rows);
  const IndexExpr carry_at = strided(buffer(carry).strides, row_coords);
  {
    LoopKernel k = make_kernel(KernelKind::Pointwise);
    k.loops = rows;
    BodyBuilder b{k};
    b.store(carry, carry_at, b.constant(Scalar(int64_t{0}), acc));
    append(std::move(k));
  }
  LoopKernel k = make_kernel(KernelKind::Scan);
  k.loops = rows;
  k.loops.push_back(sizes[static_cast<size_t>(*dim)]);
  std::vector<IndexExpr> coords = row_coords;
  coords.insert(coords.begin() + *dim, sizes[static_cast<size_t>(*dim)] == 1 ? IndexExpr() : IndexExpr::var(rank - 1));
  BodyBuilder b{k};
  const int running = b.load(carry, acc, carry_at);
  const int sum = b.compute(OpKind::Add, {running, b.cast(value_at(b, input, coords), acc)}, acc);
  b.store(carry, carry_at, sum);
  b.store(out, strided(buffer(out).strides, coords), b.cast(sum, r));
  append(std::move(k));
  return true;
}

}  // namespace kiln::lowering
