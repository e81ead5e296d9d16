// Lowering of the ops whose element at coordinates c is an element of an operand at
// coordinates computed from c ("remaps"): flip (size-1-c), roll (mod), repeat (mod), clone and
// contiguous (c itself), select_scatter (src where c is on the selected index, else self), and
// with masked loads, constant_pad_nd (the operand where c is inside it, else the value) and
// slice_scatter (src where c is in the slice, else self). They stay pending like elementwise
// values: a reader computes them inlined at the coordinates it reads, so they make no kernel
// of their own unless realized.
#include <algorithm>
#include <optional>
#include <vector>

#include "lower/lowering.h"
#include "ops/op_call.h"
#include "ops/type_rules_util.h"
#include "support/check.h"

namespace kiln::lowering {

namespace {

// Operand `i`'s value when it is a tensor (literals: none).
const Value* tensor_operand(const Node& n, int i) {
  return i < n.num_operands() && n.operand(i).is_value() ? n.operand(i).value : nullptr;
}

// dims as wrapped dim numbers of a tensor of rank `rank` (a 0-d tensor takes dim 0 and -1),
// none twice; nullopt otherwise (the reference kernel reports the error).
std::optional<std::vector<int>> distinct_dims(const std::vector<int64_t>& dims, int rank) {
  std::vector<int> out;
  for (int64_t d : dims) {
    std::optional<int> w = wrap_dim(d, std::max(rank, 1));
    if (!w || std::find(out.begin(), out.end(), *w) != out.end()) return std::nullopt;
    out.push_back(*w);
  }
  return out;
}

// The row-major coordinates of flat index `flat` in a tensor of `sizes` (0 for dims of size 1).
std::vector<IndexExpr> unflatten(const IndexExpr& flat, const std::vector<int64_t>& sizes) {
  const std::vector<int64_t> cs = contiguous_strides(sizes);
  std::vector<IndexExpr> c(sizes.size());
  for (size_t k = 0; k < sizes.size(); ++k) {
    if (sizes[k] <= 1) continue;
    IndexExpr q = IndexExpr::floor_div(flat, cs[k]);
    c[k] = k == 0 ? q : IndexExpr::mod(q, sizes[k]);
  }
  return c;
}

// Whether e is a*i<v> + b for one variable (a masked load's condition on it is a range of
// that variable, which the bounds proof understands: loop_bounds.h).
bool one_variable(const IndexExpr& e) { return e.terms.size() == 1 && e.terms[0].kind == IndexTerm::Kind::Var; }

// (e - shift) mod n for a coordinate e in [0, n), n > 0: mod(e + s, n) with s = -shift in [0, n).
IndexExpr rolled(const IndexExpr& e, int64_t shift, int64_t n) {
  const int64_t s = ((-(shift % n)) % n + n) % n;
  return s == 0 ? e : IndexExpr::mod(e.plus(IndexExpr::constant_of(s)), n);
}

}  // namespace

bool Lowering::lowers_as_remap(const Node& n) {
  const OpCallBase call(n.op(), n.attrs());
  const Value* self = tensor_operand(n, 0);
  if (!self || n.num_results() != 1) return false;
  const int rank = static_cast<int>(sizes_of(self).size());
  switch (n.op()) {
    case OpKind::Clone:
    case OpKind::Contiguous:
    case OpKind::Repeat: return true;
    case OpKind::Flip: return distinct_dims(call.attr_ints("dims"), rank).has_value();
    case OpKind::Roll: {
      // Shifts and dims must pair up (one shift without dims rolls the flattened tensor).
      const std::vector<int64_t>& dims = call.attr_ints("dims");
      const size_t shifts = call.attr_ints("shifts").size();
      if (dims.empty()) return shifts == 1;
      if (shifts != dims.size()) return false;
      for (int64_t d : dims)
        if (!wrap_dim(d, std::max(rank, 1))) return false;
      return true;
    }
    case OpKind::ConstantPadNd: return !call.attr_scalar("value").is_none();
    case OpKind::SliceScatter: {
      const Value* src = tensor_operand(n, 1);
      std::optional<int> d = wrap_dim(call.attr_int("dim"), rank);
      if (!src || rank == 0 || !d || call.attr_int("step") <= 0) return false;
      std::vector<int64_t> slice = sizes_of(self);
      const auto k = static_cast<size_t>(*d);
      slice[k] =
          slice_bounds(slice[k], call.attr_opt_int("start"), call.attr_opt_int("end"), call.attr_int("step")).length;
      return sizes_of(src) == slice;
    }
    case OpKind::SelectScatter: {
      const Value* src = tensor_operand(n, 1);
      std::optional<int> d = wrap_dim(call.attr_int("dim"), rank);
      if (!src || rank == 0 || !d) return false;
      std::vector<int64_t> slice = sizes_of(self);
      const int64_t size = slice[static_cast<size_t>(*d)], index = call.attr_int("index");
      slice.erase(slice.begin() + *d);
      return index >= -size && index < size && sizes_of(src) == slice;
    }
    default: return false;
  }
}

int Lowering::emit_remap(BodyBuilder& b, const Node& n, const std::vector<IndexExpr>& c) {
  const OpCallBase call(n.op(), n.attrs());
  const Value* self = n.operand(0).value;
  const std::vector<int64_t> in = sizes_of(self);
  const int rank = static_cast<int>(in.size());
  const DType r = n.result()->type().dtype;
  std::vector<IndexExpr> at = c;  // where operand 0 is read
  switch (n.op()) {
    case OpKind::Clone:
    case OpKind::Contiguous: break;
    case OpKind::Flip: {
      const std::vector<int> dims = *distinct_dims(call.attr_ints("dims"), rank);
      for (int d : dims) {
        const auto k = static_cast<size_t>(d);
        if (d < rank && in[k] > 1) at[k] = IndexExpr::constant_of(in[k] - 1).plus(c[k].scaled(-1));
      }
      break;
    }
    case OpKind::Roll: {
      const std::vector<int64_t>& shifts = call.attr_ints("shifts");
      const std::vector<int64_t>& dims = call.attr_ints("dims");
      if (dims.empty()) {  // the flattened tensor rolled, then reshaped back
        const int64_t numel = numel_of(in);
        if (numel == 0) break;
        const std::vector<int64_t> cs = contiguous_strides(in);
        IndexExpr flat;
        for (size_t k = 0; k < in.size(); ++k) flat = flat.plus(c[k].scaled(cs[k]));
        at = unflatten(rolled(flat, shifts[0], numel), in);
        break;
      }
      std::vector<int64_t> shift(in.size(), 0);  // each dim's shifts, summed modulo its size
      for (size_t i = 0; i < dims.size() && rank > 0; ++i) {
        const size_t d = static_cast<size_t>(*wrap_dim(dims[i], rank));
        if (in[d] > 0) shift[d] = (shift[d] + shifts[i] % in[d]) % in[d];
      }
      for (size_t k = 0; k < in.size(); ++k)
        if (in[k] > 1) at[k] = rolled(c[k], shift[k], in[k]);
      break;
    }
    case OpKind::Repeat: {
      // Leading result dims are new; each operand dim repeats with period in[k].
      const size_t lead = c.size() - in.size();
      at.assign(c.begin() + static_cast<std::ptrdiff_t>(lead), c.end());
      for (size_t k = 0; k < in.size(); ++k) at[k] = in[k] <= 1 ? IndexExpr() : IndexExpr::mod(at[k], in[k]);
      break;
    }
    case OpKind::SelectScatter: {
      // src at c without the selected dim where c[dim] is the index, else self at c.
      const int d = *wrap_dim(call.attr_int("dim"), rank);
      const int64_t size = in[static_cast<size_t>(d)];
      int64_t index = call.attr_int("index");
      if (index < 0) index += size;
      std::vector<IndexExpr> sc = c;
      sc.erase(sc.begin() + d);
      const IndexExpr& cd = c[static_cast<size_t>(d)];
      if (cd.is_constant()) {
        const Value* chosen = cd.constant == index ? n.operand(1).value : self;
        return b.cast(value_at(b, chosen, cd.constant == index ? sc : c), r);
      }
      const int on = b.compute(OpKind::Eq, {b.index(cd), b.constant(Scalar(index), DType::I64)}, DType::Bool);
      const int src = b.cast(value_at(b, n.operand(1).value, sc), r);
      return b.compute(OpKind::Where, {on, src, b.cast(value_at(b, self, c), r)}, r);
    }
    case OpKind::ConstantPadNd: return emit_pad(b, n, c);
    case OpKind::SliceScatter: return emit_slice_scatter(b, n, c);
    default: KILN_UNREACHABLE("emit_remap of an op lowers_as_remap refuses");
  }
  return b.cast(value_at(b, self, at), r);
}

int Lowering::masked_range(BodyBuilder& b, const IndexExpr& e, int64_t lo, int64_t hi) {
  // Bounds the loops already keep e within need no comparison.
  const std::optional<IndexRange> r = index_range(e, b.loops());
  const bool above = r && r->lo >= lo, below = r && r->hi < hi;
  if (r && (r->hi < lo || r->lo >= hi)) return b.constant(Scalar(int64_t{0}), DType::Bool);
  if (above && below) return -1;
  const int x = b.index(e);
  const int ge = above ? -1 : b.compute(OpKind::Ge, {x, b.constant(Scalar(lo), DType::I64)}, DType::Bool);
  const int lt = below ? -1 : b.compute(OpKind::Lt, {x, b.constant(Scalar(hi), DType::I64)}, DType::Bool);
  if (ge < 0 || lt < 0) return ge < 0 ? lt : ge;
  return b.compute(OpKind::LogicalAnd, {ge, lt}, DType::Bool);
}

int Lowering::masked_value_at(BodyBuilder& b, const Value* v, const std::vector<IndexExpr>& c, int mask, DType dt,
                              const Scalar& other) {
  const int outer = b.mask();
  const int m = outer >= 0 ? b.compute(OpKind::LogicalAnd, {outer, mask}, DType::Bool) : mask;
  b.set_mask(m);
  int x;
  const auto a = access_.find(v);
  if (a != access_.end() && !pending_.count(v) && !body_of_.count(v) && v->type().dtype == dt) {
    x = b.load(a->second.buffer, dt, a->second.map.substitute(c), other);  // one masked load
  } else {
    x = b.compute(OpKind::Where, {m, b.cast(value_at(b, v, c), dt), b.constant(other, dt)}, dt);
  }
  b.set_mask(outer);
  return x;
}

// constant_pad_nd: the operand at c - lo (per padded dim) where that is inside it, else the
// value; a negative pad crops. The operand's loads are masked by the coordinates' ranges.
int Lowering::emit_pad(BodyBuilder& b, const Node& n, const std::vector<IndexExpr>& c) {
  const OpCallBase call(n.op(), n.attrs());
  const Value* self = n.operand(0).value;
  const std::vector<int64_t> in = sizes_of(self);
  const DType r = n.result()->type().dtype;
  const Scalar value = call.attr_scalar("value");
  const std::vector<int64_t>& pad = call.attr_ints("pad");
  // A negative pad crops: the elements it drops are never read here, so an operand that checks
  // indices is computed whole first, its checks on every element as the reference kernel's
  // (a gather whose only bad index was cropped ran compiled and failed interpreted: the
  // fuzz_graphs libFuzzer target).
  if (std::ranges::any_of(pad, [](int64_t p) { return p < 0; }) && checks_indices(self)) realize(self);
  std::vector<IndexExpr> at = c;
  int mask = -1;
  for (size_t p = 0; p < pad.size() / 2; ++p) {
    const size_t d = in.size() - 1 - p;
    const IndexExpr e = c[d].plus(IndexExpr::constant_of(pad[2 * p]).scaled(-1));
    at[d] = e;
    if (e.is_constant()) {
      if (e.constant < 0 || e.constant >= in[d]) return b.constant(value, r);
      continue;
    }
    if (!one_variable(e)) {  // read through div/mod: the pad gets a kernel of its own first
      realize(n.result());
      return value_at(b, n.result(), c);
    }
    const int inside = masked_range(b, e, 0, in[d]);
    if (inside >= 0) mask = mask < 0 ? inside : b.compute(OpKind::LogicalAnd, {mask, inside}, DType::Bool);
  }
  if (mask < 0) return b.cast(value_at(b, self, at), r);
  return masked_value_at(b, self, at, mask, r, value);
}

// slice_scatter: src at (c[dim] - start) / step where c[dim] is in the slice, else self.
int Lowering::emit_slice_scatter(BodyBuilder& b, const Node& n, const std::vector<IndexExpr>& c) {
  const OpCallBase call(n.op(), n.attrs());
  const Value *self = n.operand(0).value, *src = n.operand(1).value;
  const std::vector<int64_t> in = sizes_of(self);
  const DType r = n.result()->type().dtype;
  const auto d = static_cast<size_t>(*wrap_dim(call.attr_int("dim"), static_cast<int>(in.size())));
  const int64_t step = call.attr_int("step");
  const SliceBounds s = slice_bounds(in[d], call.attr_opt_int("start"), call.attr_opt_int("end"), step);
  const IndexExpr e = c[d].plus(IndexExpr::constant_of(-s.start));  // the offset into the slice
  std::vector<IndexExpr> sc = c;
  sc[d] = IndexExpr::floor_div(e, step);
  if (s.length == 0) return b.cast(value_at(b, self, c), r);
  if (e.is_constant()) {
    const bool inside = e.constant >= 0 && e.constant < step * (s.length - 1) + 1 && e.constant % step == 0;
    return inside ? b.cast(value_at(b, src, sc), r) : b.cast(value_at(b, self, c), r);
  }
  if (!one_variable(e)) {
    realize(n.result());
    return value_at(b, n.result(), c);
  }
  int inside = masked_range(b, e, 0, step * (s.length - 1) + 1);
  if (step > 1) {
    const int on_step = b.compute(
        OpKind::Eq, {b.index(IndexExpr::mod(e, step)), b.constant(Scalar(int64_t{0}), DType::I64)}, DType::Bool);
    inside = inside < 0 ? on_step : b.compute(OpKind::LogicalAnd, {inside, on_step}, DType::Bool);
  }
  if (inside < 0) return b.cast(value_at(b, src, sc), r);  // the slice is the whole dim
  const int x = b.cast(value_at(b, self, c), r);
  const int y = masked_value_at(b, src, sc, inside, r, Scalar(int64_t{0}));
  return b.compute(OpKind::Where, {inside, y, x}, r);
}

}  // namespace kiln::lowering
