// Exporters of the indexing ops: index_select, gather, scatter, scatter_add, advanced
// indexing (index, index_put), index_add, masked_fill and embedding. kiln's kernels reject
// out-of-range indices; the exported model assumes them in range (ONNX Runtime reports the
// ones its Gather* and Scatter* kernels meet). Where torch takes negative indices (index,
// index_put, index_add) they are wrapped into [0, size) first. Adds (scatter_add, index_put
// with accumulate, index_add) are ScatterElements/ScatterND with reduction "add" (opset 16),
// which adds every repeated index.
#include <algorithm>
#include <limits>

#include "onnx/export_util.h"

namespace kiln::onnx {

namespace {

using Names = std::vector<std::string>;

constexpr int64_t kMaxI64 = std::numeric_limits<int64_t>::max();

int wrapped_dim(int64_t d, int rank) { return static_cast<int>(d < 0 ? d + rank : d); }

// The dtype an add-scatter computes in: compute_dtype, and i32 for bool (an add of bools is
// an or, which the cast back to bool gives).
DType add_dtype(DType d) { return d == DType::Bool ? DType::I32 : compute_dtype(d); }

// The size of x's dim `axis` as a 0-d int64: a constant when static.
std::string dim_size(ExportContext& cx, const std::string& x, const Dim& d, int axis) {
  if (d.is_static()) return cx.b.int_scalar(d.value());
  return cx.b.op("Gather", {cx.b.op("Shape", {x}), cx.b.int_scalar(axis)}, {{"axis", int64_t{0}}});
}

// idx (int64) with negative entries counted from the back of a dim of `size`.
std::string wrap_negative(ExportContext& cx, const std::string& idx, const std::string& size) {
  const std::string neg = cx.b.op("Less", {idx, cx.b.int_scalar(0)});
  return where(cx.b, neg, cx.b.op("Add", {idx, size}), idx);
}

// x sliced to `like`'s sizes in every dim but `skip` (-1: none) where the types differ:
// torch lets gather/scatter indices be smaller than self and src there; ONNX's
// GatherElements and ScatterElements pair the elements of equal shapes.
std::string fit_to(ExportContext& cx, const std::string& x, const Shape& xs, const std::string& like, const Shape& ls,
                   int skip) {
  if (xs.rank() != ls.rank()) {  // both at most 1-d: x's first elements, shaped as `like`
    const std::string flat = cx.b.op("Reshape", {x, cx.b.ints({-1})});
    const std::string n = cx.b.op("Size", {like});
    const std::string first = cx.b.op("Slice", {flat, cx.b.ints({0}), cx.b.op("Unsqueeze", {n, cx.b.ints({0})})});
    return cx.b.op("Reshape", {first, cx.b.op("Shape", {like})});
  }
  std::vector<int64_t> axes;
  for (int k = 0; k < ls.rank(); ++k)
    if (k != skip && !(xs[k] == ls[k])) axes.push_back(k);
  if (axes.empty()) return x;
  const std::string ends = cx.b.op("Gather", {cx.b.op("Shape", {like}), cx.b.ints(axes)}, {{"axis", int64_t{0}}});
  return cx.b.op("Slice", {x, cx.b.ints(std::vector<int64_t>(axes.size(), 0)), ends, cx.b.ints(axes)});
}

Expected<Names> index_select(ExportContext& cx) {
  const TensorType& rt = cx.result_type();
  if (cx.rank(0) == 0)  // a 0-d self and an index of one 0: self
    return Names{cx.b.op("Reshape", {cx.operand(0), cx.b.ints(rt.shape.sizes())})};
  const int d = wrapped_dim(cx.call.attr_int("dim"), cx.rank(0));
  std::string idx = cx.operand(1);
  if (cx.rank(1) == 0) idx = cx.b.op("Reshape", {idx, cx.b.ints({1})});  // torch keeps the dim
  return Names{cx.b.op("Gather", {cx.operand(0), idx}, {{"axis", int64_t{d}}})};
}

Expected<Names> gather(ExportContext& cx) {
  if (cx.rank(0) == 0 || cx.rank(1) == 0) {  // through 1-d tensors
    const std::string self = cx.b.op("Reshape", {cx.operand(0), cx.b.ints({-1})});
    const std::string idx = cx.b.op("Reshape", {cx.operand(1), cx.b.ints({-1})});
    const std::string r = cx.b.op("GatherElements", {self, idx}, {{"axis", int64_t{0}}});
    return Names{cx.b.op("Reshape", {r, cx.b.op("Shape", {cx.operand(1)})})};
  }
  const int d = wrapped_dim(cx.call.attr_int("dim"), cx.rank(0));
  const std::string self = fit_to(cx, cx.operand(0), cx.type(0).shape, cx.operand(1), cx.type(1).shape, d);
  return Names{cx.b.op("GatherElements", {self, cx.operand(1)}, {{"axis", int64_t{d}}})};
}

// scatter (reduction none) and scatter_add (add); src a tensor or a scalar.
Expected<Names> scatter(ExportContext& cx, bool add) {
  const DType out = cx.result_type().dtype;
  const DType w = add ? add_dtype(out) : compute_dtype(out);  // Expand lacks bf16
  std::string self = cx.operand_as(0, w), idx = cx.operand(1);
  const int rank = cx.rank(0);
  std::string src;
  if (cx.is_value(2))
    src = fit_to(cx, cx.operand_as(2, w), cx.type(2).shape, idx, cx.type(1).shape, -1);
  else
    src = cx.b.op("Expand", {cx.operand_as(2, w), cx.b.op("Shape", {idx})});
  std::vector<OnnxAttr> attrs = {{"axis", int64_t{rank == 0 ? 0 : wrapped_dim(cx.call.attr_int("dim"), rank)}}};
  if (add) attrs.push_back({"reduction", std::string("add")});
  if (rank == 0 || cx.rank(1) == 0) {  // through 1-d tensors
    const std::string flat = cx.b.ints({-1});
    const std::string r = cx.b.op(
        "ScatterElements",
        {cx.b.op("Reshape", {self, flat}), cx.b.op("Reshape", {idx, flat}), cx.b.op("Reshape", {src, flat})}, attrs);
    return Names{cx.b.cast(cx.b.op("Reshape", {r, cx.b.op("Shape", {self})}), w, out)};
  }
  return Names{cx.b.cast(cx.b.op("ScatterElements", {self, idx, src}, attrs), w, out)};
}

// ---- advanced indexing ----

// The index tensors of index/index_put (operands first .. first + n - 1; `none` skips a dim),
// made ready for GatherND/ScatterND on self transposed to put the indexed dims first.
struct AdvancedIndex {
  std::vector<int> dims;      // the indexed dims of self, ascending
  std::string zeros;          // int64 zeros of the indices' broadcast shape
  std::string nd_indices;     // [broadcast..., k]: the wrapped indices, stacked last
  std::vector<int64_t> perm;  // self -> indexed dims first, then the others in order
  int broadcast_rank = 0;
  // torch puts the broadcast dims where the indexed dims were when those are adjacent, else
  // first: true when that moves them behind leading dims of self.
  bool in_place = false;
};

AdvancedIndex advanced_index(ExportContext& cx, int first, int n) {
  AdvancedIndex a;
  const std::string self = cx.operand(0);
  const Shape& s = cx.type(0).shape;
  Names idx;
  for (int i = 0; i < n; ++i) {
    if (cx.is_none(first + i)) continue;
    a.dims.push_back(i);
    idx.push_back(cx.operand_as(first + i, DType::I64));
    a.broadcast_rank = std::max(a.broadcast_rank, cx.rank(first + i));
  }
  // Zeros of the broadcast shape: each index times 0, summed.
  for (const std::string& t : idx) {
    const std::string z = cx.b.op("Mul", {t, cx.b.int_scalar(0)});
    a.zeros = a.zeros.empty() ? z : cx.b.op("Add", {a.zeros, z});
  }
  Names stacked;
  for (size_t k = 0; k < idx.size(); ++k) {
    const int d = a.dims[k];
    std::string t = idx.size() > 1 ? cx.b.op("Add", {idx[k], a.zeros}) : idx[k];
    t = wrap_negative(cx, t, dim_size(cx, self, s[d], d));
    stacked.push_back(cx.b.op("Unsqueeze", {t, cx.b.ints({-1})}));
  }
  a.nd_indices = stacked.size() == 1 ? stacked[0] : cx.b.op("Concat", stacked, {{"axis", int64_t{-1}}});
  for (int d : a.dims) a.perm.push_back(d);
  for (int d = 0; d < s.rank(); ++d)
    if (std::find(a.dims.begin(), a.dims.end(), d) == a.dims.end()) a.perm.push_back(d);
  const bool adjacent = a.dims.back() - a.dims.front() + 1 == static_cast<int>(a.dims.size());
  a.in_place = adjacent && a.dims.front() > 0;
  return a;
}

bool is_identity(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != static_cast<int64_t>(i)) return false;
  return true;
}

std::string transpose(ExportContext& cx, const std::string& x, const std::vector<int64_t>& perm) {
  if (is_identity(perm)) return x;
  return cx.b.op("Transpose", {x}, {{"perm", perm}});
}

std::vector<int64_t> inverse(const std::vector<int64_t>& perm) {
  std::vector<int64_t> inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inv[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
  return inv;
}

// The permutation from the gathered order [broadcast, before, after] to torch's result order
// [before, broadcast, after], where `before` is the `lead` dims of self ahead of the indexed ones.
std::vector<int64_t> broadcast_to_place(int broadcast_rank, int lead, int rank) {
  std::vector<int64_t> perm;
  for (int i = 0; i < lead; ++i) perm.push_back(broadcast_rank + i);
  for (int i = 0; i < broadcast_rank; ++i) perm.push_back(i);
  for (int i = broadcast_rank + lead; i < rank; ++i) perm.push_back(i);
  return perm;
}

Expected<Names> index(ExportContext& cx) {
  const int n = cx.num_operands() - 1;
  bool any = false;
  for (int i = 1; i <= n; ++i) any = any || !cx.is_none(i);
  if (!any) return Names{cx.b.op("Identity", {cx.operand(0)})};
  const AdvancedIndex a = advanced_index(cx, 1, n);
  const std::string self_t = transpose(cx, cx.operand(0), a.perm);
  const std::string r = cx.b.op("GatherND", {self_t, a.nd_indices});
  if (!a.in_place) return Names{r};
  return Names{transpose(cx, r, broadcast_to_place(a.broadcast_rank, a.dims.front(), cx.result_type().shape.rank()))};
}

// index_put: values broadcast to torch's indexing result, moved into the gathered order, then
// ScatterND (reduction "add" with accumulate, which adds repeated indices; without it, repeated
// indices keep the last value as the kernel does).
Expected<Names> index_put(ExportContext& cx) {
  const int n = cx.num_operands() - 2;
  const DType out = cx.result_type().dtype;
  const bool accumulate = cx.call.attr_bool("accumulate");
  const DType w = accumulate ? add_dtype(out) : compute_dtype(out);
  bool any = false;
  for (int i = 1; i <= n; ++i) any = any || !cx.is_none(i);
  const std::string self = cx.operand_as(0, w), values = cx.operand_as(n + 1, w);
  if (!any) {  // self[...] = values (or += values)
    const std::string v = cx.b.op("Expand", {values, cx.b.op("Shape", {self})});
    return Names{cx.b.cast(accumulate ? cx.b.op("Add", {self, v}) : cx.b.op("Identity", {v}), w, out)};
  }
  const AdvancedIndex a = advanced_index(cx, 1, n);
  const int rank = cx.rank(0);
  const std::string self_t = transpose(cx, self, a.perm);
  const std::string bshape = cx.b.op("Shape", {a.zeros});
  const std::string full = cx.b.op("Shape", {cx.operand(0)});
  auto shape_part = [&](int64_t begin, int64_t end) {
    return cx.b.op("Slice", {full, cx.b.ints({begin}), cx.b.ints({end}), cx.b.ints({0})});
  };
  std::string v;
  if (a.in_place) {
    const int lead = a.dims.front();
    const std::string target = cx.b.op("Concat", {shape_part(0, lead), bshape, shape_part(a.dims.back() + 1, kMaxI64)},
                                       {{"axis", int64_t{0}}});
    const int result_rank = rank - static_cast<int>(a.dims.size()) + a.broadcast_rank;
    v = transpose(cx, cx.b.op("Expand", {values, target}),
                  inverse(broadcast_to_place(a.broadcast_rank, lead, result_rank)));
  } else {
    const std::string others =
        cx.b.op("Slice", {cx.b.op("Shape", {self_t}), cx.b.ints({static_cast<int64_t>(a.dims.size())}),
                          cx.b.ints({kMaxI64}), cx.b.ints({0})});
    v = cx.b.op("Expand", {values, cx.b.op("Concat", {bshape, others}, {{"axis", int64_t{0}}})});
  }
  std::vector<OnnxAttr> attrs;
  if (accumulate) attrs.push_back({"reduction", std::string("add")});
  const std::string r = cx.b.op("ScatterND", {self_t, a.nd_indices, v}, attrs);
  return Names{cx.b.cast(transpose(cx, r, inverse(a.perm)), w, out)};
}

// index_add: source * alpha added at index[i] along dim (every repeat adds).
Expected<Names> index_add(ExportContext& cx) {
  const DType out = cx.result_type().dtype;
  const DType w = add_dtype(out);
  const int rank = cx.rank(0);
  std::string self = cx.operand_as(0, w), src = cx.operand_as(2, w);
  const Scalar alpha = cx.call.attr_scalar("alpha");
  if (alpha.to_double() != 1.0) src = cx.b.op("Mul", {src, cx.b.constant(Tensor::full({}, alpha, w))});
  std::string idx = cx.b.op("Reshape", {cx.operand_as(1, DType::I64), cx.b.ints({-1})});
  if (rank == 0) {  // a 0-d self: every source element adds to it
    idx = wrap_negative(cx, idx, cx.b.int_scalar(1));
    const std::string flat = cx.b.ints({-1});
    const std::string r =
        cx.b.op("ScatterElements", {cx.b.op("Reshape", {self, flat}), idx, cx.b.op("Reshape", {src, flat})},
                {{"axis", int64_t{0}}, {"reduction", std::string("add")}});
    return Names{cx.b.cast(cx.b.op("Reshape", {r, cx.b.ints({})}), w, out)};
  }
  const int d = wrapped_dim(cx.call.attr_int("dim"), rank);
  idx = wrap_negative(cx, idx, dim_size(cx, self, cx.type(0).shape[d], d));
  std::vector<int64_t> axes;
  for (int k = 0; k < rank; ++k)
    if (k != d) axes.push_back(k);
  if (!axes.empty()) idx = cx.b.op("Unsqueeze", {idx, cx.b.ints(axes)});
  idx = cx.b.op("Expand", {idx, cx.b.op("Shape", {src})});
  const std::string r =
      cx.b.op("ScatterElements", {self, idx, src}, {{"axis", int64_t{d}}, {"reduction", std::string("add")}});
  return Names{cx.b.cast(r, w, out)};
}

// ONNX Runtime's Where lacks bf16, i16 and bool: those go through f32, i32 and u8. The value
// is self's dtype first (0.5 filled into bool is true, not u8's 0).
Expected<Names> masked_fill(ExportContext& cx) {
  const DType out = cx.result_type().dtype;
  DType w = compute_dtype(out);
  if (w == DType::I16) w = DType::I32;
  if (w == DType::Bool) w = DType::U8;
  const std::string r = where(cx.b, cx.operand_as(1, DType::Bool), cx.operand_via(2, out, w), cx.operand_as(0, w));
  return Names{cx.b.cast(r, w, out)};
}

// embedding: rows of weight (padding_idx only changes the gradient).
Expected<Names> embedding(ExportContext& cx) {
  return Names{cx.b.op("Gather", {cx.operand(0), cx.operand(1)}, {{"axis", int64_t{0}}})};
}

}  // namespace

std::vector<OpExporterEntry> index_exporters() {
  std::vector<OpExporterEntry> t = {
      {OpKind::IndexSelect, index_select},
      {OpKind::Gather, gather},
      {OpKind::Scatter, [](ExportContext& cx) { return scatter(cx, false); }},
      {OpKind::ScatterAdd, [](ExportContext& cx) { return scatter(cx, true); }},
      {OpKind::Index, index},
      {OpKind::IndexPut, index_put},
      {OpKind::IndexAdd, index_add},
      {OpKind::MaskedFill, masked_fill},
      {OpKind::Embedding, embedding},
  };
  return t;
}

}  // namespace kiln::onnx
