#include "ops/strided_geometry.h"

#include "ops/kernel_index_util.h"
#include "ops/type_rules_util.h"

#include <algorithm>
#include <optional>
#include <utility>

namespace kiln {

int64_t strided_storage_extent(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides, int64_t offset) {
  int64_t last = offset;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) return 0;
    last += (sizes[i] - 1) * strides[i];
  }
  return last + 1;
}

bool strided_may_overlap(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, size) of the dims that vary
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) return false;
    if (sizes[i] > 1) dims.emplace_back(strides[i], sizes[i]);
  }
  std::sort(dims.begin(), dims.end());
  // Sorted by stride, each dim must step past everything the smaller dims reach.
  int64_t reach = 0;
  for (const auto& [stride, size] : dims) {
    if (stride <= reach) return true;
    reach += (size - 1) * stride;
  }
  return false;
}

std::optional<std::vector<int64_t>> view_strides(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                                                 const std::vector<int64_t>& new_sizes) {
  const int64_t new_rank = static_cast<int64_t>(new_sizes.size());
  if (sizes.empty()) return std::vector<int64_t>(new_sizes.size(), 1);
  const int64_t numel = numel_of(sizes);
  if (numel == 0 && sizes == new_sizes) return strides;
  std::vector<int64_t> out(new_sizes.size(), 1);
  if (numel == 0) return contiguous_strides(new_sizes);
  int64_t view_d = new_rank - 1;
  int64_t chunk_base = strides.back(), tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    const auto ud = static_cast<size_t>(d);
    tensor_numel *= sizes[ud];
    if (d == 0 || (sizes[ud - 1] != 1 && strides[ud - 1] != tensor_numel * chunk_base)) {
      while (view_d >= 0 && (view_numel < tensor_numel || new_sizes[static_cast<size_t>(view_d)] == 1)) {
        out[static_cast<size_t>(view_d)] = view_numel * chunk_base;
        view_numel *= new_sizes[static_cast<size_t>(view_d)];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (d > 0) {
        chunk_base = strides[ud - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return out;
}

std::string ints_str(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

}  // namespace kiln
