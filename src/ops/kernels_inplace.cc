// Reference kernels of the in-place ops that have a functional twin (add_ -> add, ...):
// the twin computes into a fresh tensor, which is then cast into operand 0 through its
// strides. Computing first and writing after keeps overlapping operands correct.
#include <vector>

#include "ops/kernels.h"

namespace kiln {

namespace {

Expected<std::vector<Tensor>> via_functional(const KernelCall& call, OpKind functional) {
  std::vector<TypeOperand> types = operand_types(call.operands);
  TypeCall tcall(functional, call.explicit_attrs(), types);
  KILN_ASSIGN_OR_RETURN(std::vector<TensorType> result_types, infer_types(tcall));
  KernelCall kcall(functional, call.explicit_attrs(), call.operands, result_types);
  KILN_ASSIGN_OR_RETURN(std::vector<Tensor> results, op_info(functional).kernel(kcall));
  Tensor self = call.operands[0].tensor;
  self.copy_from(results[0]);
  return std::vector<Tensor>{self};
}

}  // namespace

Expected<std::vector<Tensor>> kernel_add_(const KernelCall& call) { return via_functional(call, OpKind::Add); }
Expected<std::vector<Tensor>> kernel_sub_(const KernelCall& call) { return via_functional(call, OpKind::Sub); }
Expected<std::vector<Tensor>> kernel_mul_(const KernelCall& call) { return via_functional(call, OpKind::Mul); }
Expected<std::vector<Tensor>> kernel_div_(const KernelCall& call) { return via_functional(call, OpKind::Div); }
Expected<std::vector<Tensor>> kernel_relu_(const KernelCall& call) { return via_functional(call, OpKind::Relu); }
Expected<std::vector<Tensor>> kernel_clamp_(const KernelCall& call) { return via_functional(call, OpKind::Clamp); }
Expected<std::vector<Tensor>> kernel_masked_fill_(const KernelCall& call) {
  return via_functional(call, OpKind::MaskedFill);
}
Expected<std::vector<Tensor>> kernel_index_put_(const KernelCall& call) {
  return via_functional(call, OpKind::IndexPut);
}

}  // namespace kiln
