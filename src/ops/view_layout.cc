#include "ops/view_layout.h"

#include <algorithm>

#include "ops/kernel_index_util.h"
#include "ops/strided_geometry.h"
#include "ops/type_rules_util.h"
#include "support/check.h"

namespace kiln {
namespace {

using Layouts = std::vector<std::optional<Layout>>;

Expected<Layouts> one(Layout l) { return Layouts{std::move(l)}; }

int64_t numel(const std::vector<int64_t>& sizes) { return numel_of(sizes); }

// reshape: a view when strides express the new sizes, else a copy (nullopt).
Expected<Layouts> reshaped(std::string_view op, const Layout& in, const std::vector<int64_t>& sizes,
                           bool copy_allowed) {
  if (numel(sizes) != numel(in.sizes))
    return make_error(op, ": shape ", Shape::from_sizes(sizes).to_string(), " is invalid for input of size ",
                      numel(in.sizes));
  if (auto s = view_strides(in.sizes, in.strides, sizes)) return one({sizes, *s, in.offset});
  if (copy_allowed) return Layouts{std::nullopt};
  return make_error(
      "view: view size is not compatible with input tensor's size and stride (at least one dimension "
      "spans across two contiguous subspaces). Use reshape instead.");
}

// `in` along dim `d` from `start`, `length` elements every `step`.
Layout narrowed(const Layout& in, int d, int64_t start, int64_t length, int64_t step = 1) {
  Layout out = in;
  const auto ud = static_cast<size_t>(d);
  out.offset = in.offset + (length > 0 ? start * in.strides[ud] : 0);
  out.sizes[ud] = length;
  out.strides[ud] *= step;
  return out;
}

Layouts pieces(const Layout& in, int d, const std::vector<int64_t>& lengths) {
  Layouts out;
  int64_t start = 0;
  for (int64_t n : lengths) {
    out.push_back(narrowed(in, d, start, n));
    start += n;
  }
  return out;
}

int dim_of(const OpCallBase& call, const char* attr, int rank) { return *wrap_dim(call.attr_int(attr), rank); }

Expected<Layouts> expanded(const Layout& in, const std::vector<int64_t>& sizes) {
  const size_t lead = sizes.size() - in.sizes.size();
  std::vector<int64_t> strides(sizes.size(), 0);
  for (size_t i = 0; i < in.sizes.size(); ++i) {
    const int64_t have = in.sizes[i], want = sizes[lead + i];
    if (have != want && have != 1)
      return make_error("expand: the expanded size of the tensor (", want, ") must match the existing size (", have,
                        ") at non-singleton dimension ", lead + i);
    strides[lead + i] = have == want ? in.strides[i] : 0;
  }
  return one({sizes, strides, in.offset});
}

Layout squeezed(const OpCallBase& call, const Layout& in) {
  const int rank = static_cast<int>(in.sizes.size());
  std::vector<bool> drop(in.sizes.size(), false);
  if (auto dims = call.attr_opt_ints("dim")) {
    for (int64_t d : *dims)
      if (rank > 0) {
        const auto w = static_cast<size_t>(*wrap_dim(d, rank));
        drop[w] = in.sizes[w] == 1;
      }
  } else {
    for (size_t i = 0; i < drop.size(); ++i) drop[i] = in.sizes[i] == 1;
  }
  Layout out{{}, {}, in.offset};
  for (size_t i = 0; i < drop.size(); ++i)
    if (!drop[i]) {
      out.sizes.push_back(in.sizes[i]);
      out.strides.push_back(in.strides[i]);
    }
  return out;
}

Layout unsqueezed(const OpCallBase& call, const Layout& in) {
  const auto d = static_cast<size_t>(dim_of(call, "dim", static_cast<int>(in.sizes.size()) + 1));
  Layout out = in;
  // torch's choice of stride for the new unit dim, so views compare equal with its strides.
  const int64_t stride = d >= in.sizes.size() ? 1 : in.sizes[d] * in.strides[d];
  out.sizes.insert(out.sizes.begin() + static_cast<int64_t>(d), 1);
  out.strides.insert(out.strides.begin() + static_cast<int64_t>(d), stride);
  return out;
}

Expected<Layouts> selected(const OpCallBase& call, const Layout& in) {
  const int d = dim_of(call, "dim", static_cast<int>(in.sizes.size()));
  const auto ud = static_cast<size_t>(d);
  const int64_t size = in.sizes[ud];
  int64_t index = call.attr_int("index");
  if (index < -size || index >= size)
    return make_error("select: index ", index, " out of range for tensor of size ",
                      Shape::from_sizes(in.sizes).to_string(), " at dimension ", d);
  if (index < 0) index += size;
  Layout out = in;
  out.sizes.erase(out.sizes.begin() + d);
  out.strides.erase(out.strides.begin() + d);
  out.offset = in.offset + index * in.strides[ud];
  return one(out);
}

Expected<Layouts> narrowed_by(const OpCallBase& call, const Layout& in) {
  const int d = dim_of(call, "dim", static_cast<int>(in.sizes.size()));
  const int64_t size = in.sizes[static_cast<size_t>(d)], length = call.attr_int("length");
  int64_t start = call.attr_int("start");
  // The shape rule checks these for a static dim; a symbolic one is only known here.
  if (start < -size || start > size)
    return make_error("narrow: start (", start, ") out of range for dimension ", d, " of size ", size);
  if (start < 0) start += size;
  if (start + length > size)
    return make_error("narrow: start (", start, ") + length (", length, ") exceeds dimension size (", size, ")");
  return one(narrowed(in, d, start, length));
}

}  // namespace

Layout contiguous_layout(const std::vector<int64_t>& sizes) { return {sizes, contiguous_strides(sizes), 0}; }

Expected<std::vector<std::optional<Layout>>> view_layouts(const OpCallBase& call, const Layout& in,
                                                          const std::vector<std::vector<int64_t>>& result_sizes) {
  const int rank = static_cast<int>(in.sizes.size());
  switch (call.op()) {
    case OpKind::Reshape: return reshaped("reshape", in, result_sizes[0], true);
    case OpKind::Flatten: return reshaped("flatten", in, result_sizes[0], true);
    case OpKind::View: return reshaped("view", in, result_sizes[0], false);
    case OpKind::Permute: {
      Layout out{{}, {}, in.offset};
      for (int64_t d : call.attr_ints("dims")) {
        const auto w = static_cast<size_t>(*wrap_dim(d, rank));
        out.sizes.push_back(in.sizes[w]);
        out.strides.push_back(in.strides[w]);
      }
      return one(out);
    }
    case OpKind::Transpose: {
      if (rank == 0) return one(in);
      Layout out = in;
      const auto a = static_cast<size_t>(dim_of(call, "dim0", rank)),
                 b = static_cast<size_t>(dim_of(call, "dim1", rank));
      std::swap(out.sizes[a], out.sizes[b]);
      std::swap(out.strides[a], out.strides[b]);
      return one(out);
    }
    case OpKind::T:
      if (rank < 2) return one(in);
      return one({{in.sizes[1], in.sizes[0]}, {in.strides[1], in.strides[0]}, in.offset});
    case OpKind::Expand: return expanded(in, result_sizes[0]);
    case OpKind::Squeeze: return one(squeezed(call, in));
    case OpKind::Unsqueeze: return one(unsqueezed(call, in));
    case OpKind::Slice: {
      const int d = dim_of(call, "dim", rank);
      const int64_t step = call.attr_int("step");
      const SliceBounds b =
          slice_bounds(in.sizes[static_cast<size_t>(d)], call.attr_opt_int("start"), call.attr_opt_int("end"), step);
      return one(narrowed(in, d, b.start, b.length, step));
    }
    case OpKind::Select: return selected(call, in);
    case OpKind::Narrow: return narrowed_by(call, in);
    case OpKind::Split: {
      const int d = dim_of(call, "dim", rank);
      return pieces(in, d, split_sizes(in.sizes[static_cast<size_t>(d)], call.attr_int("split_size")));
    }
    case OpKind::Chunk: {
      const int d = dim_of(call, "dim", rank);
      return pieces(in, d, chunk_sizes(in.sizes[static_cast<size_t>(d)], call.attr_int("chunks")));
    }
    case OpKind::AsStrided:
      return one(
          {call.attr_ints("size"), call.attr_ints("stride"), call.attr_opt_int("storage_offset").value_or(in.offset)});
    default: KILN_UNREACHABLE("view_layouts: " << call.name() << " is not a view op");
  }
}

}  // namespace kiln
