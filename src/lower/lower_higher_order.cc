// Lowering of map (inlined into its readers) and scan (a scan kernel) with pointwise bodies
// (subgraph.h); cond and while_loop become control kernels (lower_control_flow.cc).
#include "lower/lower.h"
#include "lower/lowering.h"

#include <optional>
#include "lower/subgraph.h"
#include "ops/op_call.h"
#include "ops/type_rules.h"
#include "support/check.h"

namespace kiln::lowering {

Status Lowering::higher_order(const Node& n) {
  if (n.op() == OpKind::Cond) return cond(n);
  if (n.op() == OpKind::WhileLoop) return while_loop(n);
  KILN_CHECK(n.op() == OpKind::Map || n.op() == OpKind::Scan) << "no lowering for " << print_node(n);
  for (int i = 0; i < n.num_subgraphs(); ++i)
    if (Status s = check_pointwise_subgraph(n, i, options_.allowed_mutations, &lowers_as_pointwise); !s)
      return node_error(n, s.error().message());
  for (int r = 0; r < n.num_results(); ++r)
    if (!n.result(r)->type().shape.is_static())
      return node_error(n, "result " + std::to_string(r) + " has symbolic shape " + n.result(r)->type().to_string() +
                               "; only static shapes are lowered");
  const Graph& body = *n.subgraph(0);
  for (int i = 0; i < body.num_inputs(); ++i) body_of_[body.input(i)] = &n;
  for (const Node* x : body.nodes()) body_of_[x->result()] = &n;
  if (n.op() == OpKind::Scan) return scan_kernel(n);
  make_pending(n);
  for (int r = 0; r < n.num_results(); ++r)
    if (!options_.fuse || outputs_.count(n.result(r))) realize(n.result(r));
  return Status::ok();
}

int Lowering::emit_pending(BodyBuilder& b, const Node& n, const Value* v, const std::vector<IndexExpr>& c) {
  emitted_.insert(v);
  if (n.info().has(kRandom)) return emit_random(b, n, c);
  if (sources_.count(&n)) return emit_gather(b, n, c);
  if (n.op() != OpKind::Map) return lowers_as_remap(n) ? emit_remap(b, n, c) : emit_pointwise(b, n, c);
  const Graph& body = *n.subgraph(0);
  const Value* out = body.outputs()[static_cast<size_t>(v->index())];
  // The map's leading coordinate is the one its mapped operands' slices are taken at; the
  // previous one is restored after, for a map read while inlining another map's operand.
  const std::optional<IndexExpr> outer = body_index_.count(&n) ? std::optional(body_index_.at(&n)) : std::nullopt;
  body_index_[&n] = c.at(0);
  const std::vector<IndexExpr> rest(c.begin() + 1, c.end());
  const DType dt = v->type().dtype;
  const int x = b.cast(value_at(b, out, broadcast_coords(sizes_of(out), rest)), dt);
  if (outer)
    body_index_[&n] = *outer;
  else
    body_index_.erase(&n);
  return x;
}

int Lowering::body_value_at(BodyBuilder& b, const Node& n, const Value* v, const std::vector<IndexExpr>& coords) {
  if (!v->is_input()) return emit_pointwise(b, *v->producer(), coords);
  const int i = v->index();
  const Value* operand = n.operand(i).value;
  const OpCallBase call(n.op(), n.attrs());
  std::vector<IndexExpr> c = coords;
  if (n.op() == OpKind::Map) {
    if (i >= call.attr_int("num_mapped")) return value_at(b, operand, coords);
    c.insert(c.begin(), body_index_.at(&n));
    return value_at(b, operand, c);
  }
  if (i < call.attr_int("num_init")) {
    const Access& carry = access_.at(n.result(i));
    return b.load(carry.buffer, v->type().dtype, carry.map.substitute(coords));
  }
  const auto dim = wrap_dim(call.attr_int("dim"), static_cast<int>(coords.size()) + 1);
  c.insert(c.begin() + *dim, body_index_.at(&n));
  return value_at(b, operand, c);
}

Status Lowering::scan_kernel(const Node& n) {
  const OpCallBase call(n.op(), n.attrs());
  const int num_init = static_cast<int>(call.attr_int("num_init"));
  const Value* x0 = n.operand(num_init).value;
  const int dim = *wrap_dim(call.attr_int("dim"), static_cast<int>(sizes_of(x0).size()));
  const int64_t length = sizes_of(x0)[static_cast<size_t>(dim)];
  const Graph& body = *n.subgraph(0);
  if (body.outputs().empty()) return Status::ok();
  const std::vector<int64_t> slice = sizes_of(body.outputs()[0]);
  const int rank = static_cast<int>(slice.size());
  for (const Value* v : body.outputs())
    if (sizes_of(v) != slice)
      return node_error(n, "scan: combine_fn returns " + body.outputs()[0]->type().to_string() + " and " +
                               v->type().to_string() +
                               "; a scan kernel needs all its outputs (carries and "
                               "per-step outputs) in one shape");
  const std::vector<IndexExpr> c = loop_coords(slice);
  for (int j = 0; j < num_init; ++j) {
    const Value* init = n.operand(j).value;
    prepare(init, numel_of(slice));
    LoopKernel k = make_kernel(KernelKind::Pointwise);
    k.loops = slice;
    BodyBuilder b{k};
    const int x = value_at(b, init, c);
    const int out = result_buffer(n.result(j), slice);
    b.store(out, strided(buffer(out).strides, c), x);
    append(std::move(k));
  }
  for (int j = num_init; j < n.num_operands(); ++j) prepare(n.operand(j).value, numel_of(slice) * length);
  LoopKernel k = make_kernel(KernelKind::Scan);
  k.loops = slice;
  k.loops.push_back(length);
  const IndexExpr step = length == 1 ? IndexExpr() : IndexExpr::var(rank);
  body_index_[&n] = step;
  BodyBuilder b{k};
  std::vector<int> values;
  for (int r = 0; r < n.num_results(); ++r)
    values.push_back(b.cast(value_at(b, body.outputs()[static_cast<size_t>(r)], c), n.result(r)->type().dtype));
  body_index_.erase(&n);
  for (int r = 0; r < n.num_results(); ++r) {
    std::vector<IndexExpr> at = c;
    if (r >= num_init) {
      KILN_CHECK(dim <= rank) << "scan: per-step output of rank " << rank << " has no dim " << dim
                              << " (the type rule inserts it)";
      at.insert(at.begin() + dim, step);
    }
    const int out = r < num_init ? access_.at(n.result(r)).buffer : result_buffer(n.result(r), sizes_of(n.result(r)));
    b.store(out, strided(buffer(out).strides, at), values[static_cast<size_t>(r)]);
  }
  append(std::move(k));
  return Status::ok();
}

}  // namespace kiln::lowering

namespace kiln {

bool lowers_inline(const Node& n) { return lowering::Lowering::lowers_as_pointwise(n); }

}  // namespace kiln
