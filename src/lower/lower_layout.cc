// Lowering of chunk and split (views of their input), as_strided (a view of its operand's
// buffer), and cat and stack (a kernel per input).
#include "lower/lowering.h"

#include "lower/view_index.h"
#include "ops/op_call.h"
#include "ops/strided_geometry.h"

namespace kiln::lowering {

Status Lowering::split_views(const Node& n) {
  const Value* in = n.operand(0).value;
  realize(in);
  const Access& a = access_.at(in);
  const int rank = static_cast<int>(a.sizes.size());
  int64_t dim = OpCallBase(n.op(), n.attrs()).attr_int("dim");
  if (dim < 0) dim += rank;
  int64_t start = 0;
  for (int r = 0; r < n.num_results(); ++r) {
    const std::vector<int64_t> sizes = sizes_of(n.result(r));
    std::vector<IndexExpr> coords = vars(0, rank);
    coords[static_cast<size_t>(dim)] = coords[static_cast<size_t>(dim)].plus(IndexExpr::constant_of(start));
    access_[n.result(r)] = Access{a.buffer, a.map.substitute(coords), sizes};
    start += sizes[static_cast<size_t>(dim)];
  }
  return Status::ok();
}

Status Lowering::as_strided(const Node& n) {
  const Value* in = n.operand(0).value;
  realize(in);
  Access a = access_.at(in);
  // as_strided addresses its operand's storage: the buffer an affine (strided) view reads. A
  // map that needs div/mod is no strided view (the interpreter's reshape copied): a copy is.
  a.map = a.map.simplified(a.sizes);
  if (!a.map.is_affine()) {
    const int t = add_buffer("t" + std::to_string(temps_++), BufferKind::Temp, in->type().dtype, a.sizes);
    copy_kernel(a, in->type().dtype, t);
    a = Access{t, strided(buffer(t).strides, vars(0, static_cast<int>(a.sizes.size()))), a.sizes};
  }
  const OpCallBase call(n.op(), n.attrs());
  const std::vector<int64_t> out = sizes_of(n.result());
  std::optional<IndexExpr> m = view_map(n, a.sizes, a.map, out);
  if (!m) return extern_kernel(n);
  const std::vector<int64_t>& size = call.attr_ints("size");
  const std::vector<int64_t>& stride = call.attr_ints("stride");
  const int64_t offset = call.attr_opt_int("storage_offset").value_or(a.map.constant);
  const int64_t need = strided_storage_extent(size, stride, offset), have = buffer(a.buffer).storage_size();
  if (need > have)
    return node_error(n, "as_strided: sizes " + ints_str(size) + ", strides " + ints_str(stride) +
                             " and storage offset " + std::to_string(offset) + " require a storage of " +
                             std::to_string(need) + " elements, but self's storage has " + std::to_string(have));
  access_[n.result()] = Access{a.buffer, std::move(*m), out};
  return Status::ok();
}

void Lowering::place_kernel(const Value* v, int out, int dim, int64_t at, bool new_dim) {
  const std::vector<int64_t> in_sizes = sizes_of(v);
  LoopKernel k = make_kernel(KernelKind::Pointwise);
  k.loops = in_sizes;
  BodyBuilder b{k};
  const std::vector<IndexExpr> c = loop_coords(in_sizes);
  const int x = b.cast(value_at(b, v, c), buffer(out).dtype);
  std::vector<IndexExpr> oc = c;
  const auto d = static_cast<size_t>(dim);
  if (new_dim)
    oc.insert(oc.begin() + dim, IndexExpr::constant_of(at));
  else
    oc[d] = oc[d].plus(IndexExpr::constant_of(at));
  b.store(out, strided(buffer(out).strides, oc), x);
  append(std::move(k));
}

Status Lowering::cat(const Node& n) {
  const std::vector<int64_t> sizes = sizes_of(n.result());
  const int rank = static_cast<int>(sizes.size());
  int64_t dim = OpCallBase(n.op(), n.attrs()).attr_int("dim");
  if (dim < 0) dim += rank;
  std::vector<const Value*> parts;
  for (const Operand& o : n.operands()) {
    if (!o.is_value()) return extern_kernel(n);
    // torch's legacy empty tensors (1-d of size 0) join any rank: they add nothing.
    if (sizes_of(o.value) == std::vector<int64_t>{0}) continue;
    if (static_cast<int>(sizes_of(o.value).size()) != rank) return extern_kernel(n);
    parts.push_back(o.value);
  }
  for (const Value* v : parts) prepare(v, numel_of(sizes_of(v)));
  const int out = result_buffer(n.result(), sizes);
  int64_t start = 0;
  for (const Value* v : parts) {
    place_kernel(v, out, static_cast<int>(dim), start, false);
    start += sizes_of(v)[static_cast<size_t>(dim)];
  }
  return Status::ok();
}

Status Lowering::stack(const Node& n) {
  const std::vector<int64_t> sizes = sizes_of(n.result());
  const int dim = *wrap_dim(OpCallBase(n.op(), n.attrs()).attr_int("dim"), static_cast<int>(sizes.size()));
  for (const Operand& o : n.operands()) prepare(o.value, numel_of(sizes_of(o.value)));
  const int out = result_buffer(n.result(), sizes);
  for (int i = 0; i < n.num_operands(); ++i) place_kernel(n.operand(i).value, out, dim, i, true);
  return Status::ok();
}

}  // namespace kiln::lowering
