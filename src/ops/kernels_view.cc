// Reference kernels of the view ops. Each returns Tensors that share operand 0's storage
// (Tensor::as_strided) with the layouts view_layout.h computes; reshape and flatten copy only
// when no strides express the new shape, and view reports that case as an error, like torch.
#include "ops/kernels.h"
#include "ops/view_layout.h"

namespace kiln {

namespace {

// The results of view op `call` on operand 0: views of its storage, or contiguous copies.
Expected<std::vector<Tensor>> views(const KernelCall& call) {
  const Tensor& t = call.operands[0].tensor;
  std::vector<std::vector<int64_t>> sizes;
  for (const TensorType& r : call.result_types) sizes.push_back(r.shape.sizes());
  KILN_ASSIGN_OR_RETURN(std::vector<std::optional<Layout>> layouts,
                        view_layouts(call, Layout{t.sizes(), t.strides(), t.offset()}, sizes));
  std::vector<Tensor> out;
  for (size_t i = 0; i < layouts.size(); ++i) {
    if (layouts[i]) {
      out.push_back(t.as_strided(layouts[i]->sizes, layouts[i]->strides, layouts[i]->offset));
      continue;
    }
    Tensor c = t.clone();
    out.push_back(c.as_strided(sizes[i], contiguous_strides(sizes[i]), c.offset()));
  }
  return out;
}

}  // namespace

Expected<std::vector<Tensor>> kernel_reshape(const KernelCall& call) { return views(call); }
Expected<std::vector<Tensor>> kernel_view(const KernelCall& call) { return views(call); }
Expected<std::vector<Tensor>> kernel_flatten(const KernelCall& call) { return views(call); }
Expected<std::vector<Tensor>> kernel_permute(const KernelCall& call) { return views(call); }
Expected<std::vector<Tensor>> kernel_transpose(const KernelCall& call) { return views(call); }
Expected<std::vector<Tensor>> kernel_t(const KernelCall& call) { return views(call); }
Expected<std::vector<Tensor>> kernel_expand(const KernelCall& call) { return views(call); }
Expected<std::vector<Tensor>> kernel_squeeze(const KernelCall& call) { return views(call); }
Expected<std::vector<Tensor>> kernel_unsqueeze(const KernelCall& call) { return views(call); }
Expected<std::vector<Tensor>> kernel_slice(const KernelCall& call) { return views(call); }
Expected<std::vector<Tensor>> kernel_select(const KernelCall& call) { return views(call); }
Expected<std::vector<Tensor>> kernel_narrow(const KernelCall& call) { return views(call); }
Expected<std::vector<Tensor>> kernel_split(const KernelCall& call) { return views(call); }
Expected<std::vector<Tensor>> kernel_chunk(const KernelCall& call) { return views(call); }

}  // namespace kiln
