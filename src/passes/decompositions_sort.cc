// Decompositions of topk, sort and histc into comparisons, sums, scatter and gather, exact
// (the kernels' tie and NaN order, histc's binning rounded step by step in self's dtype).
// topk and sort compare every pair of a line: n^2 elements per line of n, so the rules decline
// lines longer than kMaxLine (the backend then runs the reference kernel); histc compares
// every element with every bin (numel * bins).
#include "passes/decompositions.h"

namespace kiln::decomp {

namespace {

constexpr int64_t kMaxLine = 1024;               // elements along the sorted dim
constexpr int64_t kMaxPairs = int64_t{1} << 26;  // elements of the pairwise comparison

Value* logical(GraphBuilder& b, OpKind op, Value* x, Value* y) { return b.apply1(op, {x, y}); }

// arange(n) as i64, reshaped to rank `rank` with the n at dim `at` and 1 elsewhere.
Value* positions(GraphBuilder& b, int64_t n, int rank, int at) {
  Value* ar = b.apply1(OpKind::Arange, {}, {{"start", int64_t{0}}, {"end", n}, {"dtype", DType::I64}});
  AttrValue::Ints shape(static_cast<size_t>(rank), 1);
  shape[static_cast<size_t>(at)] = n;
  return b.apply1(OpKind::Reshape, {ar}, {{"shape", shape}});
}

// The indices that order each line of x along d (largest first when `descending`, NaN the
// largest, ties in index order): element i's place is the number of elements j that come
// before it (j strictly before i, or equal with j < i), and the order is that permutation
// inverted by a scatter. Null when the rule declines.
Value* order_indices(GraphBuilder& b, Value* x, int d, bool descending) {
  const std::optional<std::vector<int64_t>> sizes = static_sizes(x);
  if (!sizes || sizes->empty()) return nullptr;
  const int rank = static_cast<int>(sizes->size());
  const int64_t n = (*sizes)[static_cast<size_t>(d)];
  int64_t numel = 1;
  for (int64_t s : *sizes) numel *= s;
  if (n == 0 || n > kMaxLine || numel * n > kMaxPairs) return nullptr;
  const bool floating = is_floating(x->type().dtype);
  Value* key = x->type().dtype == DType::Bool ? b.cast(x, DType::I64) : x;
  Value* xi = b.apply1(OpKind::Unsqueeze, {key}, {{"dim", int64_t{d + 1}}});  // i along d
  Value* xj = b.apply1(OpKind::Unsqueeze, {key}, {{"dim", int64_t{d}}});      // j along d + 1
  Value* strict = logical(b, descending ? OpKind::Gt : OpKind::Lt, xj, xi);
  Value* same = logical(b, OpKind::Eq, xj, xi);
  if (floating) {
    Value* ni = unary(b, OpKind::Isnan, xi);
    Value* nj = unary(b, OpKind::Isnan, xj);
    Value* nan_before = descending ? logical(b, OpKind::LogicalAnd, nj, unary(b, OpKind::LogicalNot, ni))
                                   : logical(b, OpKind::LogicalAnd, ni, unary(b, OpKind::LogicalNot, nj));
    strict = logical(b, OpKind::LogicalOr, strict, nan_before);
    same = logical(b, OpKind::LogicalOr, same, logical(b, OpKind::LogicalAnd, ni, nj));
  }
  Value* j_first = logical(b, OpKind::Lt, positions(b, n, rank + 1, d + 1), positions(b, n, rank + 1, d));
  Value* before = logical(b, OpKind::LogicalOr, strict, logical(b, OpKind::LogicalAnd, same, j_first));
  Value* place = reduce(b, OpKind::Sum, before, {d + 1}, false);  // i64, x's shape
  Value* along = b.apply1(OpKind::Expand, {positions(b, n, rank, d)}, {{"size", *sizes}});
  return b.apply1(OpKind::Scatter, {b.zeros_like(place), place, along}, {{"dim", int64_t{d}}});
}

// topk and sort: the order's first `keep` indices (all for sort) and the values they gather.
Replacement ordered(Node& n, GraphBuilder& b, bool descending, std::optional<int64_t> keep) {
  Value* x = n.operand(0).value;
  const int rank = x->type().shape.rank();
  auto dim = wrap_dims({attrs_of(n).attr_int("dim")}, rank);
  if (!dim || rank == 0) return std::nullopt;
  const int d = static_cast<int>((*dim)[0]);
  Value* order = order_indices(b, x, d, descending);
  if (order == nullptr) return std::nullopt;
  // The first k, copied: the kernel's results are contiguous, and a later `view` may rely on it.
  if (keep && *keep != x->type().shape[d].value())
    order = b.apply1(OpKind::Contiguous,
                     {b.apply1(OpKind::Slice, {order}, {{"dim", int64_t{d}}, {"start", int64_t{0}}, {"end", *keep}})});
  Value* values = b.apply1(OpKind::Gather, {x, order}, {{"dim", int64_t{d}}});
  return std::vector<Value*>{values, order};
}

Replacement topk(Node& n, GraphBuilder& b) {
  const OpCallBase a = attrs_of(n);
  return ordered(n, b, a.attr_bool("largest"), a.attr_int("k"));
}

Replacement sort(Node& n, GraphBuilder& b) { return ordered(n, b, attrs_of(n).attr_bool("descending"), std::nullopt); }

// A 0-d tensor of dtype t holding v (v already representable in t).
Value* constant(GraphBuilder& b, double v, DType t) {
  return b.apply1(OpKind::Full, {},
                  {{"size", AttrValue::Ints{}}, {"fill_value", AttrValue::from_scalar(Scalar(v))}, {"dtype", t}});
}

// histc over a given range [lo, hi] (the attributes rounded to self's dtype): the bin of each
// element in range as the kernel computes it (clamped to the last bin for x == hi), and a sum
// of one-hot rows.
Replacement histc(Node& n, GraphBuilder& b) {
  const OpCallBase a = attrs_of(n);
  Value* x = n.operand(0).value;
  const DType t = x->type().dtype;
  const std::optional<std::vector<int64_t>> sizes = static_sizes(x);
  if (!sizes || !is_floating(t)) return std::nullopt;
  int64_t numel = 1;
  for (int64_t s : *sizes) numel *= s;
  const int64_t bins = a.attr_int("bins");
  if (bins <= 0 || numel * bins > kMaxPairs) return std::nullopt;
  double lo_attr = a.attr_scalar("min").to_double(), hi_attr = a.attr_scalar("max").to_double();
  // The data's range (min == max) decides the edges at run time, and a NaN or infinite one
  // is the kernel's error: that variant stays whole.
  if (lo_attr == hi_attr && numel > 0) return std::nullopt;
  if (lo_attr == hi_attr) {
    lo_attr -= 1;
    hi_attr += 1;
  }
  Value* flat = b.apply1(OpKind::Reshape, {x}, {{"shape", AttrValue::Ints{numel}}});
  // The edges in self's dtype, as torch's linspace holds them.
  Value* lo = constant(b, lo_attr, t);
  Value* hi = constant(b, hi_attr, t);
  Value* in_range = logical(b, OpKind::LogicalAnd, b.apply1(OpKind::Ge, {flat, lo}), b.apply1(OpKind::Le, {flat, hi}));
  Value* scaled = div(b, mul(b, sub(b, flat, lo), Scalar(bins)), sub(b, hi, lo));
  Value* bin = b.cast(where(b, in_range, scaled, Scalar(0.0)), DType::I64);  // truncates, as torch's cast
  bin = b.apply1(OpKind::Minimum, {bin, constant(b, static_cast<double>(bins - 1), DType::I64)});
  Value* column = b.apply1(OpKind::Unsqueeze, {bin}, {{"dim", int64_t{1}}});
  Value* hit = b.apply1(OpKind::Eq, {column, positions(b, bins, 2, 1)});
  hit = logical(b, OpKind::LogicalAnd, hit, b.apply1(OpKind::Unsqueeze, {in_range}, {{"dim", int64_t{1}}}));
  return result(b, n, reduce(b, OpKind::Sum, hit, {0}, false));
}

}  // namespace

std::vector<RewriteRule> sort_rules() {
  return {
      {"topk", {OpKind::Topk}, topk},
      {"sort", {OpKind::Sort}, sort},
      {"histc", {OpKind::Histc}, histc},
  };
}

}  // namespace kiln::decomp
