// Exporters of the reduce ops and cumsum. The reduced dims come from kiln's own rule
// (reduced_dims: none, and except for any/all an empty list, mean every dim), so a 0-d input
// is reshaped to [1] and every ONNX reduction gets an explicit, non-empty axes list.
// PyTorch semantics written out of ONNX ops: mean and var divide by the element count (0/0
// is NaN for an empty group, where ONNX Runtime's ReduceMean gives 0), amax/amin/argmax/argmin
// propagate NaN (ONNX leaves NaN in ReduceMax/ArgMax unspecified), argmax's ties take the
// first index, any/all count nonzero elements (an empty any is false, an empty all true),
// and integer sums, products and cumsums accumulate in int64, wrapping as PyTorch does.
#include <algorithm>
#include <limits>
#include <optional>

#include "onnx/export_util.h"
#include "ops/reduce_dims.h"

namespace kiln::onnx {

namespace {

using Names = std::vector<std::string>;

// Operand 0 cast to `d`, with the ONNX axes it reduces over and whether to keep them. A 0-d
// input becomes [1] reduced over axis 0 without keepdims, so the result stays 0-d.
struct Reduction {
  std::string x;
  std::vector<int64_t> axes;
  bool keepdim = false;
};

Expected<Reduction> prepare(ExportContext& cx, DType d, std::optional<DType> via = std::nullopt) {
  const int rank = cx.rank(0);
  KILN_ASSIGN_OR_RETURN(std::vector<bool> reduced, reduced_dims(cx.call, rank));
  Reduction r{cx.operand_via(0, via.value_or(d), d), {}, cx.call.attr_bool("keepdim")};
  if (rank == 0) {
    r.x = cx.b.op("Reshape", {r.x, cx.b.ints({1})});
    r.axes = {0};
    r.keepdim = false;
    return r;
  }
  for (int i = 0; i < rank; ++i)
    if (reduced[static_cast<size_t>(i)]) r.axes.push_back(i);
  return r;
}

// The number of elements each group reduces, as a 0-d value of dtype d.
std::string group_count(ExportContext& cx, const Reduction& r, DType d) {
  const Shape& s = cx.type(0).shape;
  if (s.rank() == 0) return cx.b.scalar(1, d);
  int64_t n = 1;
  bool is_static = true;
  for (int64_t a : r.axes) {
    if (s[static_cast<int>(a)].is_static())
      n *= s[static_cast<int>(a)].value();
    else
      is_static = false;
  }
  if (is_static) return cx.b.scalar(static_cast<double>(n), d);
  const std::string dims = cx.b.op("Gather", {cx.b.op("Shape", {r.x}), cx.b.ints(r.axes)}, {{"axis", int64_t{0}}});
  return cx.b.cast(reduce_op(cx, "ReduceProd", dims, {0}, false), DType::I64, d);
}

// The dtype a sum, product or cumsum accumulates in: the float result's compute dtype, else int64.
DType accumulate_dtype(DType result) { return is_floating(result) ? compute_dtype(result) : DType::I64; }

// What a sum, product or cumsum reads its input as before it accumulates: an integer or bool
// result dtype first (prod of [-0.86, -0.34] with dtype=bool multiplies two trues, as torch and
// kiln's kernels do), else the accumulation dtype.
DType read_dtype(DType result) { return is_floating(result) ? accumulate_dtype(result) : result; }

// The product of int64 groups of static size n > 0, wrapping as PyTorch does (ONNX Runtime's
// int64 ReduceProd saturates): the reduced axes moved last and flattened to [M, n], then
// halves multiplied elementwise until one column is left, reshaped to the result's shape.
Expected<std::string> int_product(ExportContext& cx, const Reduction& r, int64_t n) {
  OnnxBuilder& b = cx.b;
  const int rank = cx.rank(0) == 0 ? 1 : cx.rank(0);
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < rank; ++i)
    if (std::find(r.axes.begin(), r.axes.end(), i) == r.axes.end()) perm.push_back(i);
  perm.insert(perm.end(), r.axes.begin(), r.axes.end());
  std::string x = b.op("Reshape", {b.op("Transpose", {r.x}, {{"perm", perm}}), b.ints({-1, n})});
  auto slice = [&](int64_t from, int64_t to) {
    return b.op("Slice", {x, b.ints({from}), b.ints({to}), b.ints({1})});
  };  // along axis 1
  while (n > 1) {
    const int64_t half = n / 2;
    const std::string prod = b.op("Mul", {slice(0, half), slice(half, 2 * half)});
    x = n % 2 == 0 ? prod : b.op("Concat", {prod, slice(2 * half, n)}, {{"axis", int64_t{1}}});
    n = half + n % 2;
  }
  KILN_ASSIGN_OR_RETURN(std::string shape, cx.shape_tensor(cx.result_type().shape));
  return b.op("Reshape", {x, shape});
}

// The static element count of each group, or nullopt.
std::optional<int64_t> static_count(ExportContext& cx, const Reduction& r) {
  const Shape& s = cx.type(0).shape;
  int64_t n = 1;
  for (int64_t a : r.axes) {
    if (s.rank() == 0) break;
    if (!s[static_cast<int>(a)].is_static()) return std::nullopt;
    n *= s[static_cast<int>(a)].value();
  }
  return n;
}

// sum, prod: one ONNX reduction accumulated in the result's dtype, cast back.
OpExporter accumulate(const std::string& op) {
  return [op](ExportContext& cx) -> Expected<Names> {
    const DType out = cx.result_type().dtype, c = accumulate_dtype(out);
    KILN_ASSIGN_OR_RETURN(Reduction r, prepare(cx, c, read_dtype(out)));
    const std::optional<int64_t> n = static_count(cx, r);
    if (op == "ReduceProd" && c == DType::I64 && n && *n > 0) {
      KILN_ASSIGN_OR_RETURN(std::string y, int_product(cx, r, *n));
      return Names{cx.b.cast(y, c, out)};
    }
    return Names{cx.b.cast(reduce_op(cx, op, r.x, r.axes, r.keepdim), c, out)};
  };
}

Expected<Names> mean(ExportContext& cx) {
  const DType out = cx.result_type().dtype, c = compute_dtype(out);
  KILN_ASSIGN_OR_RETURN(Reduction r, prepare(cx, c));
  const std::string sum = reduce_op(cx, "ReduceSum", r.x, r.axes, r.keepdim);
  return Names{cx.b.cast(cx.b.op("Div", {sum, group_count(cx, r, c)}), c, out)};
}

// var and std: sum((x - mean)^2) / max(0, n - correction), as kiln's kernel (a divisor of 0
// gives inf or NaN, as PyTorch).
OpExporter variance(bool take_sqrt) {
  return [take_sqrt](ExportContext& cx) -> Expected<Names> {
    const DType out = cx.result_type().dtype, c = compute_dtype(out);
    KILN_ASSIGN_OR_RETURN(Reduction r, prepare(cx, c));
    const Scalar corr = cx.call.attr_scalar("correction");
    const double correction = corr.is_none() ? 1.0 : corr.to_double();
    const std::string n = group_count(cx, r, c);
    const std::string m = cx.b.op("Div", {reduce_op(cx, "ReduceSum", r.x, r.axes, true), n});
    const std::string dev = cx.b.op("Sub", {r.x, m});
    const std::string sq = reduce_op(cx, "ReduceSum", cx.b.op("Mul", {dev, dev}), r.axes, r.keepdim);
    const std::string divisor = cx.b.op("Max", {cx.b.op("Sub", {n, cx.b.scalar(correction, c)}), cx.b.scalar(0, c)});
    std::string v = cx.b.op("Div", {sq, divisor});
    if (take_sqrt) v = cx.b.op("Sqrt", {v});
    return Names{cx.b.cast(v, c, out)};
  };
}

// Whether any element of each group is NaN (a bool of the reduction's result shape).
std::string any_nan(ExportContext& cx, const Reduction& r, DType d) {
  const std::string nan = cx.b.cast(is_nan(cx.b, r.x), DType::Bool, d);
  return cx.b.op("Greater", {reduce_op(cx, "ReduceSum", nan, r.axes, r.keepdim), cx.b.scalar(0, d)});
}

// amax, amin: integers and bool through int64 (ONNX Runtime's ReduceMax lacks bool and small
// ints); NaN written in where a group holds one.
OpExporter extreme(const std::string& op) {
  return [op](ExportContext& cx) -> Expected<Names> {
    const DType out = cx.result_type().dtype, c = accumulate_dtype(out);
    KILN_ASSIGN_OR_RETURN(Reduction r, prepare(cx, c));
    std::string y = reduce_op(cx, op, r.x, r.axes, r.keepdim);
    if (is_floating(c)) y = where(cx.b, any_nan(cx, r, c), cx.b.scalar(std::numeric_limits<double>::quiet_NaN(), c), y);
    return Names{cx.b.cast(y, c, out)};
  };
}

// argmax, argmin over one dim (dim=None: the flattened input, reshaped to the result's shape
// after). Ties give the first index (select_last_index=0); the first NaN counts as the extreme.
OpExporter arg_extreme(const std::string& op) {
  return [op](ExportContext& cx) -> Expected<Names> {
    const DType in = cx.dtype(0);
    const DType c = is_floating(in) ? compute_dtype(in) : (in == DType::I32 || in == DType::I64 ? in : DType::I64);
    std::string x = cx.operand_as(0, c);
    const std::optional<int64_t> dim = cx.call.attr_opt_int("dim");
    const bool flatten = !dim || cx.rank(0) == 0;
    int64_t axis = 0;
    bool keepdim = cx.call.attr_bool("keepdim");
    if (flatten) {
      x = cx.b.op("Reshape", {x, cx.b.ints({-1})});
      keepdim = false;
    } else {
      axis = *dim < 0 ? *dim + cx.rank(0) : *dim;
    }
    const std::vector<OnnxAttr> attrs{
        {"axis", axis}, {"keepdims", int64_t{keepdim ? 1 : 0}}, {"select_last_index", int64_t{0}}};
    std::string y = cx.b.op(op, {x}, attrs);
    if (is_floating(c)) {
      const std::string nan = cx.b.cast(is_nan(cx.b, x), DType::Bool, DType::I32);
      const std::string first_nan = cx.b.op("ArgMax", {nan}, attrs);
      const std::string has_nan =
          cx.b.op("Greater", {reduce_op(cx, "ReduceMax", nan, {axis}, keepdim), cx.b.scalar(0, DType::I32)});
      y = where(cx.b, has_nan, first_nan, y);
    }
    if (flatten) {
      KILN_ASSIGN_OR_RETURN(std::string shape, cx.shape_tensor(cx.result_type().shape));
      y = cx.b.op("Reshape", {y, shape});
    }
    return Names{y};
  };
}

// log(sum(exp(x - m))) + m with m the group's max, taken as 0 when infinite (all -inf gives
// -inf, any +inf gives +inf), as kiln's kernel.
Expected<Names> logsumexp(ExportContext& cx) {
  const DType out = cx.result_type().dtype, c = compute_dtype(out);
  KILN_ASSIGN_OR_RETURN(Reduction r, prepare(cx, c));
  std::string m = reduce_op(cx, "ReduceMax", r.x, r.axes, true);
  m = where(cx.b, cx.b.op("IsInf", {m}), cx.b.scalar(0, c), m);
  const std::string s = reduce_op(cx, "ReduceSum", cx.b.op("Exp", {cx.b.op("Sub", {r.x, m})}), r.axes, r.keepdim);
  std::string shift = m;
  if (!r.keepdim) shift = cx.b.op("Squeeze", {m, cx.b.ints(r.axes)});
  return Names{cx.b.cast(cx.b.op("Add", {cx.b.op("Log", {s}), shift}), c, out)};
}

// any: some element is nonzero; all: no element is zero (NaN is nonzero). Counted with
// ReduceSum, so an empty group gives false for any and true for all.
OpExporter any_all(bool is_any) {
  return [is_any](ExportContext& cx) -> Expected<Names> {
    const DType in = cx.dtype(0), out = cx.result_type().dtype;
    const DType c = in == DType::Bool ? DType::Bool : accumulate_dtype(in);
    KILN_ASSIGN_OR_RETURN(Reduction r, prepare(cx, c));
    std::string zero = c == DType::Bool ? cx.b.op("Not", {r.x}) : cx.b.op("Equal", {r.x, cx.b.scalar(0, c)});
    if (r.axes.empty()) return Names{cx.b.cast(is_any ? cx.b.op("Not", {zero}) : zero, DType::Bool, out)};
    const std::string counted = is_any ? cx.b.op("Not", {zero}) : zero;
    const std::string n = reduce_op(cx, "ReduceSum", cx.b.cast(counted, DType::Bool, DType::I64), r.axes, r.keepdim);
    const std::string y =
        is_any ? cx.b.op("Greater", {n, cx.b.int_scalar(0)}) : cx.b.op("Equal", {n, cx.b.int_scalar(0)});
    return Names{cx.b.cast(y, DType::Bool, out)};
  };
}

Expected<Names> cumsum(ExportContext& cx) {
  const DType out = cx.result_type().dtype, c = accumulate_dtype(out);
  const std::string x = cx.operand_via(0, read_dtype(out), c);
  if (cx.rank(0) == 0) return Names{cx.b.cast(x, c, out)};
  const int64_t dim = cx.call.attr_int("dim");
  const int64_t axis = dim < 0 ? dim + cx.rank(0) : dim;
  return Names{cx.b.cast(cx.b.op("CumSum", {x, cx.b.int_scalar(axis)}), c, out)};
}

// topk and sort: ONNX TopK along the dim (sort keeps the whole line), which orders ties lowest
// index first as kiln does. Values are sorted in f32 for f16/bf16 and in i64 for the other
// integers and bool (TopK's types), and cast back. ONNX leaves NaN's place unspecified: a model
// whose sorted values hold NaN may order them otherwise in another runtime.
OpExporter ordered(bool is_topk) {
  return [is_topk](ExportContext& cx) -> Expected<Names> {
    const DType in = cx.dtype(0);
    if (cx.rank(0) == 0) return Names{cx.b.op("Identity", {cx.operand(0)}), cx.b.int_scalar(0)};
    const DType c = is_floating(in) ? compute_dtype(in) : (in == DType::I32 || in == DType::I64 ? in : DType::I64);
    const int64_t dim = cx.call.attr_int("dim");
    const int64_t axis = dim < 0 ? dim + cx.rank(0) : dim;
    const Dim& len = cx.type(0).shape[static_cast<int>(axis)];
    if (!len.is_static()) return make_error(cx.node.info().name(), ": the sorted dim must be static");
    const int64_t k = is_topk ? cx.call.attr_int("k") : len.value();
    const bool largest = is_topk ? cx.call.attr_bool("largest") : cx.call.attr_bool("descending");
    std::vector<std::string> r =
        cx.b.node("TopK", {cx.operand_as(0, c), cx.b.ints({k})},
                  {{"axis", axis}, {"largest", int64_t{largest ? 1 : 0}}, {"sorted", int64_t{1}}}, 2);
    return Names{cx.b.cast(r[0], c, in), r[1]};
  };
}

// histc over a given range, as its decomposition (passes/decompositions_sort.cc): edges of
// self's dtype, (x - lo) * bins / (hi - lo) with each step rounded to self's dtype (computed in
// f32 for f16/bf16, cast back after every op), truncated to i64, the last bin taking x == hi,
// a one-hot row per element in range summed over the elements. Over the data's range (min ==
// max) the edges, and kiln's error for a NaN or infinite one, are decided at run time: not
// exported.
Expected<Names> histc(ExportContext& cx) {
  OnnxBuilder& b = cx.b;
  const DType t = cx.dtype(0), c = compute_dtype(t);
  const int64_t bins = cx.call.attr_int("bins");
  double lo = cx.call.attr_scalar("min").to_double(), hi = cx.call.attr_scalar("max").to_double();
  const Shape& shape = cx.type(0).shape;
  if (!shape.is_static()) return make_error("histc: the input's shape must be static");
  const int64_t numel = shape.numel();
  if (lo == hi && numel > 0)
    return make_error("histc over the data's range (min == max) is not exportable to ONNX: give min < max");
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  auto rounded = [&](const std::string& v) { return t == c ? v : b.cast(b.cast(v, c, t), t, c); };
  const std::string x = b.op("Reshape", {cx.operand_as(0, c), b.ints({numel})});
  const std::string lo_v = b.cast(b.scalar(lo, t), t, c), hi_v = b.cast(b.scalar(hi, t), t, c);
  const std::string in_range = b.op("And", {b.op("GreaterOrEqual", {x, lo_v}), b.op("LessOrEqual", {x, hi_v})});
  const std::string width = rounded(b.op("Sub", {hi_v, lo_v}));
  const std::string scaled = rounded(b.op(
      "Div", {rounded(b.op("Mul", {rounded(b.op("Sub", {x, lo_v})), b.scalar(static_cast<double>(bins), c)})), width}));
  std::string bin = b.cast(where(b, in_range, scaled, b.scalar(0, c)), c, DType::I64);
  bin = b.op("Min", {bin, b.int_scalar(bins - 1)});
  std::vector<int64_t> all(static_cast<size_t>(bins));
  for (int64_t i = 0; i < bins; ++i) all[static_cast<size_t>(i)] = i;
  const std::string hit = b.op("And", {b.op("Equal", {b.op("Unsqueeze", {bin, b.ints({1})}), b.ints(all)}),
                                       b.op("Unsqueeze", {in_range, b.ints({1})})});
  const std::string counts = reduce_op(cx, "ReduceSum", b.cast(hit, DType::Bool, DType::I64), {0}, false);
  return Names{b.cast(counts, DType::I64, t)};
}

}  // namespace

std::vector<OpExporterEntry> reduction_exporters() {
  return {
      {OpKind::Sum, accumulate("ReduceSum")},
      {OpKind::Prod, accumulate("ReduceProd")},
      {OpKind::Mean, mean},
      {OpKind::Var, variance(false)},
      {OpKind::Std, variance(true)},
      {OpKind::Amax, extreme("ReduceMax")},
      {OpKind::Amin, extreme("ReduceMin")},
      {OpKind::Argmax, arg_extreme("ArgMax")},
      {OpKind::Argmin, arg_extreme("ArgMin")},
      {OpKind::Topk, ordered(true)},
      {OpKind::Sort, ordered(false)},
      {OpKind::Histc, histc},
      {OpKind::Logsumexp, logsumexp},
      {OpKind::Any, any_all(true)},
      {OpKind::All, any_all(false)},
      {OpKind::Cumsum, cumsum},
  };
}

}  // namespace kiln::onnx
