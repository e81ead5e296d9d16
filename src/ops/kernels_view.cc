// Reference kernels of the view ops. Each returns a Tensor that shares operand 0's storage
// (Tensor::as_strided); reshape and flatten copy only when no strides express the new shape,
// and view reports that case as an error, like torch.
#include <optional>

#include "ops/kernel_index_util.h"
#include "ops/kernels.h"
#include "ops/strided_geometry.h"
#include "ops/type_rules_util.h"
#include "support/check.h"

namespace kiln {

namespace {

Expected<std::vector<Tensor>> single(Tensor t) { return std::vector<Tensor>{std::move(t)}; }

const Tensor& self_of(const KernelCall& call) { return call.operands[0].tensor; }

std::vector<int64_t> result_sizes(const KernelCall& call, int i = 0) {
  return call.result_types[static_cast<size_t>(i)].shape.sizes();
}

// reshape: a view when possible, else a contiguous copy viewed at the new sizes.
Tensor reshape_tensor(const Tensor& t, const std::vector<int64_t>& new_sizes) {
  if (auto s = view_strides(t.sizes(), t.strides(), new_sizes)) return t.as_strided(new_sizes, *s, t.offset());
  Tensor c = t.clone();
  return c.as_strided(new_sizes, contiguous_strides(new_sizes), c.offset());
}

Status check_numel(std::string_view op, const Tensor& t, const std::vector<int64_t>& sizes) {
  if (numel_of(sizes) == t.numel()) return Status::ok();
  return make_error(op, ": shape ", Shape::from_sizes(sizes).to_string(), " is invalid for input of size ", t.numel());
}

// A view of `t` along dim `d` starting at `start` with `length` elements every `step`.
Tensor narrow_view(const Tensor& t, int d, int64_t start, int64_t length, int64_t step = 1) {
  std::vector<int64_t> sizes = t.sizes(), strides = t.strides();
  const auto ud = static_cast<size_t>(d);
  const int64_t offset = t.offset() + (length > 0 ? start * strides[ud] : 0);
  sizes[ud] = length;
  strides[ud] *= step;
  return t.as_strided(sizes, strides, offset);
}

}  // namespace

Expected<std::vector<Tensor>> kernel_reshape(const KernelCall& call) {
  const std::vector<int64_t> sizes = result_sizes(call);
  KILN_TRY(check_numel("reshape", self_of(call), sizes));
  return single(reshape_tensor(self_of(call), sizes));
}

Expected<std::vector<Tensor>> kernel_view(const KernelCall& call) {
  const Tensor& t = self_of(call);
  const std::vector<int64_t> sizes = result_sizes(call);
  KILN_TRY(check_numel("view", t, sizes));
  auto s = view_strides(t.sizes(), t.strides(), sizes);
  if (!s)
    return make_error("view: view size is not compatible with input tensor's size and stride (at least one dimension "
                      "spans across two contiguous subspaces). Use reshape instead.");
  return single(t.as_strided(sizes, *s, t.offset()));
}

Expected<std::vector<Tensor>> kernel_flatten(const KernelCall& call) {
  return single(reshape_tensor(self_of(call), result_sizes(call)));
}

Expected<std::vector<Tensor>> kernel_permute(const KernelCall& call) {
  const Tensor& t = self_of(call);
  std::vector<int64_t> sizes, strides;
  for (int64_t d : call.attr_ints("dims")) {
    const auto w = static_cast<size_t>(*wrap_dim(d, t.dim()));
    sizes.push_back(t.sizes()[w]);
    strides.push_back(t.strides()[w]);
  }
  return single(t.as_strided(sizes, strides, t.offset()));
}

Expected<std::vector<Tensor>> kernel_transpose(const KernelCall& call) {
  const Tensor& t = self_of(call);
  if (t.dim() == 0) return single(t.as_strided({}, {}, t.offset()));
  const auto a = static_cast<size_t>(*wrap_dim(call.attr_int("dim0"), t.dim()));
  const auto b = static_cast<size_t>(*wrap_dim(call.attr_int("dim1"), t.dim()));
  std::vector<int64_t> sizes = t.sizes(), strides = t.strides();
  std::swap(sizes[a], sizes[b]);
  std::swap(strides[a], strides[b]);
  return single(t.as_strided(sizes, strides, t.offset()));
}

Expected<std::vector<Tensor>> kernel_t(const KernelCall& call) {
  const Tensor& t = self_of(call);
  if (t.dim() < 2) return single(t.as_strided(t.sizes(), t.strides(), t.offset()));
  return single(t.as_strided({t.sizes()[1], t.sizes()[0]}, {t.strides()[1], t.strides()[0]}, t.offset()));
}

Expected<std::vector<Tensor>> kernel_expand(const KernelCall& call) {
  const Tensor& t = self_of(call);
  const std::vector<int64_t> sizes = result_sizes(call);
  const size_t lead = sizes.size() - t.sizes().size();
  std::vector<int64_t> strides(sizes.size(), 0);
  for (size_t i = 0; i < t.sizes().size(); ++i) {
    const int64_t have = t.sizes()[i], want = sizes[lead + i];
    if (have != want && have != 1)
      return make_error("expand: the expanded size of the tensor (", want, ") must match the existing size (", have,
                        ") at non-singleton dimension ", lead + i);
    strides[lead + i] = have == want ? t.strides()[i] : 0;
  }
  return single(t.as_strided(sizes, strides, t.offset()));
}

Expected<std::vector<Tensor>> kernel_squeeze(const KernelCall& call) {
  const Tensor& t = self_of(call);
  std::vector<bool> drop(t.sizes().size(), false);
  if (auto dims = call.attr_opt_ints("dim")) {
    for (int64_t d : *dims)
      if (t.dim() > 0) {
        const auto w = static_cast<size_t>(*wrap_dim(d, t.dim()));
        drop[w] = t.sizes()[w] == 1;
      }
  } else {
    for (size_t i = 0; i < drop.size(); ++i) drop[i] = t.sizes()[i] == 1;
  }
  std::vector<int64_t> sizes, strides;
  for (size_t i = 0; i < drop.size(); ++i)
    if (!drop[i]) {
      sizes.push_back(t.sizes()[i]);
      strides.push_back(t.strides()[i]);
    }
  return single(t.as_strided(sizes, strides, t.offset()));
}

Expected<std::vector<Tensor>> kernel_unsqueeze(const KernelCall& call) {
  const Tensor& t = self_of(call);
  const auto d = static_cast<size_t>(*wrap_dim(call.attr_int("dim"), t.dim() + 1));
  std::vector<int64_t> sizes = t.sizes(), strides = t.strides();
  // torch's choice of stride for the new unit dim, so views compare equal with its strides.
  const int64_t stride = d >= sizes.size() ? 1 : sizes[d] * strides[d];
  sizes.insert(sizes.begin() + static_cast<int64_t>(d), 1);
  strides.insert(strides.begin() + static_cast<int64_t>(d), stride);
  return single(t.as_strided(sizes, strides, t.offset()));
}

Expected<std::vector<Tensor>> kernel_slice(const KernelCall& call) {
  const Tensor& t = self_of(call);
  const int d = *wrap_dim(call.attr_int("dim"), t.dim());
  const int64_t step = call.attr_int("step");
  const SliceBounds b = slice_bounds(t.sizes()[static_cast<size_t>(d)], call.attr_opt_int("start"),
                                     call.attr_opt_int("end"), step);
  return single(narrow_view(t, d, b.start, b.length, step));
}

Expected<std::vector<Tensor>> kernel_select(const KernelCall& call) {
  const Tensor& t = self_of(call);
  const int d = *wrap_dim(call.attr_int("dim"), t.dim());
  const auto ud = static_cast<size_t>(d);
  const int64_t size = t.sizes()[ud];
  int64_t index = call.attr_int("index");
  if (index < -size || index >= size)
    return make_error("select: index ", index, " out of range for tensor of size ", t.shape().to_string(),
                      " at dimension ", d);
  if (index < 0) index += size;
  std::vector<int64_t> sizes = t.sizes(), strides = t.strides();
  sizes.erase(sizes.begin() + d);
  strides.erase(strides.begin() + d);
  return single(t.as_strided(sizes, strides, t.offset() + index * t.strides()[ud]));
}

Expected<std::vector<Tensor>> kernel_narrow(const KernelCall& call) {
  const Tensor& t = self_of(call);
  const int d = *wrap_dim(call.attr_int("dim"), t.dim());
  const int64_t size = t.sizes()[static_cast<size_t>(d)], length = call.attr_int("length");
  int64_t start = call.attr_int("start");
  // The shape rule checks these for a static dim; a symbolic one is only known here.
  if (start < -size || start > size)
    return make_error("narrow: start (", start, ") out of range for dimension ", d, " of size ", size);
  if (start < 0) start += size;
  if (start + length > size)
    return make_error("narrow: start (", start, ") + length (", length, ") exceeds dimension size (", size, ")");
  return single(narrow_view(t, d, start, length));
}

namespace {

// Consecutive views of `t` along `d` with the given piece sizes.
std::vector<Tensor> split_views(const Tensor& t, int d, const std::vector<int64_t>& pieces) {
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t n : pieces) {
    out.push_back(narrow_view(t, d, start, n));
    start += n;
  }
  return out;
}

}  // namespace

Expected<std::vector<Tensor>> kernel_split(const KernelCall& call) {
  const Tensor& t = self_of(call);
  const int d = *wrap_dim(call.attr_int("dim"), t.dim());
  return split_views(t, d, split_sizes(t.sizes()[static_cast<size_t>(d)], call.attr_int("split_size")));
}

Expected<std::vector<Tensor>> kernel_chunk(const KernelCall& call) {
  const Tensor& t = self_of(call);
  const int d = *wrap_dim(call.attr_int("dim"), t.dim());
  return split_views(t, d, chunk_sizes(t.sizes()[static_cast<size_t>(d)], call.attr_int("chunks")));
}

}  // namespace kiln
