#include "ops/kernel_call_layout.h"

#include <string>

namespace kiln {

namespace {

Status decode_views(const OpCallBase& call, KernelCallLayout& layout) {
  const std::optional<std::vector<int64_t>> flat =
      call.info().schema.find_arg("views") ? call.attr_opt_ints("views") : std::nullopt;
  if (!flat) return Status::ok();
  const std::vector<int64_t>& v = *flat;
  const int64_t num_args = static_cast<int64_t>(layout.is_tensor.size());
  size_t i = 0;
  while (i < v.size()) {
    if (i + 4 > v.size()) return make_error(call.name(), ": views ends inside a record");
    KernelArgView r;
    r.arg = v[i], r.group = v[i + 1], r.storage_offset = v[i + 2];
    const int64_t rank = v[i + 3];
    if (rank < 0 || i + 4 + 2 * static_cast<size_t>(rank) > v.size())
      return make_error(call.name(), ": views has a record of rank ", rank, " past its end");
    r.sizes.assign(v.begin() + static_cast<std::ptrdiff_t>(i + 4),
                   v.begin() + static_cast<std::ptrdiff_t>(i + 4 + rank));
    r.strides.assign(v.begin() + static_cast<std::ptrdiff_t>(i + 4 + rank),
                     v.begin() + static_cast<std::ptrdiff_t>(i + 4 + 2 * rank));
    i += 4 + 2 * static_cast<size_t>(rank);
    if (r.arg < 0 || r.arg >= num_args || !layout.is_tensor[static_cast<size_t>(r.arg)])
      return make_error(call.name(), ": views names argument ", r.arg, ", which is not a tensor argument");
    if (r.group < 0 || r.group > r.arg)
      return make_error(call.name(), ": views gives argument ", r.arg, " the group ", r.group,
                        ", which is not an earlier argument");
    if (layout.view[static_cast<size_t>(r.arg)])
      return make_error(call.name(), ": views names argument ", r.arg, " twice");
    if (r.storage_offset < 0)
      return make_error(call.name(), ": views gives argument ", r.arg, " a negative storage offset");
    for (int64_t s : r.strides)
      if (s < 0) return make_error(call.name(), ": views gives argument ", r.arg, " a negative stride");
    layout.view[static_cast<size_t>(r.arg)] = std::move(r);
  }
  for (const auto& r : layout.view)
    if (r && !layout.view[static_cast<size_t>(r->group)])
      return make_error(call.name(), ": argument ", r->arg, " is viewed in group ", r->group, ", which has no view");
  return Status::ok();
}

}  // namespace

Expected<KernelCallLayout> decode_kernel_call(const OpCallBase& call, std::vector<bool> is_tensor) {
  KernelCallLayout layout;
  const size_t n = is_tensor.size();
  layout.is_tensor = std::move(is_tensor);
  layout.written.assign(n, false);
  layout.view.assign(n, std::nullopt);
  if (std::optional<std::vector<int64_t>> w = call.attr_opt_ints("written")) {
    for (int64_t a : *w) {
      if (a < 0 || a >= static_cast<int64_t>(n) || !layout.is_tensor[static_cast<size_t>(a)])
        return make_error(call.name(), ": written names argument ", a, ", which is not a tensor argument of the ", n,
                          " it has");
      layout.written[static_cast<size_t>(a)] = true;
    }
  } else {
    layout.written = layout.is_tensor;  // unknown: every tensor argument
  }
  KILN_TRY(decode_views(call, layout));
  std::vector<bool> group_written(n, false);
  for (size_t a = 0; a < n; ++a)
    if (layout.written[a] && layout.view[a]) group_written[static_cast<size_t>(layout.view[a]->group)] = true;
  for (size_t a = 0; a < n; ++a) {
    const bool leader = layout.view[a] && layout.view[a]->group == static_cast<int64_t>(a);
    if ((layout.written[a] && !layout.view[a]) || (leader && group_written[a]))
      layout.result_args.push_back(static_cast<int64_t>(a));
  }
  return layout;
}

std::vector<int64_t> encode_kernel_views(const std::vector<KernelArgView>& views) {
  std::vector<int64_t> out;
  for (const KernelArgView& r : views) {
    out.insert(out.end(), {r.arg, r.group, r.storage_offset, static_cast<int64_t>(r.sizes.size())});
    out.insert(out.end(), r.sizes.begin(), r.sizes.end());
    out.insert(out.end(), r.strides.begin(), r.strides.end());
  }
  return out;
}

}  // namespace kiln
