// Type rules of kernel_call (no results) and kernel_call_functional (the types of what it
// writes). Neither consults the kernel table: a graph that calls a kernel type-checks (and
// prints, parses, functionalizes) without the kernel registered; running it needs it.
#include "ops/kernel_call_layout.h"
#include "ops/type_rules.h"

namespace kiln {

namespace {

std::vector<bool> tensor_args(const TypeCall& call) {
  std::vector<bool> out;
  for (const TypeOperand& o : call.operands) out.push_back(o.is_tensor());
  return out;
}

// Each viewed argument must lie inside its group's storage value (static sizes only).
Status check_views_fit(const TypeCall& call, const KernelCallLayout& layout) {
  for (const auto& v : layout.view) {
    if (!v) continue;
    const TensorType& base = *call.operands[static_cast<size_t>(v->group)].type;
    if (!base.shape.is_static()) continue;
    int64_t extent = v->storage_offset + 1, numel = 1;
    bool empty = false;
    for (size_t d = 0; d < v->sizes.size(); ++d) {
      empty |= v->sizes[d] == 0;
      extent += (v->sizes[d] - 1) * v->strides[d];
    }
    for (int64_t s : base.shape.sizes()) numel *= s;
    if (!empty && extent > numel)
      return make_error(call.name(), ": argument ", v->arg, "'s view needs ", extent,
                        " elements of its storage, which holds ", numel);
    const TensorType& arg = *call.operands[static_cast<size_t>(v->arg)].type;
    if (arg.dtype != base.dtype)
      return make_error(call.name(), ": argument ", v->arg, " shares the storage of argument ", v->group,
                        " but has another dtype");
  }
  return Status::ok();
}

Expected<std::vector<TensorType>> functional_types(const TypeCall& call) {
  KILN_ASSIGN_OR_RETURN(KernelCallLayout layout, decode_kernel_call(call, tensor_args(call)));
  KILN_TRY(check_views_fit(call, layout));
  std::vector<TensorType> out;
  for (int64_t a : layout.result_args) out.push_back(*call.operands[static_cast<size_t>(a)].type);
  return out;
}

}  // namespace

Expected<std::vector<Shape>> shape_rule_kernel_call(const TypeCall& call) {
  KILN_TRY(decode_kernel_call(call, tensor_args(call)));
  return std::vector<Shape>{};
}

Expected<std::vector<DType>> dtype_rule_kernel_call(const TypeCall&) { return std::vector<DType>{}; }

Expected<std::vector<Shape>> shape_rule_kernel_call_functional(const TypeCall& call) {
  KILN_ASSIGN_OR_RETURN(std::vector<TensorType> types, functional_types(call));
  std::vector<Shape> out;
  for (const TensorType& t : types) out.push_back(t.shape);
  return out;
}

Expected<std::vector<DType>> dtype_rule_kernel_call_functional(const TypeCall& call) {
  KILN_ASSIGN_OR_RETURN(std::vector<TensorType> types, functional_types(call));
  std::vector<DType> out;
  for (const TensorType& t : types) out.push_back(t.dtype);
  return out;
}

}  // namespace kiln
