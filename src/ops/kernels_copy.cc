// Reference kernels that copy values: _to_copy, clone, contiguous (always into a fresh,
// packed tensor, so their results never alias the input), and the in-place copy_, fill_
// and zero_, which write operand 0 through its strides and return it.
#include <vector>

#include "ops/kernel_util.h"
#include "ops/kernels.h"

namespace kiln {

namespace {

Expected<std::vector<Tensor>> packed_copy(const KernelCall& call) {
  Tensor out = new_result(call);
  out.copy_from(call.operands[0].tensor);
  return std::vector<Tensor>{out};
}

// `src` viewed at `sizes` by broadcasting (stretched dims get stride 0).
Tensor broadcast_view(const Tensor& src, const std::vector<int64_t>& sizes) {
  return src.as_strided(sizes, broadcast_strides(src, sizes), src.offset());
}

// Writes `value` (broadcast) into `self`; a source that shares self's storage is copied
// first, since an overlapping read and write would see values already overwritten.
void write_into(Tensor& self, const Tensor& value) {
  const Tensor src = value.storage() == self.storage() ? value.clone() : value;
  self.copy_from(broadcast_view(src, self.sizes()));
}

}  // namespace

Expected<std::vector<Tensor>> kernel_to_copy(const KernelCall& call) { return packed_copy(call); }
Expected<std::vector<Tensor>> kernel_clone(const KernelCall& call) { return packed_copy(call); }
Expected<std::vector<Tensor>> kernel_contiguous(const KernelCall& call) { return packed_copy(call); }

Expected<std::vector<Tensor>> kernel_copy_(const KernelCall& call) {
  Tensor self = call.operands[0].tensor;
  write_into(self, call.operands[1].tensor);
  return std::vector<Tensor>{self};
}

Expected<std::vector<Tensor>> kernel_fill_(const KernelCall& call) {
  Tensor self = call.operands[0].tensor;
  const KernelOperand& v = call.operands[1];
  if (v.is_tensor() && v.tensor.dim() != 0)
    return make_error(call.name(), ": only a 0-d value tensor can fill, got one of rank ", v.tensor.dim());
  // A float literal is held in f64, which keeps it exact, and rounds once to self's dtype, as
  // torch's fill_ casts its double; its natural dtype (f32) rounded 0.001 before an f64 self.
  const DType literal_dtype = v.literal.is_float() ? DType::F64 : v.literal.natural_dtype();
  write_into(self, v.is_tensor() ? v.tensor : Tensor::scalar(v.literal, literal_dtype));
  return std::vector<Tensor>{self};
}

Expected<std::vector<Tensor>> kernel_zero_(const KernelCall& call) {
  Tensor self = call.operands[0].tensor;
  write_into(self, Tensor::scalar(Scalar(int64_t{0}), self.dtype()));
  return std::vector<Tensor>{self};
}

}  // namespace kiln
