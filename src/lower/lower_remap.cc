// Lowering of the ops whose element at coordinates c is an element of an operand at
// coordinates computed from c ("remaps"): flip (size-1-c), roll (mod), repeat (mod), clone and
// contiguous (c itself), select_scatter (src where c is on the selected index, else self).
// They stay pending like elementwise values: a reader computes them inlined at the
// coordinates it reads, so they make no kernel of their own unless realized.
#include <algorithm>
#include <optional>
#include <vector>

#include "lower/lowering.h"
#include "ops/op_call.h"
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
    case OpKind::Repeat:
      return true;
    case OpKind::Flip:
      return distinct_dims(call.attr_ints("dims"), rank).has_value();
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
    case OpKind::SelectScatter: {
      const Value* src = tensor_operand(n, 1);
      std::optional<int> d = wrap_dim(call.attr_int("dim"), rank);
      if (!src || rank == 0 || !d) return false;
      std::vector<int64_t> slice = sizes_of(self);
      const int64_t size = slice[static_cast<size_t>(*d)], index = call.attr_int("index");
      slice.erase(slice.begin() + *d);
      return index >= -size && index < size && sizes_of(src) == slice;
    }
    default:
      return false;
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
    case OpKind::Contiguous:
      break;
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
    default:
      KILN_UNREACHABLE("emit_remap of an op lowers_as_remap refuses");
  }
  return b.cast(value_at(b, self, at), r);
}

}  // namespace kiln::lowering
