// Decompositions of softmax, log_softmax, logsumexp, var and std into amax, sum, mean and
// elementwise ops, stable as the kernels are: softmax-like ops subtract the max first.
#include <algorithm>

#include "passes/decompositions.h"

namespace kiln::decomp {

namespace {

// Whether every dim flagged in `reduced` has a static size above 0. amax rejects empty
// groups that softmax and logsumexp accept, so rules decline reductions over other dims.
bool nonempty_static(const Value* x, const std::vector<bool>& reduced) {
  const Shape& s = x->type().shape;
  for (int d = 0; d < s.rank(); ++d)
    if (reduced[static_cast<size_t>(d)] && !(s[d].is_static() && s[d].value() > 0)) return false;
  return true;
}

// One flag per dim of x: reduced by `dims` (none or empty: all of them). nullopt when a dim
// is out of range (the node is then ill-formed and left to the verifier).
std::optional<std::vector<bool>> reduced_flags(const Value* x, const std::optional<std::vector<int64_t>>& dims) {
  const int rank = x->type().shape.rank();
  std::vector<bool> flags(static_cast<size_t>(rank), !dims || dims->empty());
  if (!dims) return flags;
  auto wrapped = wrap_dims(*dims, rank);
  if (!wrapped) return std::nullopt;
  for (int64_t d : *wrapped)
    if (d < rank) flags[static_cast<size_t>(d)] = true;
  return flags;
}

std::vector<int64_t> flagged(const std::vector<bool>& flags) {
  std::vector<int64_t> dims;
  for (size_t d = 0; d < flags.size(); ++d)
    if (flags[d]) dims.push_back(static_cast<int64_t>(d));
  return dims;
}

// softmax: exp(x - max) / sum(exp(x - max)); log_softmax: (x - max) - log(sum(exp(x - max))),
// both over `dim`, in the result dtype's compute dtype (the `dtype` attribute casts the input
// first). Over a
// dim of static size 0 the result has no element: x itself, cast (amax, which has no identity,
// would reject the empty group).
Replacement softmax_like(Node& n, GraphBuilder& b, bool log) {
  Value* x = n.operand(0).value;
  const int rank = x->type().shape.rank();
  auto dim = wrap_dims({attrs_of(n).attr_int("dim")}, rank);
  if (!dim) return std::nullopt;
  if (rank == 0) dim->clear();  // a 0-d input reduces over all (no) dims
  const Shape& shape = x->type().shape;
  if (!dim->empty() && shape[static_cast<int>((*dim)[0])] == 0)
    return result(b, n, b.cast(x, n.result()->type().dtype));
  if (!nonempty_static(x, *reduced_flags(x, *dim))) return std::nullopt;
  x = b.cast(x, compute_dtype(n.result()->type().dtype));
  Value* shifted = sub(b, x, reduce(b, OpKind::Amax, x, *dim, true));
  Value* e = unary(b, OpKind::Exp, shifted);
  Value* sum = reduce(b, OpKind::Sum, e, *dim, true);
  return result(b, n, log ? sub(b, shifted, unary(b, OpKind::Log, sum)) : div(b, e, sum));
}

Replacement softmax(Node& n, GraphBuilder& b) { return softmax_like(n, b, false); }
Replacement log_softmax(Node& n, GraphBuilder& b) { return softmax_like(n, b, true); }

// log(sum(exp(x - m))) + m with m the max over dims, taken as 0 where it is infinite (so all
// -inf gives -inf and any +inf gives +inf).
Replacement logsumexp(Node& n, GraphBuilder& b) {
  const OpCallBase a = attrs_of(n);
  Value* x = n.operand(0).value;
  auto flags = reduced_flags(x, a.attr_ints("dim"));
  if (!flags || !nonempty_static(x, *flags)) return std::nullopt;
  x = b.cast(x, compute_dtype(n.result()->type().dtype));
  const std::vector<int64_t> dims = flagged(*flags);
  const bool keepdim = a.attr_bool("keepdim");
  Value* m = reduce(b, OpKind::Amax, x, dims, true);
  Value* shift = where(b, unary(b, OpKind::Isinf, m), Scalar(0.0), m);
  Value* sum = reduce(b, OpKind::Sum, unary(b, OpKind::Exp, sub(b, x, shift)), dims, keepdim);
  return result(b, n, add(b, unary(b, OpKind::Log, sum), keepdim ? shift : squeeze_dims(b, shift, dims)));
}

// sum((x - mean)^2) / max(0, N - correction) over dims (correction none: 1). Declined when a
// reduced dim is symbolic (N must be a literal).
Replacement var_like(Node& n, GraphBuilder& b, bool root) {
  const OpCallBase a = attrs_of(n);
  Value* x = n.operand(0).value;
  auto flags = reduced_flags(x, a.attr_opt_ints("dim"));
  if (!flags) return std::nullopt;
  const Shape& shape = x->type().shape;
  double count = 1;
  for (int d = 0; d < shape.rank(); ++d) {
    if (!(*flags)[static_cast<size_t>(d)]) continue;
    if (!shape[d].is_static()) return std::nullopt;
    count *= static_cast<double>(shape[d].value());
  }
  const Scalar c = a.attr_scalar("correction");
  const double divisor = std::max(0.0, count - (c.is_none() ? 1.0 : c.to_double()));
  const std::vector<int64_t> dims = flagged(*flags);
  x = b.cast(x, compute_dtype(x->type().dtype));
  Value* centered = sub(b, x, reduce(b, OpKind::Mean, x, dims, true));
  Value* var =
      div(b, reduce(b, OpKind::Sum, mul(b, centered, centered), dims, a.attr_bool("keepdim")), Scalar(divisor));
  return result(b, n, root ? unary(b, OpKind::Sqrt, var) : var);
}

Replacement var(Node& n, GraphBuilder& b) { return var_like(n, b, false); }
Replacement std_dev(Node& n, GraphBuilder& b) { return var_like(n, b, true); }

}  // namespace

std::vector<RewriteRule> reduction_rules() {
  return {
      {"softmax", {OpKind::Softmax}, softmax},
      {"log_softmax", {OpKind::LogSoftmax}, log_softmax},
      {"logsumexp", {OpKind::Logsumexp}, logsumexp},
      {"var", {OpKind::Var}, var},
      {"std", {OpKind::Std}, std_dev},
  };
}

}  // namespace kiln::decomp
