// Lowering of the indexing ops that read through index tensors: gather, index_select,
// embedding and index (advanced indexing). An element of the index tensor, loaded (or computed
// inlined) in the body, is checked by an `indirect` op (wrapped where the reference kernel wraps
// negative indices, an error where it errors) and becomes a term of the source's load index.
// The result stays pending like an elementwise value (inlined into its readers); the source is
// read from a buffer whose map is affine in the indexed dims (realized, or copied, first).
#include <algorithm>
#include <optional>
#include <vector>

#include "ir/printer.h"
#include "lower/lowering.h"
#include "ops/op_call.h"

namespace kiln::lowering {

bool is_index_dtype(DType t) { return t == DType::I64 || t == DType::I32; }

std::vector<const Value*> advanced_indices(const Node& n, int end) {
  std::vector<const Value*> out;
  for (int i = 1; i < end; ++i) out.push_back(n.operand(i).is_value() ? n.operand(i).value : nullptr);
  return out;
}

std::vector<int64_t> advanced_index_sizes(const std::vector<int64_t>& self, const std::vector<const Value*>& idx) {
  std::vector<int64_t> bcast;
  std::vector<size_t> indexed;
  for (size_t i = 0; i < idx.size(); ++i) {
    if (!idx[i]) continue;
    indexed.push_back(i);
    const std::vector<int64_t> s = sizes_of(idx[i]);
    std::vector<int64_t> out(std::max(bcast.size(), s.size()), 1);
    for (size_t k = 0; k < out.size(); ++k) {
      const size_t back = out.size() - 1 - k;
      const int64_t a = back < bcast.size() ? bcast[bcast.size() - 1 - back] : 1;
      const int64_t b = back < s.size() ? s[s.size() - 1 - back] : 1;
      out[k] = a == 1 ? b : a;
    }
    bcast = std::move(out);
  }
  const bool adjacent = indexed.empty() || indexed.back() - indexed.front() + 1 == indexed.size();
  std::vector<int64_t> sizes = adjacent ? std::vector<int64_t>{} : bcast;
  for (size_t i = 0; i < self.size(); ++i) {
    if (adjacent && !indexed.empty() && i == indexed.front()) sizes.insert(sizes.end(), bcast.begin(), bcast.end());
    if (i >= idx.size() || !idx[i]) sizes.push_back(self[i]);
  }
  return sizes;
}

void Lowering::advanced_coords(BodyBuilder& b, const Node& n, const std::vector<int64_t>& self,
                               const std::vector<const Value*>& idx, const std::vector<IndexExpr>& c,
                               std::vector<IndexExpr>& coords, std::vector<std::pair<int, int>>& picked) {
  std::vector<int> indexed;
  size_t bcast_rank = 0;
  for (int i = 0; i < static_cast<int>(idx.size()); ++i)
    if (idx[static_cast<size_t>(i)]) {
      indexed.push_back(i);
      bcast_rank = std::max(bcast_rank, sizes_of(idx[static_cast<size_t>(i)]).size());
    }
  const bool adjacent = indexed.empty() || indexed.back() - indexed.front() + 1 == static_cast<int>(indexed.size());
  const size_t first = adjacent && !indexed.empty() ? static_cast<size_t>(indexed.front()) : 0;
  const std::vector<IndexExpr> bc(c.begin() + static_cast<std::ptrdiff_t>(first),
                                  c.begin() + static_cast<std::ptrdiff_t>(first + bcast_rank));
  coords.assign(self.size(), IndexExpr());
  size_t next = adjacent ? 0 : bcast_rank;  // the result position of the next dim not indexed
  for (size_t k = 0; k < self.size(); ++k) {
    if (adjacent && !indexed.empty() && k == first) next += bcast_rank;
    const Value* t = k < idx.size() ? idx[k] : nullptr;
    if (!t) {
      coords[k] = c[next++];
      continue;
    }
    const int i = static_cast<int>(k);
    picked.emplace_back(i, checked_index(b, n, t, broadcast_coords(sizes_of(t), bc), self[k], true, i));
  }
}

bool Lowering::lowers_as_gather(const Node& n) {
  if (n.num_results() != 1 || n.num_operands() < 1 || !n.operand(0).is_value()) return false;
  const OpCallBase call(n.op(), n.attrs());
  const int rank = static_cast<int>(sizes_of(n.operand(0).value).size());
  auto index_operand = [&](int i) {
    return i < n.num_operands() && n.operand(i).is_value() && is_index_dtype(n.operand(i).value->type().dtype);
  };
  switch (n.op()) {
    case OpKind::Gather: {
      // Self and index of one rank, or each at most 1-D (a 0-d one reads as [1]).
      const int index_rank = index_operand(1) ? static_cast<int>(sizes_of(n.operand(1).value).size()) : -1;
      if (index_rank < 0 || (index_rank != rank && std::max(index_rank, rank) > 1)) return false;
      return rank == 0 || wrap_dim(call.attr_int("dim"), rank).has_value();
    }
    case OpKind::IndexSelect:
      return index_operand(1) && sizes_of(n.operand(1).value).size() <= 1 &&
             (rank == 0 || wrap_dim(call.attr_int("dim"), rank).has_value());
    case OpKind::Embedding: return rank == 2 && index_operand(1);
    case OpKind::Index: {
      if (n.num_operands() - 1 > rank) return false;
      for (const Value* v : advanced_indices(n, n.num_operands()))
        if (v && !is_index_dtype(v->type().dtype)) return false;
      return true;
    }
    default: return false;
  }
}

Access Lowering::indexed_source(const Value* v, const std::vector<int>& dims) {
  realize(v);
  Access a = access_.at(v);
  bool affine = true;
  for (int d : dims) affine = affine && a.map.is_affine_in(d);
  if (affine) return a;
  const int t = add_buffer("t" + std::to_string(temps_++), BufferKind::Temp, v->type().dtype, a.sizes);
  copy_kernel(a, v->type().dtype, t);
  return Access{t, strided(buffer(t).strides, vars(0, static_cast<int>(a.sizes.size()))), a.sizes};
}

int Lowering::checked_index(BodyBuilder& b, const Node& n, const Value* index, const std::vector<IndexExpr>& at,
                            int64_t size, bool wrap, int dim) {
  // An empty index into an empty dim has no value to check: a read of it sits under a mask that
  // never holds, whose masked-off 0 would fail the check. Nothing is loaded through it either
  // (load_indexed reads no dim of size 0).
  if (size == 0 && numel_of(sizes_of(index)) == 0) return b.constant(Scalar(int64_t{0}), DType::I64);
  const int raw = b.cast(value_at(b, index, at), DType::I64);
  return b.indirect(raw, size, wrap, n.op(), dim, print_node(n));
}

void Lowering::checks_kernel(const Node& n, const Value* index, int64_t size, bool wrap, int dim) {
  const std::vector<int64_t> isz = sizes_of(index);
  if (numel_of(isz) == 0) return;
  prepare(index, numel_of(isz));
  LoopKernel k = make_kernel(KernelKind::Pointwise);
  k.loops = isz;
  BodyBuilder b{k};
  checked_index(b, n, index, loop_coords(isz), size, wrap, dim);
  append(std::move(k));
}

int Lowering::load_indexed(BodyBuilder& b, const Access& src, DType dt, std::vector<IndexExpr> coords,
                           const std::vector<std::pair<int, int>>& picked) {
  BodyBuilder::IndirectTerms terms;
  for (const auto& [d, v] : picked) {
    const auto k = static_cast<size_t>(d);
    // A dim of size 0 has no element to read: the check always fails first.
    if (src.sizes[k] == 0) return b.constant(Scalar(int64_t{0}), dt);
    coords[k] = IndexExpr();
    if (src.sizes[k] > 1) terms.emplace_back(v, src.map.coeff_of(d));
  }
  return b.load(src.buffer, dt, src.map.substitute(coords), Scalar(int64_t{0}), terms);
}

Status Lowering::gather(const Node& n) {
  const OpCallBase call(n.op(), n.attrs());
  const Value* self = n.operand(0).value;
  const int rank = static_cast<int>(sizes_of(self).size());
  std::vector<int> dims;
  const Value* index = n.num_operands() > 1 && n.operand(1).is_value() ? n.operand(1).value : nullptr;
  switch (n.op()) {
    case OpKind::Gather:
      if (rank > 0) dims = {*wrap_dim(call.attr_int("dim"), rank)};
      break;
    case OpKind::IndexSelect:
      if (rank > 0) dims = {*wrap_dim(call.attr_int("dim"), rank)};
      break;
    case OpKind::Embedding: dims = {0}; break;
    default: {  // index
      const std::vector<const Value*> idx = advanced_indices(n, n.num_operands());
      for (int i = 0; i < static_cast<int>(idx.size()); ++i)
        if (idx[static_cast<size_t>(i)]) dims.push_back(i);
      break;
    }
  }
  sources_[&n] = indexed_source(self, dims);
  // index_select and embedding check every index before they write anything, even when the
  // result has no element.
  const bool checks_all = n.op() == OpKind::IndexSelect || n.op() == OpKind::Embedding;
  if (checks_all && numel_of(sizes_of(n.result())) == 0)
    checks_kernel(n, index, dims.empty() ? 1 : sizes_of(self)[static_cast<size_t>(dims[0])], false,
                  dims.empty() ? 0 : dims[0]);
  make_pending(n);
  if (!options_.fuse || outputs_.count(n.result())) realize(n.result());
  return Status::ok();
}

int Lowering::emit_gather(BodyBuilder& b, const Node& n, const std::vector<IndexExpr>& c) {
  const OpCallBase call(n.op(), n.attrs());
  const Access& src = sources_.at(&n);
  const DType r = n.result()->type().dtype;
  const int rank = static_cast<int>(src.sizes.size());
  switch (n.op()) {
    case OpKind::Gather: {
      // out[c] = self[c with c[dim] = index[c]]; a negative index is an error. A 0-d self is
      // its one element, at index 0; a 0-d index into a 1-d self reads self[index].
      const Value* index = n.operand(1).value;
      if (rank == 0) {
        checked_index(b, n, index, c, 1, false, 0);
        return b.load(src.buffer, r, src.map);
      }
      const int d = *wrap_dim(call.attr_int("dim"), rank);
      const int v = checked_index(b, n, index, c, src.sizes[static_cast<size_t>(d)], false, d);
      return load_indexed(b, src, r, c.empty() ? std::vector<IndexExpr>(1) : c, {{d, v}});
    }
    case OpKind::IndexSelect: {
      // out[c] = self[c with c[dim] = index[c[dim]]]; a 0-d self is its only element, index 0.
      const Value* index = n.operand(1).value;
      if (rank == 0) {
        checked_index(b, n, index, std::vector<IndexExpr>(sizes_of(index).size()), 1, false, 0);
        return b.load(src.buffer, r, src.map);
      }
      const int d = *wrap_dim(call.attr_int("dim"), rank);
      const std::vector<IndexExpr> at =
          sizes_of(index).empty() ? std::vector<IndexExpr>{} : std::vector<IndexExpr>{c[static_cast<size_t>(d)]};
      const int v = checked_index(b, n, index, at, src.sizes[static_cast<size_t>(d)], false, d);
      return load_indexed(b, src, r, c, {{d, v}});
    }
    case OpKind::Embedding: {
      // out[c..., j] = weight[indices[c...], j].
      const Value* index = n.operand(1).value;
      const std::vector<IndexExpr> at(c.begin(), c.end() - 1);
      const int v = checked_index(b, n, index, at, src.sizes[0], false, 0);
      return load_indexed(b, src, r, {IndexExpr(), c.back()}, {{0, v}});
    }
    default: break;
  }
  // index: negative indices wrap.
  std::vector<IndexExpr> coords;
  std::vector<std::pair<int, int>> picked;
  advanced_coords(b, n, src.sizes, advanced_indices(n, n.num_operands()), c, coords, picked);
  return load_indexed(b, src, r, coords, picked);
}

}  // namespace kiln::lowering
