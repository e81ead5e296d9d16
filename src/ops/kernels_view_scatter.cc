// Reference kernels of as_strided and of the view inverses. as_strided is a view of self's
// storage (offsets count from the storage's first element, as in torch); each scatter
// returns a packed copy of self whose elements under the view are replaced by src, cast to
// self's dtype. The view is made by the view op's own kernel, so the two cannot disagree.
#include <vector>

#include "ops/kernels.h"
#include "ops/strided_geometry.h"

namespace kiln {

namespace {

// as_strided's geometry on `t`, or the error torch gives when it reaches past t's storage.
Expected<Tensor> strided_view(std::string_view op, const Tensor& t, const KernelCall& call) {
  const std::vector<int64_t>& size = call.attr_ints("size");
  const std::vector<int64_t>& stride = call.attr_ints("stride");
  const int64_t offset = call.attr_opt_int("storage_offset").value_or(t.offset());
  const int64_t storage_elements = static_cast<int64_t>(t.storage()->nbytes()) / dtype_size(t.dtype());
  const int64_t need = strided_storage_extent(size, stride, offset);
  if (need > storage_elements)
    return make_error(op, ": sizes ", ints_str(size), ", strides ", ints_str(stride), " and storage offset ", offset,
                      " require a storage of ", need, " elements, but self's storage has ", storage_elements);
  return t.as_strided(size, stride, offset);
}

// A packed copy of self with `view_of(copy)` overwritten by src.
template <typename ViewFn>
Expected<std::vector<Tensor>> scatter_into_copy(const KernelCall& call, ViewFn&& view_of) {
  Tensor out = call.operands[0].tensor.clone();
  const Tensor& src = call.operands[1].tensor;
  KILN_ASSIGN_OR_RETURN(Tensor view, view_of(out));
  if (view.sizes() != src.sizes())
    return make_error(call.name(),
                      ": expected src to have a size equal to the slice of self. src size = ", src.shape().to_string(),
                      ", slice size = ", view.shape().to_string());
  view.copy_from(src);
  return std::vector<Tensor>{out};
}

// The single result of view op `op` applied to `t` with the call's attributes.
Expected<Tensor> view_by(OpKind op, const KernelCall& call, const Tensor& t) {
  std::vector<KernelOperand> operands(1);
  operands[0].tensor = t;
  KILN_ASSIGN_OR_RETURN(std::vector<Tensor> results, run_op(op, call.explicit_attrs(), operands));
  return results[0];
}

}  // namespace

Expected<std::vector<Tensor>> kernel_as_strided(const KernelCall& call) {
  KILN_ASSIGN_OR_RETURN(Tensor view, strided_view("as_strided", call.operands[0].tensor, call));
  return std::vector<Tensor>{view};
}

Expected<std::vector<Tensor>> kernel_slice_scatter(const KernelCall& call) {
  return scatter_into_copy(call, [&](const Tensor& out) { return view_by(OpKind::Slice, call, out); });
}

Expected<std::vector<Tensor>> kernel_select_scatter(const KernelCall& call) {
  return scatter_into_copy(call, [&](const Tensor& out) { return view_by(OpKind::Select, call, out); });
}

Expected<std::vector<Tensor>> kernel_as_strided_scatter(const KernelCall& call) {
  return scatter_into_copy(call, [&](const Tensor& out) { return strided_view("as_strided_scatter", out, call); });
}

}  // namespace kiln
