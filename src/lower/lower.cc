#include "lower/lower.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "ir/printer.h"
#include "lower/body_builder.h"
#include "lower/subgraph.h"
#include "lower/view_index.h"
#include "ops/reduce_dims.h"
#include "ops/type_rules.h"
#include "support/check.h"

namespace kiln {

namespace {

// How a graph value is read: element at coordinates (i0, i1, ...) is buffer[map].
struct Access {
  int buffer = -1;
  IndexExpr map;
  std::vector<int64_t> sizes;
};

IndexExpr strided(const std::vector<int64_t>& strides, const std::vector<IndexExpr>& coords, int64_t offset = 0) {
  IndexExpr e = IndexExpr::constant_of(offset);
  for (size_t k = 0; k < strides.size(); ++k) e = e.plus(coords[k].scaled(strides[k]));
  return e;
}

// The coordinates of a loop nest over `sizes`: i0, i1, ..., and 0 where the extent is 1 (so
// that equal accesses print equal whatever size-1 dims they pass through).
std::vector<IndexExpr> loop_coords(const std::vector<int64_t>& sizes) {
  std::vector<IndexExpr> c;
  for (size_t k = 0; k < sizes.size(); ++k) c.push_back(sizes[k] == 1 ? IndexExpr() : IndexExpr::var(static_cast<int>(k)));
  return c;
}

std::vector<IndexExpr> vars(int first, int count) {
  std::vector<IndexExpr> v;
  for (int k = 0; k < count; ++k) v.push_back(IndexExpr::var(first + k));
  return v;
}

bool is_unary_same(OpKind op) {
  switch (op) {
    case OpKind::Neg: case OpKind::Abs: case OpKind::Relu: case OpKind::Exp: case OpKind::Log: case OpKind::Sqrt:
    case OpKind::Rsqrt: case OpKind::Reciprocal: case OpKind::Sin: case OpKind::Cos: case OpKind::Tanh:
    case OpKind::Sigmoid:
      return true;
    default:
      return false;
  }
}

bool is_compare(OpKind op) {
  return op == OpKind::Eq || op == OpKind::Ne || op == OpKind::Lt || op == OpKind::Le || op == OpKind::Gt ||
         op == OpKind::Ge;
}

// Fusion by inlining: an elementwise node is not given a kernel when it is reached; it stays
// pending, and each consumer that reads it (a pointwise or reduction kernel) computes it in its
// own body at the coordinates it reads, recursively, with common subexpressions merged. A
// pending value gets a buffer of its own (is realized) when it is a graph output, when a view or
// an extern kernel reads it, or when inlining would recompute too much:
//  - it is read by several nodes and its inlined body has more than kMaxSharedInlineOps
//    pending nodes (each consumer kernel would recompute all of them), or
//  - a consumer reads it broadcast (runs more points than it has) and it has more than
//    kMaxBroadcastInlineOps pending nodes.
constexpr int kMaxSharedInlineOps = 8;
constexpr int kMaxBroadcastInlineOps = 1;

int64_t numel_of(const std::vector<int64_t>& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

std::vector<int64_t> sizes_of(const Value* v) { return v->type().shape.sizes(); }

// The coordinates at which an operand of sizes `sizes` is read by a result whose coordinates are
// `coords` (broadcasting: missing leading dims are dropped, size-1 dims read coordinate 0).
std::vector<IndexExpr> broadcast_coords(const std::vector<int64_t>& sizes, const std::vector<IndexExpr>& coords) {
  const size_t r = coords.size(), m = sizes.size();
  std::vector<IndexExpr> c(m);
  for (size_t j = 0; j < m; ++j)
    if (sizes[j] != 1) c[j] = coords[j + r - m];
  return c;
}

class Lowering {
 public:
  Lowering(const Graph& g, const LowerOptions& options) : g_(g), options_(options) {}

  Expected<LoopProgram> run() {
    p_.name = g_.name();
    for (int i = 0; i < g_.num_inputs(); ++i) {
      const Value* v = g_.input(i);
      if (!v->type().shape.is_static())
        return make_error("lower: input %", v->name(), " has symbolic shape ", v->type().to_string(),
                          "; only static shapes are lowered");
      const std::vector<int64_t> sizes = sizes_of(v);
      const int b = add_buffer(v->name(), BufferKind::Input, v->type().dtype, sizes);
      p_.inputs.push_back(b);
      access_[v] = Access{b, strided(contiguous_strides(sizes), vars(0, static_cast<int>(sizes.size()))), sizes};
    }
    int position = 0;
    for (const Node* n : g_.nodes()) {
      std::set<const Value*> read;
      for (const Operand& o : n->operands())
        if (o.is_value()) read.insert(o.value);
      for (const Value* v : read) {
        ++readers_[v];
        last_read_[v] = position;
      }
      position_[n] = position++;
    }
    for (const Value* v : g_.outputs()) {
      outputs_.insert(v);
      last_read_[v] = position;  // the output copies run after every node
    }
    p_.outputs.assign(g_.outputs().size(), -1);
    for (const Node* n : g_.nodes()) KILN_TRY(node(*n));
    for (size_t j = 0; j < g_.outputs().size(); ++j) {
      if (p_.outputs[j] >= 0) continue;
      const Value* v = g_.outputs()[j];
      realize(v);
      const Access& a = access_.at(v);
      p_.outputs[j] = add_buffer("out" + std::to_string(j), BufferKind::Output, v->type().dtype, a.sizes);
      copy_kernel(a, v->type().dtype, p_.outputs[j]);
    }
    if (options_.fuse) schedule_kernels(p_, options_.schedule);
    return std::move(p_);
  }

 private:
  int add_buffer(std::string name, BufferKind kind, DType dt, const std::vector<int64_t>& sizes) {
    std::string unique = name;
    for (int n = 1; p_.find_buffer(unique) >= 0; ++n) unique = name + "_" + std::to_string(n);
    p_.buffers.push_back(Buffer{unique, kind, dt, sizes, contiguous_strides(sizes)});
    return static_cast<int>(p_.buffers.size()) - 1;
  }

  // Kernels are built apart and appended when complete, so that producers realized while a
  // consumer is prepared come before it.
  static LoopKernel make_kernel(KernelKind kind) {
    LoopKernel k;
    k.kind = kind;
    return k;
  }
  void append(LoopKernel k) {
    k.name = "k" + std::to_string(p_.kernels.size());
    p_.kernels.push_back(std::move(k));
  }

  // The buffer a node result is written to: the graph output it is (first unclaimed), else a temporary.
  int result_buffer(const Value* v, const std::vector<int64_t>& sizes) {
    const int b = claim_buffer(v, sizes);
    access_[v] = Access{b, strided(contiguous_strides(sizes), vars(0, static_cast<int>(sizes.size()))), sizes};
    return b;
  }
  int claim_buffer(const Value* v, const std::vector<int64_t>& sizes) {
    for (size_t j = 0; j < g_.outputs().size(); ++j)
      if (g_.outputs()[j] == v && p_.outputs[j] < 0) {
        p_.outputs[j] = add_buffer("out" + std::to_string(j), BufferKind::Output, v->type().dtype, sizes);
        return p_.outputs[j];
      }
    return add_buffer("t" + std::to_string(temps_++), BufferKind::Temp, v->type().dtype, sizes);
  }

  void copy_kernel(const Access& a, DType dt, int out) {
    LoopKernel k = make_kernel(KernelKind::Pointwise);
    k.loops = a.sizes;
    BodyBuilder b{k};
    const std::vector<IndexExpr> c = loop_coords(a.sizes);
    const int v = b.load(a.buffer, dt, a.map.substitute(broadcast_coords(a.sizes, c)));
    b.store(out, strided(buffer(out).strides, c), v);
    append(std::move(k));
  }

  const Buffer& buffer(int b) const { return p_.buffers[static_cast<size_t>(b)]; }

  Diagnostic node_error(const Node& n, const std::string& why) const {
    return make_error("lower: ", why).with_loc(n.loc()).add_context("while lowering " + print_node(n));
  }

  Status node(const Node& n) {
    if (n.num_subgraphs() > 0 || n.info().has(kHigherOrder)) return higher_order(n);
    for (int r = 0; r < n.num_results(); ++r)
      if (!n.result(r)->type().shape.is_static())
        return node_error(n, "result " + std::to_string(r) + " has symbolic shape " + n.result(r)->type().to_string() +
                                 "; only static shapes are lowered");
    if (n.info().has(kView) && n.num_results() == 1 && n.operand(0).is_value()) {
      realize(n.operand(0).value);
      const Access& in = access_.at(n.operand(0).value);
      const std::vector<int64_t> out = sizes_of(n.result());
      if (std::optional<IndexExpr> m = view_map(n, in.sizes, in.map, out)) {
        access_[n.result()] = Access{in.buffer, std::move(*m), out};
        return Status::ok();
      }
    }
    if (n.op() == OpKind::Sum || n.op() == OpKind::Mean || n.op() == OpKind::Amax || n.op() == OpKind::Amin) {
      KILN_ASSIGN_OR_RETURN(bool done, reduction(n));
      if (done) return Status::ok();
    }
    if (n.op() == OpKind::CopyInplace && options_.fuse) {
      KILN_ASSIGN_OR_RETURN(bool done, write_back(n));
      if (done) return Status::ok();
    }
    if (n.op() == OpKind::Chunk || n.op() == OpKind::Split) return split_views(n);
    if (n.op() == OpKind::Cat) return cat(n);
    if (!n.info().has(kInplace) && n.num_results() == 1 && lowers_as_pointwise(n)) {
      pending_[n.result()] = &n;
      if (!options_.fuse || outputs_.count(n.result())) realize(n.result());
      return Status::ok();
    }
    return extern_kernel(n);
  }

  // ---- Pending (not yet stored) elementwise values ----

  // Whether a pending node reads its operands' values (creation ops like ones_like do not).
  static bool reads_operands(const Node& n) { return !n.info().has(kCreation); }

  // Distinct pending nodes the body of pending `v` inlines (a map counts its body's nodes),
  // counting stops past `cap`.
  int inline_cost(const Value* v, int cap) const {
    std::set<const Value*> seen;
    int cost = 0;
    std::vector<const Value*> work{v};
    while (!work.empty() && cost <= cap) {
      const Value* x = work.back();
      work.pop_back();
      auto it = pending_.find(x);
      if (it == pending_.end() || !seen.insert(x).second) continue;
      const Node& n = *it->second;
      cost += n.op() == OpKind::Map ? std::max<int>(1, static_cast<int>(n.subgraph(0)->num_nodes())) : 1;
      if (!reads_operands(n)) continue;
      for (const Operand& o : n.operands())
        if (o.is_value()) work.push_back(o.value);
    }
    return cost;
  }

  bool must_realize(const Value* v, int64_t points) const {
    if (points > numel_of(sizes_of(v)) && inline_cost(v, kMaxBroadcastInlineOps) > kMaxBroadcastInlineOps) return true;
    auto r = readers_.find(v);
    return r != readers_.end() && r->second > 1 && inline_cost(v, kMaxSharedInlineOps) > kMaxSharedInlineOps;
  }

  // Before a kernel of `points` points reads `v`: realizes what it must not recompute.
  void prepare(const Value* v, int64_t points) {
    auto it = pending_.find(v);
    if (it == pending_.end()) return;
    if (must_realize(v, points)) {
      realize(v);
      return;
    }
    if (!reads_operands(*it->second)) return;
    for (const Operand& o : it->second->operands())
      if (o.is_value()) prepare(o.value, points);
  }

  // Gives pending `v` a buffer and a kernel that computes it; nothing when it has one.
  void realize(const Value* v) {
    auto it = pending_.find(v);
    if (it == pending_.end()) return;
    const Node& n = *it->second;
    const std::vector<int64_t> sizes = sizes_of(v);
    for (const Operand& o : n.operands())
      if (o.is_value() && reads_operands(n)) prepare(o.value, numel_of(sizes));
    LoopKernel k = make_kernel(KernelKind::Pointwise);
    k.loops = sizes;
    BodyBuilder b{k};
    const std::vector<IndexExpr> c = loop_coords(sizes);
    const int x = emit_pending(b, n, v, c);
    pending_.erase(it);
    const int out = result_buffer(v, sizes);
    b.store(out, strided(buffer(out).strides, c), x);
    append(std::move(k));
  }

  // Value `v` at its coordinates `coords`: a load, or its pending body inlined.
  int value_at(BodyBuilder& b, const Value* v, const std::vector<IndexExpr>& coords) {
    if (auto it = pending_.find(v); it != pending_.end()) return emit_pending(b, *it->second, v, coords);
    if (auto it = body_of_.find(v); it != body_of_.end()) return body_value_at(b, *it->second, v, coords);
    const Access& a = access_.at(v);
    return b.load(a.buffer, v->type().dtype, a.map.substitute(coords));
  }

  // Operand i as a body value of dtype `dt` (a load or an inlined body, or a literal).
  int operand(BodyBuilder& b, const Node& n, int i, DType dt, const std::vector<IndexExpr>& coords) {
    const Operand& o = n.operand(i);
    if (!o.is_value()) return b.constant(o.literal, dt);
    return b.cast(value_at(b, o.value, broadcast_coords(sizes_of(o.value), coords)), dt);
  }

  // ---- Higher-order ops (subgraph.h) ----

  // map with a pointwise body_fn: no kernel; each result stays pending, and a reader computes
  // body_fn's body inlined at its coordinates (the mapped dim is the leading coordinate).
  // scan with a pointwise combine_fn: a scan kernel (scan_kernel). cond and while_loop are
  // refused; so is a body that is not pointwise.
  Status higher_order(const Node& n) {
    if (n.op() != OpKind::Map && n.op() != OpKind::Scan)
      return node_error(n, "control flow (cond, while_loop) is not lowered yet; of the higher-order ops only map and "
                           "scan with pointwise bodies are");
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
    for (int r = 0; r < n.num_results(); ++r) {
      pending_[n.result(r)] = &n;
      if (!options_.fuse || outputs_.count(n.result(r))) realize(n.result(r));
    }
    return Status::ok();
  }

  // Pending `v`, the result of `n` (an elementwise node or a map), at coordinates `c`.
  int emit_pending(BodyBuilder& b, const Node& n, const Value* v, const std::vector<IndexExpr>& c) {
    if (n.op() != OpKind::Map) return emit_pointwise(b, n, c);
    const Graph& body = *n.subgraph(0);
    const Value* out = body.outputs()[static_cast<size_t>(v->index())];
    // The map's leading coordinate is the one its mapped operands' slices are taken at; the
    // previous one is restored after, for a map read while inlining another map's operand.
    const std::optional<IndexExpr> outer = body_index_.count(&n) ? std::optional(body_index_.at(&n)) : std::nullopt;
    body_index_[&n] = c.at(0);
    const std::vector<IndexExpr> rest(c.begin() + 1, c.end());
    const DType dt = v->type().dtype;
    const int x = b.cast(value_at(b, out, broadcast_coords(sizes_of(out), rest)), dt);
    if (outer) body_index_[&n] = *outer;
    else body_index_.erase(&n);
    return x;
  }

  // A value of map or scan `n`'s body at its coordinates: a body node inlined, or a body
  // input: a map's extra operand as it is, a mapped or scanned operand at the current mapped
  // or scan coordinate, a scan's carry loaded from its buffer (the previous step's store).
  int body_value_at(BodyBuilder& b, const Node& n, const Value* v, const std::vector<IndexExpr>& coords) {
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

  // scan over `dim` with carries: the carries' buffers (the final-carry results) get the
  // initial values (a copy kernel each), then one scan kernel loops over the points of
  // combine_fn's outputs and, innermost and in order, over the scanned dim: it loads the
  // carries, computes the combine_fn body inlined (slices broadcast as its ops say), and stores
  // the new carries and the step's outputs. Lowered when all outputs (so all carries) have one
  // shape; each point then owns its carries.
  Status scan_kernel(const Node& n) {
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
                                 v->type().to_string() + "; a scan kernel needs all its outputs (carries and "
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
        KILN_CHECK(dim <= rank) << "scan: per-step output of rank " << rank << " has no dim " << dim << " (the type rule inserts it)";
        at.insert(at.begin() + dim, step);
      }
      const int out = r < num_init ? access_.at(n.result(r)).buffer : result_buffer(n.result(r), sizes_of(n.result(r)));
      b.store(out, strided(buffer(out).strides, at), values[static_cast<size_t>(r)]);
    }
    append(std::move(k));
    return Status::ok();
  }

  // Whether an elementwise node has simple scalar semantics here (else it is an extern kernel).
  static bool lowers_as_pointwise(const Node& n) {
    const OpKind op = n.op();
    const OpCallBase call(op, n.attrs());
    const DType r = n.result()->type().dtype;
    switch (op) {
      case OpKind::Ones: case OpKind::Zeros: case OpKind::Full: case OpKind::OnesLike: case OpKind::ZerosLike:
      case OpKind::FullLike: case OpKind::Arange:
        return true;
      case OpKind::Tril: case OpKind::Triu:
        return n.operand(0).is_value() && n.result()->type().shape.rank() >= 2;
      default:
        break;
    }
    if (!n.info().has(kElementwise)) return false;
    const bool supported = op == OpKind::Isinf || op == OpKind::Isnan ||
        is_unary_same(op) || is_compare(op) || op == OpKind::Add || op == OpKind::Sub || op == OpKind::Mul ||
        op == OpKind::Maximum || op == OpKind::Minimum || op == OpKind::Where || op == OpKind::MaskedFill ||
        op == OpKind::ToCopy || op == OpKind::LogicalAnd || op == OpKind::LogicalOr || op == OpKind::LogicalNot ||
        (op == OpKind::Div && !call.attr_opt_str("rounding_mode")) || (op == OpKind::Pow && is_floating(r));
    if (!supported) return false;
    for (const Operand& o : n.operands())
      if (!o.is_value() && o.literal.is_none()) return false;
    return !((op == OpKind::Add || op == OpKind::Sub) && call.attr_scalar("alpha").is_float() && !is_floating(r));
  }

  // The body of elementwise node `n` at result coordinates `c`; returns its value.
  int emit_pointwise(BodyBuilder& b, const Node& n, const std::vector<IndexExpr>& c) {
    const OpKind op = n.op();
    const OpCallBase call(op, n.attrs());
    const DType r = n.result()->type().dtype;
    switch (op) {
      case OpKind::Ones: case OpKind::OnesLike:
        return b.constant(Scalar(int64_t{1}), r);
      case OpKind::Zeros: case OpKind::ZerosLike:
        return b.constant(Scalar(int64_t{0}), r);
      case OpKind::Full: case OpKind::FullLike:
        return b.constant(call.attr_scalar("fill_value"), r);
      case OpKind::Arange: {
        // start + i * step, in int64 when everything is integral, else in double (as the kernel).
        const Scalar start = call.attr_scalar("start"), step = call.attr_scalar("step");
        const DType t = !is_floating(r) && !start.is_float() && !step.is_float() ? DType::I64 : DType::F64;
        const int i = b.cast(b.index(c.at(0)), t);
        const int v = b.compute(OpKind::Add, {b.constant(start, t), b.compute(OpKind::Mul, {i, b.constant(step, t)}, t)}, t);
        return b.cast(v, r);
      }
      case OpKind::Tril: case OpKind::Triu: {
        // Keeps x where col - row <= diagonal (tril) or >= diagonal (triu), else 0.
        const size_t rank = c.size();
        const int d = b.index(c[rank - 1].plus(c[rank - 2].scaled(-1)));
        const int keep = b.compute(op == OpKind::Tril ? OpKind::Le : OpKind::Ge,
                                   {d, b.constant(Scalar(call.attr_int("diagonal")), DType::I64)}, DType::Bool);
        return b.compute(OpKind::Where, {keep, operand(b, n, 0, r, c), b.constant(Scalar(int64_t{0}), r)}, r);
      }
      case OpKind::Isinf: case OpKind::Isnan: {
        const int x = operand(b, n, 0, n.operand(0).value->type().dtype, c);
        return b.compute(op, {x}, DType::Bool);
      }
      default:
        break;
    }
    if (is_unary_same(op)) return b.compute(op, {operand(b, n, 0, r, c)}, r);
    if (op == OpKind::ToCopy) return operand(b, n, 0, r, c);
    if (is_compare(op)) {
      std::vector<TypeOperand> types;
      for (const Operand& o : n.operands())
        types.push_back(o.is_value() ? TypeOperand{o.value->type(), Scalar()} : TypeOperand{std::nullopt, o.literal});
      const DType cd = result_type(types);
      return b.compute(op, {operand(b, n, 0, cd, c), operand(b, n, 1, cd, c)}, DType::Bool);
    }
    if (op == OpKind::LogicalNot) return b.compute(op, {operand(b, n, 0, DType::Bool, c)}, DType::Bool);
    if (op == OpKind::LogicalAnd || op == OpKind::LogicalOr)
      return b.compute(op, {operand(b, n, 0, DType::Bool, c), operand(b, n, 1, DType::Bool, c)}, DType::Bool);
    if (op == OpKind::Where) {
      const int cond = operand(b, n, 0, n.operand(0).value->type().dtype, c);
      return b.compute(op, {cond, operand(b, n, 1, r, c), operand(b, n, 2, r, c)}, r);
    }
    if (op == OpKind::MaskedFill) {
      const int self = operand(b, n, 0, r, c);
      const int mask = operand(b, n, 1, n.operand(1).value->type().dtype, c);
      return b.compute(OpKind::Where, {mask, operand(b, n, 2, r, c), self}, r);
    }
    const int x = operand(b, n, 0, r, c);
    int y = operand(b, n, 1, r, c);
    if (op == OpKind::Add || op == OpKind::Sub) {
      const Scalar alpha = call.attr_scalar("alpha");
      if (!(alpha == Scalar(int64_t{1}))) y = b.compute(OpKind::Mul, {y, b.constant(alpha, r)}, r);
    }
    return b.compute(op, {x, y}, r);
  }

  // sum, mean, amax, amin over their dims; false when the reference kernel must run it
  // (amax/amin over an empty dim, which is an error there).
  Expected<bool> reduction(const Node& n) {
    if (!n.operand(0).is_value()) return false;
    const Value* input = n.operand(0).value;
    const std::vector<int64_t> in_sizes = sizes_of(input);
    const OpCallBase call(n.op(), n.attrs());
    const int rank = static_cast<int>(in_sizes.size());
    Expected<std::vector<bool>> red = reduced_dims(call, rank);
    if (!red) return node_error(n, red.error().message());
    const bool keepdim = call.attr_bool("keepdim");
    const DType r = n.result()->type().dtype;
    std::vector<int> kept, reduced;
    int64_t count = 1;
    for (int d = 0; d < rank; ++d) {
      if ((*red)[static_cast<size_t>(d)]) {
        reduced.push_back(d);
        count *= in_sizes[static_cast<size_t>(d)];
      } else {
        kept.push_back(d);
      }
    }
    const bool minmax = n.op() == OpKind::Amax || n.op() == OpKind::Amin;
    if (minmax && count == 0) return false;
    prepare(input, numel_of(in_sizes));
    LoopKernel k = make_kernel(reduced.empty() ? KernelKind::Pointwise : KernelKind::Reduction);
    // Loop variables: kept dims first (outer), then reduced dims (inner).
    std::vector<IndexExpr> in_coords(static_cast<size_t>(rank));
    for (size_t j = 0; j < kept.size(); ++j) {
      k.loops.push_back(in_sizes[static_cast<size_t>(kept[j])]);
      if (in_sizes[static_cast<size_t>(kept[j])] != 1) in_coords[static_cast<size_t>(kept[j])] = IndexExpr::var(static_cast<int>(j));
    }
    for (size_t j = 0; j < reduced.size(); ++j) {
      k.loops.push_back(in_sizes[static_cast<size_t>(reduced[j])]);
      if (in_sizes[static_cast<size_t>(reduced[j])] != 1)
        in_coords[static_cast<size_t>(reduced[j])] = IndexExpr::var(static_cast<int>(kept.size() + j));
    }
    k.num_reduce_loops = static_cast<int>(reduced.size());
    std::vector<IndexExpr> out_coords;
    for (int d = 0; d < rank; ++d) {
      if (!(*red)[static_cast<size_t>(d)]) out_coords.push_back(in_coords[static_cast<size_t>(d)]);
      else if (keepdim) out_coords.push_back(IndexExpr());
    }
    BodyBuilder b{k};
    const int x = b.cast(value_at(b, input, in_coords), r);
    int v = x;
    if (!reduced.empty()) {
      BodyOp rop;
      rop.kind = BodyOp::Kind::Reduce;
      rop.reduce = n.op() == OpKind::Amax ? ReduceKind::Max : n.op() == OpKind::Amin ? ReduceKind::Min : ReduceKind::Sum;
      rop.args = {x};
      rop.dtype = r;
      v = b.add(std::move(rop));
      k.reduce_op = v;
      if (n.op() == OpKind::Mean) v = b.compute(OpKind::Div, {v, b.constant(Scalar(count), r)}, r);
    }
    const int out = result_buffer(n.result(), sizes_of(n.result()));
    b.store(out, strided(buffer(out).strides, out_coords), v);
    append(std::move(k));
    return true;
  }

  // chunk and split: each result is a slice of the input along `dim`, read through its index.
  Status split_views(const Node& n) {
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

  // cat: one kernel per input, each storing its input into its slice of the result.
  Status cat(const Node& n) {
    const std::vector<int64_t> sizes = sizes_of(n.result());
    const int rank = static_cast<int>(sizes.size());
    int64_t dim = OpCallBase(n.op(), n.attrs()).attr_int("dim");
    if (dim < 0) dim += rank;
    const DType r = n.result()->type().dtype;
    std::vector<const Value*> parts;
    for (const Operand& o : n.operands()) {
      if (!o.is_value()) return extern_kernel(n);
      if (static_cast<int>(sizes_of(o.value).size()) != rank) return extern_kernel(n);  // legacy empty 1-d inputs
      parts.push_back(o.value);
    }
    for (const Value* v : parts) prepare(v, numel_of(sizes_of(v)));
    const int out = result_buffer(n.result(), sizes);
    int64_t start = 0;
    for (const Value* v : parts) {
      const std::vector<int64_t> in_sizes = sizes_of(v);
      LoopKernel k = make_kernel(KernelKind::Pointwise);
      k.loops = in_sizes;
      BodyBuilder b{k};
      const std::vector<IndexExpr> c = loop_coords(in_sizes);
      const int x = b.cast(value_at(b, v, c), r);
      std::vector<IndexExpr> oc = c;
      oc[static_cast<size_t>(dim)] = oc[static_cast<size_t>(dim)].plus(IndexExpr::constant_of(start));
      b.store(out, strided(buffer(out).strides, oc), x);
      append(std::move(k));
      start += in_sizes[static_cast<size_t>(dim)];
    }
    return Status::ok();
  }

  // A buffer operand for an extern kernel: the value's own layout when it is strided, else a copy.
  ExternOperand extern_operand(const Value* v) {
    realize(v);
    const Access& a = access_.at(v);
    ExternOperand o;
    if (a.map.is_affine()) {
      o.buffer = a.buffer;
      o.sizes = a.sizes;
      for (size_t k = 0; k < a.sizes.size(); ++k) o.strides.push_back(a.map.coeff_of(static_cast<int>(k)));
      o.offset = a.map.constant;
      return o;
    }
    const int t = add_buffer("t" + std::to_string(temps_++), BufferKind::Temp, v->type().dtype, a.sizes);
    copy_kernel(a, v->type().dtype, t);
    o.buffer = t;
    o.sizes = a.sizes;
    o.strides = buffer(t).strides;
    return o;
  }

  // ---- In-place writes (copy_, in-place ops) ----

  // Before a kernel writes buffer `buf` in place: pending values that read `buf` and that a
  // later node reads get their buffers now, so that they hold what they read before the write
  // (the graph runs in order: readers before an in-place op see the old values, readers after
  // it the new ones).
  void realize_readers_before_write(int buf, const Node& writer) {
    const int here = position_.at(&writer);
    std::vector<const Value*> stale;
    for (const auto& [v, node] : pending_)
      if (last_read_.count(v) && last_read_.at(v) > here && pending_reads(v, buf)) stale.push_back(v);
    for (const Value* v : stale) realize(v);
  }

  // copy_(dst, src) where dst is a whole buffer (a program input: functionalization's
  // write-back of a mutated input; or a temporary): src is computed straight into dst's buffer,
  // with no temporary and no copy kernel; for an input, the caller's tensor is updated as the
  // graph's copy_ updates it (loop_ir.h). copy_'s result is dst's buffer. When the kernel would
  // read dst at other points than the one it writes (a transposed src), or dst is a view, it
  // returns false and copy_ stays an extern kernel.
  Expected<bool> write_back(const Node& n) {
    if (!n.operand(0).is_value() || !n.operand(1).is_value()) return false;
    const Value* dst = n.operand(0).value;
    realize(dst);
    const Access& a = access_.at(dst);
    const std::vector<int64_t> sizes = sizes_of(dst);
    const std::vector<IndexExpr> c = loop_coords(sizes);
    const Buffer& target = buffer(a.buffer);
    const IndexExpr at = strided(target.strides, c);
    if (target.sizes != sizes || !(a.map.substitute(c) == at)) return false;
    realize_readers_before_write(a.buffer, n);
    prepare(n.operand(1).value, numel_of(sizes));
    LoopKernel k = make_kernel(KernelKind::Pointwise);
    k.loops = sizes;
    BodyBuilder b{k};
    const int x = operand(b, n, 1, dst->type().dtype, c);
    for (const BodyOp& op : k.body)
      if (op.kind == BodyOp::Kind::Load && op.buffer == a.buffer && !(op.index == at)) return false;
    b.store(a.buffer, at, x);
    access_[n.result()] = a;
    append(std::move(k));
    return true;
  }

  // Whether pending `v`'s inlined body loads from buffer `buf`.
  bool pending_reads(const Value* v, int buf) const {
    std::set<const Value*> seen;
    std::vector<const Value*> work{v};
    while (!work.empty()) {
      const Value* y = work.back();
      work.pop_back();
      auto it = pending_.find(y);
      if (it == pending_.end()) {
        auto a = access_.find(y);
        if (a != access_.end() && a->second.buffer == buf) return true;
        continue;
      }
      if (!seen.insert(y).second || !reads_operands(*it->second)) continue;
      for (const Operand& o : it->second->operands())
        if (o.is_value()) work.push_back(o.value);
    }
    return false;
  }

  Status extern_kernel(const Node& n) {
    if (n.info().has(kInplace) && n.operand(0).is_value()) {
      realize(n.operand(0).value);
      realize_readers_before_write(access_.at(n.operand(0).value).buffer, n);
    }
    std::vector<ExternOperand> ops;
    for (const Operand& o : n.operands()) {
      if (o.is_value()) {
        ops.push_back(extern_operand(o.value));
      } else {
        ExternOperand e;
        e.literal = o.literal;
        ops.push_back(std::move(e));
      }
    }
    std::vector<int> results;
    for (int r = 0; r < n.num_results(); ++r) {
      const Value* v = n.result(r);
      results.push_back(result_buffer(v, sizes_of(v)));
    }
    LoopKernel k = make_kernel(KernelKind::Extern);
    k.op = n.op();
    k.attrs = n.attrs();
    k.operands = std::move(ops);
    k.results = std::move(results);
    append(std::move(k));
    return Status::ok();
  }

  const Graph& g_;
  const LowerOptions& options_;
  LoopProgram p_;
  std::map<const Value*, Access> access_;       // values held in buffers (or views of them)
  std::map<const Value*, const Node*> pending_;  // elementwise values not stored yet
  std::map<const Value*, const Node*> body_of_;  // values of inlined map and scan bodies -> their op
  std::map<const Node*, IndexExpr> body_index_;  // while a body is inlined: the mapped or scan coordinate
  std::map<const Value*, int> readers_;          // nodes that read each value
  std::map<const Node*, int> position_;          // each node's place in graph order
  std::map<const Value*, int> last_read_;        // the last position reading each value (outputs: past the end)
  std::set<const Value*> outputs_;
  int temps_ = 0;
};

}  // namespace

Expected<LoopProgram> lower_graph(const Graph& g, const LowerOptions& options) { return Lowering(g, options).run(); }

}  // namespace kiln
