// Lowering of argmax and argmin to reduction kernels: `reduce argmax %x, %i` folds the value
// with its row-major position among the reduced dims (dim=None: the flattened input), so the
// result is the first index of the extreme value, a NaN counting as the extreme (PyTorch's
// semantics; loop_ir.h, ReduceKind).
#include "lower/lowering.h"

namespace kiln::lowering {

Expected<bool> Lowering::arg_reduction(const Node& n) {
  const Value* input = n.operand(0).value;
  KILN_ASSIGN_OR_RETURN(ReduceNest nest, reduction_nest(n));
  // No identity: the reference kernel reports the empty group.
  if (nest.count == 0) return false;
  prepare(input, numel_of(sizes_of(input)));
  LoopKernel k = nest.kernel();
  BodyBuilder b{k};
  const DType r = n.result()->type().dtype;
  int v;
  if (nest.num_reduce_loops == 0) {
    v = b.constant(Scalar(int64_t{0}), r);  // a 0-d input: its one element is at index 0
  } else {
    BodyOp rop;
    rop.kind = BodyOp::Kind::Reduce;
    rop.reduce = n.op() == OpKind::Argmax ? ReduceKind::Argmax : ReduceKind::Argmin;
    rop.args = {value_at(b, input, nest.in_coords), b.index(nest.position)};
    rop.dtype = r;
    v = b.add(std::move(rop));
    k.reduce_op = v;
  }
  const int out = result_buffer(n.result(), sizes_of(n.result()));
  b.store(out, strided(buffer(out).strides, nest.out_coords), v);
  append(std::move(k));
  return true;
}

}  // namespace kiln::lowering
