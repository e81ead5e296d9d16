// Lowering of the indexing ops that store through index tensors: scatter, scatter_add,
// index_put (with and without accumulate), index_add, and as_strided_scatter (through a
// strided geometry). Each is a copy of the destination (self, inlined) into the result's
// buffer, then a kernel over the points of the index (or src) that stores there through the
// checked indices, loading the element first where the op accumulates. Its points run in order
// (as the reference kernel's, so repeated indices accumulate in the same order and the last
// write wins), unless the op promises unique_indices: then its store is `unique`, and code
// generation may run it in parallel. index_put_ is the same store kernel into self's own
// buffer, with no copy, where that is the reference kernel's result.
#include <algorithm>
#include <vector>

#include "lower/lowering.h"
#include "ops/op_call.h"

namespace kiln::lowering {

namespace {

// Whether index.size(k) <= other.size(k) for every k (but `skip`), as the reference's
// check_index_fits: ranks equal, a 0-d operand read as [1].
bool index_fits(std::vector<int64_t> index, std::vector<int64_t> other, int skip) {
  if (index.empty()) index = {1};
  if (other.empty()) other = {1};
  if (index.size() != other.size()) return false;
  for (size_t k = 0; k < index.size(); ++k)
    if (static_cast<int>(k) != skip && index[k] > other[k]) return false;
  return true;
}

// Whether `values` of `sizes` broadcasts to `to` (never adding elements to `to`).
bool broadcasts_to(const std::vector<int64_t>& sizes, const std::vector<int64_t>& to) {
  if (sizes.size() > to.size()) return false;
  for (size_t k = 0; k < sizes.size(); ++k) {
    const int64_t s = sizes[sizes.size() - 1 - k], t = to[to.size() - 1 - k];
    if (s != t && s != 1) return false;
  }
  return true;
}

const Value* value_operand(const Node& n, int i) {
  return i < n.num_operands() && n.operand(i).is_value() ? n.operand(i).value : nullptr;
}

// index_put's and index_put_'s operands as its reference kernel accepts them: values of self's
// dtype broadcasting to the indexing result, index tensors of an index dtype that broadcast
// together (index_put's shape rule does not check it).
bool index_put_lowers(const Node& n) {
  const Value* self = n.operand(0).value;
  const std::vector<int64_t> ss = sizes_of(self);
  const int rank = static_cast<int>(ss.size());
  const DType dt = self->type().dtype;
  const Value* values = value_operand(n, n.num_operands() - 1);
  const std::vector<const Value*> idx = advanced_indices(n, n.num_operands() - 1);
  if (!values || values->type().dtype != dt || static_cast<int>(idx.size()) > rank) return false;
  // The index tensors must broadcast together (index_put's shape rule does not check it).
  std::vector<int64_t> bcast;
  for (const Value* v : idx) {
    if (!v) continue;
    if (!is_index_dtype(v->type().dtype)) return false;
    const std::vector<int64_t> s = sizes_of(v);
    if (s.size() > bcast.size()) bcast.insert(bcast.begin(), s.size() - bcast.size(), 1);
    for (size_t k = 0; k < s.size(); ++k) {
      int64_t& b = bcast[bcast.size() - s.size() + k];
      if (b != 1 && s[k] != 1 && s[k] != b) return false;
      if (b == 1) b = s[k];
    }
  }
  return broadcasts_to(sizes_of(values), advanced_index_sizes(ss, idx));
}

bool is_index_put(const Node& n) { return n.op() == OpKind::IndexPut || n.op() == OpKind::IndexPutInplace; }

}  // namespace

bool Lowering::lowers_as_scatter(const Node& n) {
  if (n.num_results() != 1 || !value_operand(n, 0)) return false;
  const OpCallBase call(n.op(), n.attrs());
  const Value* self = n.operand(0).value;
  const std::vector<int64_t> ss = sizes_of(self);
  const int rank = static_cast<int>(ss.size());
  const DType dt = self->type().dtype;
  switch (n.op()) {
    case OpKind::Scatter:
    case OpKind::ScatterAdd: {
      const Value* index = value_operand(n, 1);
      const std::optional<int> d = wrap_dim(call.attr_int("dim"), std::max(rank, 1));
      if (!index || !d || !is_index_dtype(index->type().dtype) || !index_fits(sizes_of(index), ss, *d)) return false;
      const Value* src = value_operand(n, 2);
      if (!src) return n.op() == OpKind::Scatter && !n.operand(2).literal.is_none();
      // src is read at the index's coordinates (a 0-d one at 0).
      return src->type().dtype == dt && index_fits(sizes_of(index), sizes_of(src), -1);
    }
    case OpKind::IndexPut: return index_put_lowers(n);
    case OpKind::IndexAdd: {
      const Value *index = value_operand(n, 1), *source = value_operand(n, 2);
      const std::optional<int> d = wrap_dim(call.attr_int("dim"), rank);
      if (!d || !index || !source || !is_index_dtype(index->type().dtype) || sizes_of(index).size() > 1 ||
          source->type().dtype != dt)
        return false;
      // A 0-d self takes one index and a 0-d source.
      if (rank == 0) return numel_of(sizes_of(index)) == 1 && sizes_of(source).empty();
      std::vector<int64_t> want = ss;
      want[static_cast<size_t>(*d)] = numel_of(sizes_of(index));
      return sizes_of(source) == want;
    }
    case OpKind::AsStridedScatter:
      return value_operand(n, 1) != nullptr;  // the shape rule checked the geometry and src's shape
    default: return false;
  }
}

int Lowering::copy_destination(const Node& n) {
  const Value* self = n.operand(0).value;
  const std::vector<int64_t> ss = sizes_of(self);
  prepare(self, numel_of(ss));
  const int out = result_buffer(n.result(), ss);
  LoopKernel k = make_kernel(KernelKind::Pointwise);
  k.loops = ss;
  BodyBuilder b{k};
  const std::vector<IndexExpr> c = loop_coords(ss);
  b.store(out, strided(buffer(out).strides, c), b.cast(value_at(b, self, c), n.result()->type().dtype));
  append(std::move(k));
  return out;
}

int Lowering::scatter_element(BodyBuilder& b, const Node& n, const std::vector<IndexExpr>& c,
                              std::vector<IndexExpr>& at, std::vector<std::pair<int, int>>& picked) {
  const OpCallBase call(n.op(), n.attrs());
  const std::vector<int64_t> ss = sizes_of(n.operand(0).value);
  const int rank = static_cast<int>(ss.size());
  const DType r = n.result()->type().dtype;
  if (is_index_put(n)) {  // out[index tensors at c] = values at c (broadcast)
    const Value* values = n.operand(n.num_operands() - 1).value;
    advanced_coords(b, n, ss, advanced_indices(n, n.num_operands() - 1), c, at, picked);
    return b.cast(value_at(b, values, broadcast_coords(sizes_of(values), c)), r);
  }
  const Value* index = n.operand(1).value;
  if (n.op() == OpKind::IndexAdd) {  // out[c with c[dim] = index[c[dim]]] = alpha * source[c]
    const int d = *wrap_dim(call.attr_int("dim"), rank);
    // A 0-d self is its one element, at index 0.
    const IndexExpr pick = rank == 0 ? IndexExpr() : c[static_cast<size_t>(d)];
    const std::vector<IndexExpr> ic = sizes_of(index).empty() ? std::vector<IndexExpr>{} : std::vector<IndexExpr>{pick};
    at = c;
    const int picked_index = checked_index(b, n, index, ic, rank == 0 ? 1 : ss[static_cast<size_t>(d)], true, d);
    if (rank > 0) picked.emplace_back(d, picked_index);
    const int v = b.cast(value_at(b, n.operand(2).value, c), r);
    const Scalar alpha = call.attr_scalar("alpha");
    return alpha == Scalar(int64_t{1}) ? v : b.compute(OpKind::Mul, {b.constant(alpha, r), v}, r);
  }
  // scatter, scatter_add: out[c with c[dim] = index[c]] = src[c]; a 0-d index or src reads as
  // [1], as the reference kernel reads it (a 0-d index into a 1-d self stores at [index]).
  const int d = *wrap_dim(call.attr_int("dim"), std::max(rank, 1));
  const std::vector<int64_t> si = sizes_of(index);
  // A 0-d self is its one element, whatever the index's points.
  at = si.empty() || rank == 0 ? std::vector<IndexExpr>(ss.size()) : c;
  if (rank > 0)
    picked.emplace_back(d, checked_index(b, n, index, c, ss[static_cast<size_t>(d)], false, d));
  else
    checked_index(b, n, index, c, 1, false, d);
  const Operand& src = n.operand(2);
  if (!src.is_value()) return b.constant(src.literal, r);
  const size_t sr = sizes_of(src.value).size();
  const std::vector<IndexExpr> sc = sr == 0 ? std::vector<IndexExpr>{} : si.empty() ? std::vector<IndexExpr>(sr) : c;
  return b.cast(value_at(b, src.value, sc), r);
}

Status Lowering::scatter(const Node& n) {
  const int out = copy_destination(n);
  append(store_kernel(n, out));
  return Status::ok();
}

Expected<bool> Lowering::index_put_in_place(const Node& n) {
  if (!index_put_lowers(n)) return false;
  const Value* dst = n.operand(0).value;
  realize(dst);
  const Access& a = access_.at(dst);
  const std::vector<int64_t> sizes = sizes_of(dst);
  const Buffer& buf = buffer(a.buffer);
  const std::vector<IndexExpr> c = loop_coords(sizes);
  if (buf.sizes != sizes || !(a.map.substitute(c).simplified(sizes) == strided(buf.strides, c))) return false;
  // Values and indices computed from self would be read after earlier points stored (two
  // points of one element, values taken from self): they keep it extern.
  for (int i = 1; i < n.num_operands(); ++i)
    if (n.operand(i).is_value() && pending_reads(n.operand(i).value, a.buffer)) return false;
  realize_readers_before_write(a.buffer, n);
  LoopKernel k = store_kernel(n, a.buffer);
  // The reference kernel reads values and indices before it writes; the kernel's points write
  // as they go, so it may read self's buffer only at the element it stores (accumulate).
  const BodyOp* store = nullptr;
  for (const BodyOp& op : k.body)
    if (op.kind == BodyOp::Kind::Store) store = &op;
  for (const BodyOp& op : k.body) {
    if (op.kind != BodyOp::Kind::Load || op.buffer != a.buffer) continue;
    bool same = store && op.index == store->index && op.indirect == store->indirect && !op.masked;
    for (size_t j = 0; same && j < op.indirect.size(); ++j) same = op.indirect_arg(j) == store->indirect_arg(j);
    if (!same) return false;
  }
  access_[n.result()] = a;
  append(std::move(k));
  return true;
}

LoopKernel Lowering::store_kernel(const Node& n, int out) {
  const OpCallBase call(n.op(), n.attrs());
  const std::vector<int64_t> ss = sizes_of(n.operand(0).value);
  const DType r = n.result()->type().dtype;
  // The points of the stores: the index's, the indexing result's, source's or src's.
  std::vector<int64_t> points;
  if (n.op() == OpKind::Scatter || n.op() == OpKind::ScatterAdd)
    points = sizes_of(n.operand(1).value);
  else if (is_index_put(n))
    points = advanced_index_sizes(ss, advanced_indices(n, n.num_operands() - 1));
  else if (n.op() == OpKind::IndexAdd)
    points = sizes_of(n.operand(2).value);
  else
    points = sizes_of(n.operand(1).value);  // as_strided_scatter
  const bool accumulate =
      n.op() == OpKind::ScatterAdd || n.op() == OpKind::IndexAdd || (is_index_put(n) && call.attr_bool("accumulate"));
  const bool unique = (n.op() == OpKind::IndexPut || n.op() == OpKind::IndexAdd) && call.attr_bool("unique_indices");
  // index_add checks every index before it writes, even where source has no element.
  if (n.op() == OpKind::IndexAdd && numel_of(points) == 0) {
    const int d = *wrap_dim(call.attr_int("dim"), static_cast<int>(ss.size()));
    checks_kernel(n, n.operand(1).value, ss[static_cast<size_t>(d)], true, d);
  }
  for (int i = 1; i < n.num_operands(); ++i)
    if (n.operand(i).is_value()) prepare(n.operand(i).value, numel_of(points));
  LoopKernel k = make_kernel(KernelKind::Pointwise);
  k.loops = points;
  BodyBuilder b{k};
  const std::vector<IndexExpr> c = loop_coords(points);
  if (n.op() == OpKind::AsStridedScatter) {  // out's storage at offset + sum(stride * c) = src[c]
    const int v = b.cast(value_at(b, n.operand(1).value, c), r);
    b.store(out, strided(call.attr_ints("stride"), c, call.attr_opt_int("storage_offset").value_or(0)), v);
    return k;
  }
  std::vector<IndexExpr> at;                // out's coordinates
  std::vector<std::pair<int, int>> picked;  // its indexed dims: (dim, checked value)
  int value = scatter_element(b, n, c, at, picked);
  // The element: out's map at `at`, the indexed dims as indirect terms of their strides. Into
  // a dim of size 0 nothing is stored: every check fails first.
  const std::vector<int64_t>& os = buffer(out).strides;
  BodyBuilder::IndirectTerms terms;
  bool empty = false;
  for (const auto& [d, v] : picked) {
    const auto dd = static_cast<size_t>(d);
    at[dd] = IndexExpr();
    empty = empty || ss[dd] == 0;
    if (ss[dd] > 1) terms.emplace_back(v, os[dd]);
  }
  if (!empty) {
    const IndexExpr element = strided(os, at);
    if (accumulate) value = b.compute(OpKind::Add, {b.load(out, r, element, Scalar(int64_t{0}), terms), value}, r);
    b.store(out, element, value, terms, unique);
  }
  return k;
}

}  // namespace kiln::lowering
