// Exporters of the layout ops: views (reshape, permute, slice, select, split, as_strided, ...),
// the view inverses (slice_scatter, select_scatter, as_strided_scatter), cat, stack, pad,
// flip, roll, repeat, tril/triu and the copies (clone, contiguous, _to_copy). Sizes come
// from kiln's result types, so symbolic dims go through cx.shape_tensor or through ONNX ops
// that need no sizes (Slice, Squeeze, Gather). Where ONNX Runtime's CPU kernel lacks a
// dtype (bf16 in Expand/Pad/Tile, small ints in Trilu), the data moves through a wider dtype
// that holds every value exactly and is cast back.
#include <algorithm>
#include <limits>
#include <map>

#include "onnx/export_util.h"
#include "ops/kernel_index_util.h"
#include "ops/type_rules_util.h"
#include "passes/functionalize_views.h"

namespace kiln::onnx {

namespace {

using Names = std::vector<std::string>;

constexpr int64_t kMaxI64 = std::numeric_limits<int64_t>::max();
constexpr int64_t kMinI64 = std::numeric_limits<int64_t>::min();

// A dtype ONNX Runtime's kernel takes in place of d, holding every value of d exactly:
// d itself unless listed in `missing`; then f32 for f16/bf16, u8 or i32 for bool, i32 for
// the small integers.
DType lossless_dtype(DType d, std::initializer_list<DType> missing) {
  auto lacks = [&](DType x) { return std::find(missing.begin(), missing.end(), x) != missing.end(); };
  if (!lacks(d)) return d;
  if (d == DType::F16 || d == DType::BF16) return DType::F32;
  if (d == DType::Bool && !lacks(DType::U8)) return DType::U8;
  return DType::I32;
}

// Runs `f` on operand 0 cast to lossless_dtype(result dtype, missing) and casts back.
Expected<Names> through(ExportContext& cx, std::initializer_list<DType> missing,
                        const std::function<Expected<std::string>(const std::string&, DType)>& f) {
  const DType out = cx.result_type().dtype;
  const DType w = lossless_dtype(out, missing);
  KILN_ASSIGN_OR_RETURN(std::string r, f(cx.operand_as(0, w), w));
  return Names{cx.b.cast(r, w, out)};
}

std::string identity(ExportContext& cx) { return cx.b.op("Identity", {cx.operand(0)}); }

int wrapped_dim(int64_t d, int rank) { return static_cast<int>(d < 0 ? d + rank : d); }

// A 1-d int64 shape tensor for `shape`, which holds x's elements. cx.shape_tensor computes
// static dims and symbols that are dims of inputs; one dim it cannot compute (an expression
// such as 3*B) is x's element count divided by the product of the others.
Expected<std::string> reshape_target(ExportContext& cx, const std::string& x, const Shape& shape) {
  if (Expected<std::string> direct = cx.shape_tensor(shape)) return direct;
  Names known;
  int unknown = -1;
  std::vector<std::string> parts;
  for (int i = 0; i < shape.rank(); ++i) {
    const Dim& d = shape[i];
    std::optional<std::string> v;
    if (d.is_static())
      v = cx.b.ints({d.value()});
    else if (std::optional<std::string> s = d.is_symbol() ? cx.symbol_value(d.to_string()) : std::nullopt)
      v = cx.b.op("Unsqueeze", {*s, cx.b.ints({0})});
    if (v) {
      known.push_back(*v);
      parts.push_back(*v);
      continue;
    }
    if (unknown >= 0)
      return make_error("the shape ", shape.to_string(), " has more than one dim the ONNX model cannot compute");
    unknown = i;
    parts.emplace_back();
  }
  std::string count = cx.b.op("Unsqueeze", {cx.b.op("Size", {x}), cx.b.ints({0})});
  if (!known.empty()) {
    const std::string rest = known.size() == 1 ? known[0] : cx.b.op("Concat", known, {{"axis", int64_t{0}}});
    const std::string prod = cx.b.op("ReduceProd", {rest}, {{"keepdims", int64_t{1}}});
    count = cx.b.op("Div", {count, cx.b.op("Max", {prod, cx.b.ints({1})})});
  }
  parts[static_cast<size_t>(unknown)] = count;
  return parts.size() == 1 ? parts[0] : cx.b.op("Concat", parts, {{"axis", int64_t{0}}});
}

Expected<Names> reshape_to_result(ExportContext& cx) {
  const std::string x = cx.operand(0);
  KILN_ASSIGN_OR_RETURN(std::string shape, reshape_target(cx, x, cx.result_type().shape));
  // allowzero: a 0 in the shape is a size, not "copy the input's dim".
  return Names{cx.b.op("Reshape", {x, shape}, {{"allowzero", int64_t{1}}})};
}

std::string transpose(ExportContext& cx, const std::string& x, const std::vector<int64_t>& perm) {
  return cx.b.op("Transpose", {x}, {{"perm", perm}});
}

Expected<Names> permute(ExportContext& cx) {
  if (cx.rank(0) == 0) return Names{identity(cx)};
  return Names{transpose(cx, cx.operand(0), wrap_axes(cx.call.attr_ints("dims"), cx.rank(0)))};
}

Expected<Names> swap_dims(ExportContext& cx, int64_t d0, int64_t d1) {
  const int rank = cx.rank(0);
  if (rank < 2) return Names{identity(cx)};
  std::vector<int64_t> perm(static_cast<size_t>(rank));
  for (int i = 0; i < rank; ++i) perm[static_cast<size_t>(i)] = i;
  std::swap(perm[static_cast<size_t>(wrapped_dim(d0, rank))], perm[static_cast<size_t>(wrapped_dim(d1, rank))]);
  return Names{transpose(cx, cx.operand(0), perm)};
}

// expand's symbolic result dims are the operand's own (only -1 keeps a dim unsized), so the
// target holds 1 there and ONNX's two-way broadcast of Expand keeps them.
// Sizes that name symbols (`{size=[B, -1, T, T]}`) may give a dim the operand lacks: the
// target is then the result's whole shape, computed from the inputs' dims (Shape, Gather,
// Concat), or an error naming the dim when it is not an input's.
Expected<Names> expand(ExportContext& cx) {
  if (cx.call.attr("size").is_sym_ints()) {
    KILN_ASSIGN_OR_RETURN(std::string shape, cx.shape_tensor(cx.result_type().shape));
    return through(cx, {DType::BF16}, [&](const std::string& x, DType) -> Expected<std::string> {
      return cx.b.op("Expand", {x, shape});
    });
  }
  std::vector<int64_t> target;
  for (const Dim& d : cx.result_type().shape.dims()) target.push_back(d.is_static() ? d.value() : 1);
  return through(cx, {DType::BF16}, [&](const std::string& x, DType) -> Expected<std::string> {
    return cx.b.op("Expand", {x, cx.b.ints(target)});
  });
}

// squeeze drops only the listed dims (all when none are listed) that have size 1.
Expected<Names> squeeze(ExportContext& cx) {
  const Shape& s = cx.type(0).shape;
  std::vector<int64_t> axes;
  if (std::optional<std::vector<int64_t>> dims = cx.call.attr_opt_ints("dim")) {
    for (int64_t d : wrap_axes(*dims, s.rank()))
      if (s.rank() > 0 && s[static_cast<int>(d)] == 1 && std::find(axes.begin(), axes.end(), d) == axes.end())
        axes.push_back(d);
  } else {
    for (int d = 0; d < s.rank(); ++d)
      if (s[d] == 1) axes.push_back(d);
  }
  if (axes.empty()) return Names{identity(cx)};
  std::sort(axes.begin(), axes.end());
  return Names{cx.b.op("Squeeze", {cx.operand(0), cx.b.ints(axes)})};
}

Expected<Names> unsqueeze(ExportContext& cx) {
  const int d = wrapped_dim(cx.call.attr_int("dim"), cx.rank(0) + 1);
  return Names{cx.b.op("Unsqueeze", {cx.operand(0), cx.b.ints({d})})};
}

std::string slice(ExportContext& cx, const std::string& x, int axis, int64_t start, int64_t end, int64_t step = 1) {
  return cx.b.op("Slice", {x, cx.b.ints({start}), cx.b.ints({end}), cx.b.ints({axis}), cx.b.ints({step})});
}

// ONNX's Slice clamps start and end into the dim as torch does (negative counts from the back).
Expected<Names> slice_op(ExportContext& cx) {
  const int d = wrapped_dim(cx.call.attr_int("dim"), cx.rank(0));
  const int64_t start = cx.call.attr_opt_int("start").value_or(0);
  const int64_t end = cx.call.attr_opt_int("end").value_or(kMaxI64);
  return Names{slice(cx, cx.operand(0), d, start, end, cx.call.attr_int("step"))};
}

Expected<Names> select(ExportContext& cx) {
  const int d = wrapped_dim(cx.call.attr_int("dim"), cx.rank(0));
  int64_t index = cx.call.attr_int("index");
  const Dim& size = cx.type(0).shape[d];
  if (index < 0 && size.is_static()) index += size.value();  // else Gather counts it from the back
  return Names{cx.b.op("Gather", {cx.operand(0), cx.b.int_scalar(index)}, {{"axis", int64_t{d}}})};
}

Expected<Names> narrow(ExportContext& cx) {
  const int d = wrapped_dim(cx.call.attr_int("dim"), cx.rank(0));
  int64_t start = cx.call.attr_int("start");
  const int64_t length = cx.call.attr_int("length");
  const Dim& size = cx.type(0).shape[d];
  if (start < 0 && size.is_static()) start += size.value();
  int64_t end = start + length;
  if (start < 0 && end == 0) end = kMaxI64;  // a negative start whose piece reaches the last element
  return Names{slice(cx, cx.operand(0), d, start, end)};
}

// split and chunk: consecutive Slices of the pieces kiln's shape rule made.
Expected<Names> pieces(ExportContext& cx, bool chunk) {
  const int d = wrapped_dim(cx.call.attr_int("dim"), cx.rank(0));
  const Dim& size = cx.type(0).shape[d];
  if (!size.is_static()) return make_error(cx.call.name(), ": the split dim must be static");
  const std::vector<int64_t> sizes = chunk ? chunk_sizes(size.value(), cx.call.attr_int("chunks"))
                                           : split_sizes(size.value(), cx.call.attr_int("split_size"));
  Names out;
  int64_t start = 0;
  for (int64_t n : sizes) {
    out.push_back(slice(cx, cx.operand(0), d, start, start + n));
    start += n;
  }
  return out;
}

// ---- as_strided and the view inverses ----

// Where the interpreter keeps v's elements: a layout in the storage of v's base (a graph
// input or the result of an op that allocates), found by replaying the views from it.
Expected<Layout> storage_layout(const Value* v) {
  const Shape& s = v->type().shape;
  if (!s.is_static()) return make_error("as_strided of a tensor of symbolic shape ", s.to_string());
  if (v->is_input()) return packed_layout(s.sizes());
  const Node* n = v->producer();
  if (n->info().has(kInplace) || n->info().has(kHigherOrder))
    return make_error("as_strided of the result of '", n->info().name(), "', whose storage the export cannot trace");
  if (!n->info().has(kView)) return packed_layout(s.sizes());
  KILN_ASSIGN_OR_RETURN(Layout parent, storage_layout(n->operand(0).value));
  std::optional<Layout> l = view_layout(ViewStep{n->op(), n->attrs(), v->index()}, parent, s.sizes());
  return l ? *l : packed_layout(s.sizes());  // reshape that copied: a base of its own
}

// Storage offsets of the elements of a strided geometry, row-major.
std::vector<int64_t> strided_offsets(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                                     int64_t offset) {
  std::vector<int64_t> out;
  for_each_multi_index(sizes,
                       [&](const std::vector<int64_t>& idx) { out.push_back(offset + offset_of(strides, idx)); });
  return out;
}

// as_strided reads the storage of its operand's base (offsets count from its first
// element). The exported model holds the operand's elements, not the base's, so each
// storage offset maps to the operand element stored there: a constant Gather on the
// flattened operand.
Expected<Names> as_strided(ExportContext& cx) {
  KILN_ASSIGN_OR_RETURN(Layout in, storage_layout(cx.node.operand(0).value));
  std::map<int64_t, int64_t> position;  // storage offset -> row-major index in the operand
  const std::vector<int64_t> held = strided_offsets(in.sizes, in.strides, in.offset);
  for (size_t k = 0; k < held.size(); ++k) position.emplace(held[k], static_cast<int64_t>(k));
  const std::vector<int64_t>& size = cx.call.attr_ints("size");
  const int64_t offset = cx.call.attr_opt_int("storage_offset").value_or(in.offset);
  std::vector<int64_t> picks;
  for (int64_t o : strided_offsets(size, cx.call.attr_ints("stride"), offset)) {
    auto it = position.find(o);
    if (it == position.end())
      return make_error("as_strided reads storage element ", o, ", which its operand (", cx.type(0).to_string(),
                        ") does not hold; the exported model has only the operand's elements");
    picks.push_back(it->second);
  }
  const std::string flat = cx.b.op("Reshape", {cx.operand(0), cx.b.ints({-1})});
  const std::string idx = cx.b.constant(Tensor::from_ints(picks, size, DType::I64));
  return Names{cx.b.op("Gather", {flat, idx}, {{"axis", int64_t{0}}})};
}

// The elements of `self` (packed, as the kernel's clone is) at row-major `offsets` replaced by
// src's row-major elements; where offsets repeat, the last write wins as in the kernel.
Expected<Names> scatter_flat(ExportContext& cx, const std::vector<int64_t>& offsets) {
  const DType out = cx.result_type().dtype;
  std::map<int64_t, int64_t> last;  // offset -> index of src's last element written there
  for (size_t k = 0; k < offsets.size(); ++k) last[offsets[k]] = static_cast<int64_t>(k);
  std::string src = cx.b.op("Reshape", {cx.operand_as(1, out), cx.b.ints({-1})});
  std::vector<int64_t> where = offsets;
  if (last.size() != offsets.size()) {  // ScatterElements leaves repeated indices undefined
    std::vector<int64_t> from;
    where.clear();
    for (const auto& [o, k] : last) {
      where.push_back(o);
      from.push_back(k);
    }
    const std::string picks = cx.b.constant(Tensor::from_ints(from, {static_cast<int64_t>(from.size())}, DType::I64));
    src = cx.b.op("Gather", {src, picks}, {{"axis", int64_t{0}}});
  }
  const std::string flat = cx.b.op("Reshape", {cx.operand(0), cx.b.ints({-1})});
  const std::string idx = cx.b.constant(Tensor::from_ints(where, {static_cast<int64_t>(where.size())}, DType::I64));
  const std::string r = cx.b.op("ScatterElements", {flat, idx, src}, {{"axis", int64_t{0}}});
  return Names{cx.b.op("Reshape", {r, cx.b.op("Shape", {cx.operand(0)})}, {{"allowzero", int64_t{1}}})};
}

Expected<Names> as_strided_scatter(ExportContext& cx) {
  const Shape& s = cx.type(0).shape;
  if (!s.is_static()) return make_error("as_strided_scatter of a tensor of symbolic shape ", s.to_string());
  const int64_t offset = cx.call.attr_opt_int("storage_offset").value_or(0);  // self's packed copy starts at 0
  return scatter_flat(cx, strided_offsets(cx.call.attr_ints("size"), cx.call.attr_ints("stride"), offset));
}

// self with the elements at `positions` along dim d replaced by src (whose dim d lists them):
// ScatterElements with the positions broadcast over src's shape.
std::string scatter_along(ExportContext& cx, const std::string& src, int d, int rank,
                          const std::vector<int64_t>& positions) {
  const DType out = cx.result_type().dtype;
  std::vector<int64_t> shape(static_cast<size_t>(rank), 1);
  shape[static_cast<size_t>(d)] = static_cast<int64_t>(positions.size());
  const std::string idx = cx.b.constant(Tensor::from_ints(positions, shape, DType::I64));
  const std::string full = cx.b.op("Expand", {idx, cx.b.op("Shape", {src})});
  return cx.b.op("ScatterElements", {cx.operand_as(0, out), full, src}, {{"axis", int64_t{d}}});
}

Expected<Names> slice_scatter(ExportContext& cx) {
  const int rank = cx.rank(0);
  const int d = wrapped_dim(cx.call.attr_int("dim"), rank);
  const Dim& size = cx.type(0).shape[d];
  if (!size.is_static()) return make_error("slice_scatter along a symbolic dim (", size.to_string(), ")");
  const int64_t step = cx.call.attr_int("step");
  const SliceBounds bounds =
      slice_bounds(size.value(), cx.call.attr_opt_int("start"), cx.call.attr_opt_int("end"), step);
  if (bounds.length == 0) return Names{identity(cx)};
  std::vector<int64_t> positions;
  for (int64_t i = 0; i < bounds.length; ++i) positions.push_back(bounds.start + i * step);
  return Names{scatter_along(cx, cx.operand_as(1, cx.result_type().dtype), d, rank, positions)};
}

Expected<Names> select_scatter(ExportContext& cx) {
  const int rank = cx.rank(0);
  const int d = wrapped_dim(cx.call.attr_int("dim"), rank);
  int64_t index = cx.call.attr_int("index");
  const Dim& size = cx.type(0).shape[d];
  if (index < 0 && size.is_static()) index += size.value();  // else ScatterElements counts it from the back
  const std::string src = cx.b.op("Unsqueeze", {cx.operand_as(1, cx.result_type().dtype), cx.b.ints({d})});
  return Names{scatter_along(cx, src, d, rank, {index})};
}

// ---- new tensors from old ----

bool legacy_empty(const TensorType& t) { return t.shape.rank() == 1 && t.shape[0] == 0; }

// cat skips 1-d empty operands (torch's legacy empty tensors) whatever the other ranks.
Expected<Names> cat(ExportContext& cx) {
  const TensorType& rt = cx.result_type();
  Names parts;
  for (int i = 0; i < cx.num_operands(); ++i)
    if (!legacy_empty(cx.type(i))) parts.push_back(cx.operand_as(i, rt.dtype));
  if (parts.empty()) {
    if (!rt.shape.is_static()) return make_error("cat of empty tensors into a symbolic shape");
    return Names{cx.b.op("Identity", {cx.b.constant(Tensor::zeros(rt.shape.sizes(), rt.dtype))})};
  }
  if (parts.size() == 1) return Names{cx.b.op("Identity", {parts[0]})};
  const int d = wrapped_dim(cx.call.attr_int("dim"), rt.shape.rank());
  return Names{cx.b.op("Concat", parts, {{"axis", int64_t{d}}})};
}

Expected<Names> stack(ExportContext& cx) {
  const TensorType& rt = cx.result_type();
  const int d = wrapped_dim(cx.call.attr_int("dim"), rt.shape.rank());
  Names parts;
  for (int i = 0; i < cx.num_operands(); ++i)
    parts.push_back(cx.b.op("Unsqueeze", {cx.operand_as(i, rt.dtype), cx.b.ints({d})}));
  if (parts.size() == 1) return Names{cx.b.op("Identity", {parts[0]})};
  return Names{cx.b.op("Concat", parts, {{"axis", int64_t{d}}})};
}

// torch's pad lists (begin, end) pairs from the last dim; ONNX's Pad all begins, then all
// ends. Negative pads crop: a Slice first (ONNX's reference evaluator takes no negative pads).
Expected<Names> constant_pad_nd(ExportContext& cx) {
  const int rank = cx.rank(0);
  const std::vector<int64_t>& pad = cx.call.attr_ints("pad");
  std::vector<int64_t> pads(static_cast<size_t>(2 * rank), 0);
  std::vector<int64_t> crop_axes, crop_starts, crop_ends;
  bool grows = false;
  for (size_t p = 0; p < pad.size() / 2; ++p) {
    const int d = rank - 1 - static_cast<int>(p);
    const int64_t lo = pad[2 * p], hi = pad[2 * p + 1];
    pads[static_cast<size_t>(d)] = std::max<int64_t>(lo, 0);
    pads[static_cast<size_t>(d + rank)] = std::max<int64_t>(hi, 0);
    grows = grows || lo > 0 || hi > 0;
    if (lo < 0 || hi < 0) {
      crop_axes.push_back(d);
      crop_starts.push_back(std::max<int64_t>(-lo, 0));
      crop_ends.push_back(hi < 0 ? hi : kMaxI64);
    }
  }
  const DType out = cx.result_type().dtype;
  const Scalar value = cx.call.attr_scalar("value");
  return through(cx, {DType::BF16, DType::I16}, [&](const std::string& x, DType w) -> Expected<std::string> {
    std::string y = x;
    if (!crop_axes.empty())
      y = cx.b.op("Slice", {y, cx.b.ints(crop_starts), cx.b.ints(crop_ends), cx.b.ints(crop_axes)});
    if (!grows) return crop_axes.empty() ? cx.b.op("Identity", {y}) : y;
    const std::string v = cx.b.cast(cx.b.constant(Tensor::full({}, value, out)), out, w);
    return cx.b.op("Pad", {y, cx.b.ints(pads), v}, {{"mode", std::string("constant")}});
  });
}

// A Slice with step -1 over each flipped dim.
Expected<Names> flip(ExportContext& cx) {
  const int rank = cx.rank(0);
  if (rank == 0) return Names{identity(cx)};
  std::vector<int64_t> axes;
  for (int64_t d : wrap_axes(cx.call.attr_ints("dims"), rank)) {
    const Dim& size = cx.type(0).shape[static_cast<int>(d)];
    // Flipping a dim of size 0 or 1 changes nothing (and ONNX 1.1x's shape inference gets
    // a reversed Slice of an empty dim wrong).
    if (!size.is_static() || size.value() > 1) axes.push_back(d);
  }
  if (axes.empty()) return Names{identity(cx)};
  const auto n = axes.size();
  return Names{cx.b.op(
      "Slice", {cx.operand(0), cx.b.ints(std::vector<int64_t>(n, -1)), cx.b.ints(std::vector<int64_t>(n, kMinI64)),
                cx.b.ints(axes), cx.b.ints(std::vector<int64_t>(n, -1))})};
}

// x rolled by s (0 < s < n) along `axis` of size n: its last s elements, then the rest.
std::string roll_axis(ExportContext& cx, const std::string& x, int axis, int64_t n, int64_t s) {
  return cx.b.op("Concat", {slice(cx, x, axis, n - s, n), slice(cx, x, axis, 0, n - s)}, {{"axis", int64_t{axis}}});
}

int64_t positive_mod(int64_t a, int64_t n) { return ((a % n) + n) % n; }

Expected<Names> roll(ExportContext& cx) {
  const Shape& s = cx.type(0).shape;
  if (!s.is_static()) return make_error("roll of a tensor of symbolic shape ", s.to_string());
  const std::vector<int64_t>& shifts = cx.call.attr_ints("shifts");
  const std::vector<int64_t>& dims = cx.call.attr_ints("dims");
  std::string x = cx.operand(0);
  if (dims.empty()) {  // roll of the flattened tensor
    const int64_t n = s.numel();
    if (n == 0 || positive_mod(shifts.at(0), n) == 0) return Names{identity(cx)};
    const std::string flat = cx.b.op("Reshape", {x, cx.b.ints({-1})});
    const std::string r = roll_axis(cx, flat, 0, n, positive_mod(shifts[0], n));
    return Names{cx.b.op("Reshape", {r, cx.b.ints(s.sizes())}, {{"allowzero", int64_t{1}}})};
  }
  std::vector<int64_t> shift(static_cast<size_t>(s.rank()), 0);
  for (size_t i = 0; i < dims.size(); ++i) shift[static_cast<size_t>(wrapped_dim(dims[i], s.rank()))] += shifts.at(i);
  bool any = false;
  for (int d = 0; d < s.rank(); ++d) {
    const int64_t n = s[d].value();
    if (n == 0 || positive_mod(shift[static_cast<size_t>(d)], n) == 0) continue;
    x = roll_axis(cx, x, d, n, positive_mod(shift[static_cast<size_t>(d)], n));
    any = true;
  }
  if (!any) return Names{identity(cx)};
  return Names{x};
}

// repeat: Tile after lifting self to the rank of `repeats`.
Expected<Names> repeat(ExportContext& cx) {
  const std::vector<int64_t>& repeats = cx.call.attr_ints("repeats");
  const int lead = static_cast<int>(repeats.size()) - cx.rank(0);
  if (repeats.empty()) return Names{identity(cx)};
  return through(cx, {DType::BF16}, [&](const std::string& x, DType) -> Expected<std::string> {
    std::string y = x;
    if (lead > 0) {
      std::vector<int64_t> axes;
      for (int i = 0; i < lead; ++i) axes.push_back(i);
      y = cx.b.op("Unsqueeze", {y, cx.b.ints(axes)});
    }
    return cx.b.op("Tile", {y, cx.b.ints(repeats)});
  });
}

OpExporter triangle(bool upper) {
  return [upper](ExportContext& cx) -> Expected<Names> {
    const std::string k = cx.b.int_scalar(cx.call.attr_int("diagonal"));
    return through(cx, {DType::BF16, DType::I8, DType::I16, DType::U8},
                   [&](const std::string& x, DType) -> Expected<std::string> {
                     return cx.b.op("Trilu", {x, k}, {{"upper", int64_t{upper ? 1 : 0}}});
                   });
  };
}

// _to_copy: ONNX's Cast converts as torch does for the values both define (float -> bool is
// x != 0, NaN included; float -> int truncates toward zero).
Expected<Names> to_copy(ExportContext& cx) {
  const DType out = cx.result_type().dtype;
  if (cx.dtype(0) == out) return Names{identity(cx)};
  return Names{cx.operand_as(0, out)};
}

}  // namespace

std::vector<OpExporterEntry> layout_exporters() {
  std::vector<OpExporterEntry> t = {
      {OpKind::Reshape, reshape_to_result},
      {OpKind::View, reshape_to_result},
      {OpKind::Flatten, reshape_to_result},
      {OpKind::Permute, permute},
      {OpKind::Transpose,
       [](ExportContext& cx) { return swap_dims(cx, cx.call.attr_int("dim0"), cx.call.attr_int("dim1")); }},
      {OpKind::T, [](ExportContext& cx) { return swap_dims(cx, 0, 1); }},
      {OpKind::Expand, expand},
      {OpKind::Squeeze, squeeze},
      {OpKind::Unsqueeze, unsqueeze},
      {OpKind::Slice, slice_op},
      {OpKind::Select, select},
      {OpKind::Narrow, narrow},
      {OpKind::Split, [](ExportContext& cx) { return pieces(cx, false); }},
      {OpKind::Chunk, [](ExportContext& cx) { return pieces(cx, true); }},
      {OpKind::AsStrided, as_strided},
      {OpKind::SliceScatter, slice_scatter},
      {OpKind::SelectScatter, select_scatter},
      {OpKind::AsStridedScatter, as_strided_scatter},
      {OpKind::Cat, cat},
      {OpKind::Stack, stack},
      {OpKind::ConstantPadNd, constant_pad_nd},
      {OpKind::Flip, flip},
      {OpKind::Roll, roll},
      {OpKind::Repeat, repeat},
      {OpKind::Tril, triangle(false)},
      {OpKind::Triu, triangle(true)},
      {OpKind::Clone, [](ExportContext& cx) -> Expected<Names> { return Names{identity(cx)}; }},
      {OpKind::Contiguous, [](ExportContext& cx) -> Expected<Names> { return Names{identity(cx)}; }},
      {OpKind::ToCopy, to_copy},
  };
  return t;
}

}  // namespace kiln::onnx
