#include "lower/view_index.h"

#include <algorithm>

#include "core/tensor.h"
#include "ops/op_call.h"

namespace kiln {

namespace {

using Coords = std::vector<IndexExpr>;

IndexExpr flat_index(const std::vector<int64_t>& sizes) {
  const std::vector<int64_t> cs = contiguous_strides(sizes);
  IndexExpr flat;
  for (size_t k = 0; k < sizes.size(); ++k) flat = flat.plus(IndexExpr::var(static_cast<int>(k)).scaled(cs[k]));
  return flat;
}

// Whether `map` walks its input row-major with unit stride (size-1 dims may have any stride).
bool is_contiguous_map(const IndexExpr& map, const std::vector<int64_t>& sizes) {
  if (!map.is_affine() || map.max_var() >= static_cast<int>(sizes.size())) return false;
  const std::vector<int64_t> cs = contiguous_strides(sizes);
  for (size_t k = 0; k < sizes.size(); ++k)
    if (sizes[k] != 1 && map.coeff_of(static_cast<int>(k)) != cs[k]) return false;
  return true;
}

int64_t clamp_index(std::optional<int64_t> v, int64_t dflt, int64_t size) {
  int64_t x = v.value_or(dflt);
  if (x < 0) x += size;
  return std::clamp<int64_t>(x, 0, size);
}

}  // namespace

std::optional<IndexExpr> view_map(const Node& n, const std::vector<int64_t>& in, const IndexExpr& in_map,
                                  const std::vector<int64_t>& out) {
  const OpCallBase call(n.op(), n.attrs());
  const int rin = static_cast<int>(in.size()), rout = static_cast<int>(out.size());
  auto q = [](int k) { return IndexExpr::var(k); };
  Coords p(static_cast<size_t>(rin));
  switch (n.op()) {
    case OpKind::Transpose:
    case OpKind::T: {
      for (int k = 0; k < rin; ++k) p[static_cast<size_t>(k)] = q(k);
      if (rin < 2) break;
      int a = 0, b = 1;
      if (n.op() == OpKind::Transpose) {
        std::optional<int> wa = wrap_dim(call.attr_int("dim0"), rin), wb = wrap_dim(call.attr_int("dim1"), rin);
        if (!wa || !wb) return std::nullopt;
        a = *wa;
        b = *wb;
      }
      std::swap(p[static_cast<size_t>(a)], p[static_cast<size_t>(b)]);
      break;
    }
    case OpKind::Permute: {
      const std::vector<int64_t>& dims = call.attr_ints("dims");
      if (static_cast<int>(dims.size()) != rin) return std::nullopt;
      for (int k = 0; k < rin; ++k) {
        std::optional<int> d = wrap_dim(dims[static_cast<size_t>(k)], rin);
        if (!d) return std::nullopt;
        p[static_cast<size_t>(*d)] = q(k);
      }
      break;
    }
    case OpKind::Unsqueeze: {
      std::optional<int> d = wrap_dim(call.attr_int("dim"), rout);
      if (!d || rout != rin + 1) return std::nullopt;
      for (int k = 0; k < rin; ++k) p[static_cast<size_t>(k)] = q(k < *d ? k : k + 1);
      break;
    }
    case OpKind::Squeeze: {
      std::vector<bool> drop(static_cast<size_t>(rin), false);
      std::optional<std::vector<int64_t>> dims = call.attr_opt_ints("dim");
      for (int k = 0; k < rin; ++k) drop[static_cast<size_t>(k)] = !dims && in[static_cast<size_t>(k)] == 1;
      if (dims)
        for (int64_t d : *dims) {
          std::optional<int> w = wrap_dim(d, std::max(rin, 1));
          if (!w) return std::nullopt;
          if (*w < rin && in[static_cast<size_t>(*w)] == 1) drop[static_cast<size_t>(*w)] = true;
        }
      int j = 0;
      for (int k = 0; k < rin; ++k) p[static_cast<size_t>(k)] = drop[static_cast<size_t>(k)] ? IndexExpr() : q(j++);
      if (j != rout) return std::nullopt;
      break;
    }
    case OpKind::Expand: {
      if (rout < rin) return std::nullopt;
      for (int k = 0; k < rin; ++k)
        p[static_cast<size_t>(k)] = in[static_cast<size_t>(k)] == 1 ? IndexExpr() : q(k + rout - rin);
      break;
    }
    case OpKind::Slice:
    case OpKind::Narrow:
    case OpKind::Select: {
      std::optional<int> d = wrap_dim(call.attr_int("dim"), rin);
      if (!d) return std::nullopt;
      const int64_t size = in[static_cast<size_t>(*d)];
      IndexExpr at;
      if (n.op() == OpKind::Slice) {
        const int64_t step = call.attr_int("step");
        if (step <= 0) return std::nullopt;
        at = IndexExpr::constant_of(clamp_index(call.attr_opt_int("start"), 0, size)).plus(q(*d).scaled(step));
      } else if (n.op() == OpKind::Narrow) {
        at = IndexExpr::constant_of(clamp_index(call.attr_int("start"), 0, size)).plus(q(*d));
      } else {
        int64_t idx = call.attr_int("index");
        if (idx < 0) idx += size;
        if (idx < 0 || idx >= size) return std::nullopt;
        at = IndexExpr::constant_of(idx);
      }
      const bool drops = n.op() == OpKind::Select;
      for (int k = 0; k < rin; ++k) p[static_cast<size_t>(k)] = k == *d ? at : q(drops && k > *d ? k - 1 : k);
      break;
    }
    case OpKind::AsStrided: {
      // Addresses the storage of an affine view directly (from its offset by default).
      const std::vector<int64_t>& size = call.attr_ints("size");
      const std::vector<int64_t>& stride = call.attr_ints("stride");
      if (!in_map.is_affine() || size != out || stride.size() != size.size()) return std::nullopt;
      IndexExpr m = IndexExpr::constant_of(call.attr_opt_int("storage_offset").value_or(in_map.constant));
      for (int k = 0; k < rout; ++k) m = m.plus(q(k).scaled(stride[static_cast<size_t>(k)]));
      return m;
    }
    case OpKind::Reshape:
    case OpKind::View:
    case OpKind::Flatten: {
      const IndexExpr flat = flat_index(out);
      if (is_contiguous_map(in_map, in)) return IndexExpr::constant_of(in_map.constant).plus(flat);
      const std::vector<int64_t> cs = contiguous_strides(in);
      for (int k = 0; k < rin; ++k) {
        const size_t ks = static_cast<size_t>(k);
        if (in[ks] <= 1) continue;  // coordinate 0
        IndexExpr c = IndexExpr::floor_div(flat, cs[ks]);
        p[ks] = k == 0 ? c : IndexExpr::mod(c, in[ks]);
      }
      break;
    }
    default: return std::nullopt;
  }
  return in_map.substitute(p);
}

}  // namespace kiln
