// Reference kernels of advanced indexing with integer tensor indices: index (x[i, :, j])
// and index_put. Both map every element of the indexing result to an element of self.
#include <algorithm>
#include <span>

#include "ops/kernel_index_util.h"
#include "ops/kernel_util.h"
#include "ops/kernels.h"

namespace kiln {

namespace {

// The elements of self that an indexing result picks: `sizes` is the result's shape and
// `offsets[k]` the offset (under `strides`) of the result's row-major element k.
struct IndexMap {
  std::vector<int64_t> sizes;
  std::vector<int64_t> offsets;
};

std::vector<int64_t> broadcast_sizes(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  std::vector<int64_t> out(std::max(a.size(), b.size()), 1);
  for (size_t i = 0; i < out.size(); ++i) {
    const size_t from_end = out.size() - 1 - i;
    const int64_t x = from_end < a.size() ? a[a.size() - 1 - from_end] : 1;
    const int64_t y = from_end < b.size() ? b[b.size() - 1 - from_end] : 1;
    out[i] = x == 1 ? y : x;
  }
  return out;
}

Expected<IndexMap> index_map(std::string_view op, const Tensor& self, const std::vector<int64_t>& strides,
                             std::span<const KernelOperand> indices) {
  const int rank = self.dim();
  std::vector<int> indexed;
  std::vector<int64_t> bcast;
  for (int i = 0; i < static_cast<int>(indices.size()); ++i) {
    if (!indices[static_cast<size_t>(i)].is_tensor()) continue;
    const Tensor& t = indices[static_cast<size_t>(i)].tensor;
    bcast = indexed.empty() ? t.sizes() : broadcast_sizes(bcast, t.sizes());
    indexed.push_back(i);
  }
  const int nb = static_cast<int>(bcast.size());
  const bool adjacent = indexed.empty() || indexed.back() - indexed.front() + 1 == static_cast<int>(indexed.size());
  const int first = indexed.empty() ? 0 : indexed.front();
  // Position in the result of each self dim that is not indexed, and where bcast starts.
  std::vector<int> pos(static_cast<size_t>(rank), -1);
  std::vector<int64_t> sizes;
  const int bstart = adjacent ? first : 0;
  if (!adjacent) sizes = bcast;
  for (int i = 0; i < rank; ++i) {
    if (adjacent && i == first) sizes.insert(sizes.end(), bcast.begin(), bcast.end());
    const bool is_indexed = i < static_cast<int>(indices.size()) && indices[static_cast<size_t>(i)].is_tensor();
    if (is_indexed) continue;
    pos[static_cast<size_t>(i)] = static_cast<int>(sizes.size());
    sizes.push_back(self.sizes()[static_cast<size_t>(i)]);
  }
  std::vector<std::vector<int64_t>> istrides;
  for (int i : indexed) istrides.push_back(broadcast_strides(indices[static_cast<size_t>(i)].tensor, bcast));
  IndexMap m{sizes, {}};
  Status status;
  for_each_multi_index(sizes, [&](const std::vector<int64_t>& idx) {
    if (!status) return;
    int64_t off = 0;
    for (int i = 0; i < rank; ++i) {
      const auto ui = static_cast<size_t>(i);
      if (pos[ui] >= 0) {
        off += idx[static_cast<size_t>(pos[ui])] * strides[ui];
        continue;
      }
      const size_t k = static_cast<size_t>(std::find(indexed.begin(), indexed.end(), i) - indexed.begin());
      const Tensor& t = indices[ui].tensor;
      int64_t io = 0;
      for (int b = 0; b < nb; ++b) io += idx[static_cast<size_t>(bstart + b)] * istrides[k][static_cast<size_t>(b)];
      const int64_t size = self.sizes()[ui];
      int64_t v = load_int(t.data_bytes(), t.dtype(), io);
      if (v < -size || v >= size) {
        status = make_error(op, ": index ", v, " is out of bounds for dim ", i, " with size ", size);
        return;
      }
      off += (v < 0 ? v + size : v) * strides[ui];
    }
    m.offsets.push_back(off);
  });
  if (!status) return status.error();
  return m;
}

}  // namespace

Expected<std::vector<Tensor>> kernel_index(const KernelCall& call) {
  const Tensor& self = call.operands[0].tensor;
  KILN_ASSIGN_OR_RETURN(IndexMap m, index_map("index", self, self.strides(), call.operands.subspan(1)));
  Tensor out = new_result(call);
  const ElementAccess es(self), eo(out);
  for (size_t k = 0; k < m.offsets.size(); ++k) eo.set_from(static_cast<int64_t>(k), es, m.offsets[k]);
  return std::vector<Tensor>{out};
}

Expected<std::vector<Tensor>> kernel_index_put(const KernelCall& call) {
  const Tensor& self = call.operands[0].tensor;
  const KernelOperand& values_op = call.operands.back();
  const Tensor& values = values_op.tensor;
  if (values.dtype() != self.dtype())
    return make_error("index_put: index put requires the source and destination dtypes match, got ",
                      dtype_name(self.dtype()), " for the destination and ", dtype_name(values.dtype()),
                      " for the source");
  Tensor out = new_result(call);
  out.copy_from(self);
  const auto indices = call.operands.subspan(1, call.operands.size() - 2);
  KILN_ASSIGN_OR_RETURN(IndexMap m, index_map("index_put", self, out.strides(), indices));
  // values must broadcast to the indexing result.
  const bool fits =
      values.dim() <= static_cast<int>(m.sizes.size()) && broadcast_sizes(values.sizes(), m.sizes) == m.sizes;
  if (!fits)
    return make_error("index_put: shape mismatch: value tensor of shape ", values.shape().to_string(),
                      " cannot be broadcast to indexing result of shape ", Shape::from_sizes(m.sizes).to_string());
  const bool accumulate = call.attr_bool("accumulate");
  const ElementAccess ev(values), eo(out);
  const bool fp = is_floating(out.dtype());
  size_t k = 0;
  for_each_index(m.sizes, {broadcast_strides(values, m.sizes)}, [&](int64_t, const int64_t* off) {
    const int64_t o = m.offsets[k++];
    if (fp)
      eo.set(o, accumulate ? eo.get(o) + ev.get(off[0]) : ev.get(off[0]));
    else if (accumulate)
      eo.set_int(
          o, static_cast<int64_t>(static_cast<uint64_t>(eo.get_int(o)) + static_cast<uint64_t>(ev.get_int(off[0]))));
    else
      eo.set_int(o, ev.get_int(off[0]));
  });
  return std::vector<Tensor>{out};
}

}  // namespace kiln
