// The driver of lowering (lowering.h): inputs and outputs, node dispatch to the op families,
// pending elementwise values and their inlining into consumers (fusion by inlining), and
// extern kernels.
#include "lower/lower.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "lower/interpreter_layout.h"
#include "lower/loop_control.h"
#include "lower/lowering.h"
#include "lower/view_index.h"
#include "support/check.h"

namespace kiln {
namespace lowering {

IndexExpr strided(const std::vector<int64_t>& strides, const std::vector<IndexExpr>& coords, int64_t offset) {
  KILN_CHECK(strides.size() == coords.size())
      << "strided: " << strides.size() << " strides for " << coords.size() << " coordinates";
  IndexExpr e = IndexExpr::constant_of(offset);
  for (size_t k = 0; k < strides.size(); ++k) e = e.plus(coords[k].scaled(strides[k]));
  return e;
}

std::vector<IndexExpr> loop_coords(const std::vector<int64_t>& sizes) {
  std::vector<IndexExpr> c;
  for (size_t k = 0; k < sizes.size(); ++k)
    c.push_back(sizes[k] == 1 ? IndexExpr() : IndexExpr::var(static_cast<int>(k)));
  return c;
}

std::vector<IndexExpr> vars(int first, int count) {
  std::vector<IndexExpr> v;
  for (int k = 0; k < count; ++k) v.push_back(IndexExpr::var(first + k));
  return v;
}

std::vector<IndexExpr> broadcast_coords(const std::vector<int64_t>& sizes, const std::vector<IndexExpr>& coords) {
  const size_t r = coords.size(), m = sizes.size();
  std::vector<IndexExpr> c(m);
  for (size_t j = 0; j < m; ++j)
    if (sizes[j] != 1) c[j] = coords[j + r - m];
  return c;
}

int64_t numel_of(const std::vector<int64_t>& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

namespace {

// Fusion by inlining: an elementwise node is not given a kernel when it is reached; it stays
// pending, and each consumer that reads it (a pointwise or reduction kernel) computes it in its
// own body at the coordinates it reads, recursively, with common subexpressions merged. A
// pending value gets a buffer of its own (is realized) when it is a graph output, when a view or
// an extern kernel reads it, or when inlining would recompute too much:
//  - it is read by several nodes and its inlined body has more than kMaxSharedInlineOps
//    pending nodes (each consumer kernel would recompute all of them), or
//  - a consumer reads it broadcast (runs more points than it has) and it has more than
//    kMaxBroadcastInlineOps pending nodes, or
//  - a chain of pending values would grow past kMaxInlineDepth nodes: inlining recurses
//    through the chain (a chain of 20,000 negs overflowed the stack), and a kernel body that
//    long only slows the C++ compiler down.
constexpr int kMaxSharedInlineOps = 8;
constexpr int kMaxBroadcastInlineOps = 1;
constexpr int kMaxInlineDepth = 256;

}  // namespace

Expected<LoopProgram> Lowering::run() {
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
  // A pending value no kernel computed (read only for its shape by full_like, passed to a map
  // body that ignores it) still checks its indices, as the reference kernel computing it does.
  std::vector<const Value*> unchecked;
  for (const auto& [v, node] : pending_)
    if (!emitted_.count(v) && checks_indices(v)) unchecked.push_back(v);
  for (const Value* v : unchecked) realize(v);
  if (options_.fuse)
    schedule_kernels(p_, options_.schedule);
  else
    number_kernels(p_);  // kernels nested in control kernels' regions get names of their own
  return std::move(p_);
}

int Lowering::add_buffer(std::string name, BufferKind kind, DType dt, const std::vector<int64_t>& sizes) {
  std::string unique = name;
  for (int n = 1; p_.find_buffer(unique) >= 0; ++n) unique = name + "_" + std::to_string(n);
  p_.buffers.push_back(Buffer{unique, kind, dt, sizes, contiguous_strides(sizes)});
  return static_cast<int>(p_.buffers.size()) - 1;
}

void Lowering::append(LoopKernel k) {
  k.name = "k" + std::to_string(p_.kernels.size());
  p_.kernels.push_back(std::move(k));
}

int Lowering::result_buffer(const Value* v, const std::vector<int64_t>& sizes) {
  const int b = claim_buffer(v, sizes);
  access_[v] = Access{b, strided(contiguous_strides(sizes), vars(0, static_cast<int>(sizes.size()))), sizes};
  return b;
}

int Lowering::claim_buffer(const Value* v, const std::vector<int64_t>& sizes) {
  for (size_t j = 0; j < g_.outputs().size(); ++j)
    if (g_.outputs()[j] == v && p_.outputs[j] < 0) {
      p_.outputs[j] = add_buffer("out" + std::to_string(j), BufferKind::Output, v->type().dtype, sizes);
      return p_.outputs[j];
    }
  return add_buffer("t" + std::to_string(temps_++), BufferKind::Temp, v->type().dtype, sizes);
}

void Lowering::copy_kernel(const Access& a, DType dt, int out) {
  LoopKernel k = make_kernel(KernelKind::Pointwise);
  k.loops = a.sizes;
  BodyBuilder b{k};
  const std::vector<IndexExpr> c = loop_coords(a.sizes);
  const int v = b.load(a.buffer, dt, a.map.substitute(broadcast_coords(a.sizes, c)));
  b.store(out, strided(buffer(out).strides, c), v);
  append(std::move(k));
}

Status Lowering::node(const Node& n) {
  if (lowered_ahead_.count(&n)) return Status::ok();
  if (n.num_subgraphs() > 0 || n.info().has(kHigherOrder)) return higher_order(n);
  for (int r = 0; r < n.num_results(); ++r)
    if (!n.result(r)->type().shape.is_static())
      return node_error(n, "result " + std::to_string(r) + " has symbolic shape " + n.result(r)->type().to_string() +
                               "; only static shapes are lowered");
  if (n.op() == OpKind::AsStrided && n.operand(0).is_value()) return as_strided(n);
  // Loads here do not depend on strides; the interpreter's view does (interpreter_layout.h).
  if (n.op() == OpKind::View)
    if (Status s = check_view_like_interpreter(n); !s) return node_error(n, s.error().message());
  if (n.info().has(kView) && n.num_results() == 1 && n.operand(0).is_value()) {
    realize(n.operand(0).value);
    const Access& in = access_.at(n.operand(0).value);
    const std::vector<int64_t> out = sizes_of(n.result());
    if (std::optional<IndexExpr> m = view_map(n, in.sizes, in.map, out)) {
      access_[n.result()] = Access{in.buffer, std::move(*m), out};
      return Status::ok();
    }
  }
  if (n.info().has(kReduction)) {
    KILN_ASSIGN_OR_RETURN(bool done, reduction(n));
    if (done) return Status::ok();
  }
  if (n.op() == OpKind::MaxPool2d || n.op() == OpKind::AvgPool2d || n.op() == OpKind::AdaptiveAvgPool2d) {
    KILN_ASSIGN_OR_RETURN(bool done, pool(n));
    if (done) return Status::ok();
  }
  if (n.op() == OpKind::Cumsum) {
    KILN_ASSIGN_OR_RETURN(bool done, cumsum(n));
    if (done) return Status::ok();
  }
  if (n.op() == OpKind::CopyInplace && options_.fuse) {
    KILN_ASSIGN_OR_RETURN(bool done, write_back(n));
    if (done) return Status::ok();
  }
  if (n.op() == OpKind::Chunk || n.op() == OpKind::Split) return split_views(n);
  if (n.op() == OpKind::Cat) return cat(n);
  if (n.info().has(kInplace) && n.info().has(kElementwise) && n.op() != OpKind::CopyInplace) {
    KILN_ASSIGN_OR_RETURN(bool done, write_in_place(n));
    if (done) return Status::ok();
  }
  if (n.op() == OpKind::Stack) return stack(n);
  if (lowers_as_gather(n)) return gather(n);
  if (lowers_as_scatter(n)) return scatter(n);
  if (n.op() == OpKind::IndexPutInplace) {
    KILN_ASSIGN_OR_RETURN(bool done, index_put_in_place(n));
    if (done) return Status::ok();
  }
  if (!n.info().has(kInplace) && n.num_results() == 1 &&
      (lowers_as_pointwise(n) || lowers_as_random(n) || lowers_as_remap(n))) {
    make_pending(n);
    if (!options_.fuse || outputs_.count(n.result())) realize(n.result());
    return Status::ok();
  }
  return extern_kernel(n);
}

void Lowering::make_pending(const Node& n) {
  int depth = 0;
  if (reads_operands(n))
    for (const Operand& o : n.operands()) {
      if (!o.is_value() || !pending_.count(o.value)) continue;
      const int d = pending_depth_.at(o.value);
      if (d >= kMaxInlineDepth)
        realize(o.value);
      else
        depth = std::max(depth, d);
    }
  for (int r = 0; r < n.num_results(); ++r) {
    pending_[n.result(r)] = &n;
    pending_depth_[n.result(r)] = depth + 1;
  }
}

int Lowering::inline_cost(const Value* v, int cap) const {
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

bool Lowering::checks_indices(const Value* v) const {
  std::set<const Value*> seen;
  std::vector<const Value*> work{v};
  while (!work.empty()) {
    const Value* x = work.back();
    work.pop_back();
    auto it = pending_.find(x);
    if (it == pending_.end() || !seen.insert(x).second) continue;
    if (sources_.count(it->second)) return true;
    for (const Operand& o : it->second->operands())
      if (o.is_value()) work.push_back(o.value);
  }
  return false;
}

bool Lowering::must_realize(const Value* v, int64_t points) const {
  if (points > numel_of(sizes_of(v)) && inline_cost(v, kMaxBroadcastInlineOps) > kMaxBroadcastInlineOps) return true;
  // A reader with no points would check no index: the reference kernel checks them all.
  if (points == 0 && numel_of(sizes_of(v)) > 0 && checks_indices(v)) return true;
  auto r = readers_.find(v);
  return r != readers_.end() && r->second > 1 && inline_cost(v, kMaxSharedInlineOps) > kMaxSharedInlineOps;
}

void Lowering::prepare(const Value* v, int64_t points) {
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

void Lowering::realize(const Value* v) {
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

int Lowering::value_at(BodyBuilder& b, const Value* v, const std::vector<IndexExpr>& coords) {
  if (auto it = pending_.find(v); it != pending_.end()) return emit_pending(b, *it->second, v, coords);
  if (auto it = body_of_.find(v); it != body_of_.end()) return body_value_at(b, *it->second, v, coords);
  const Access& a = access_.at(v);
  return b.load(a.buffer, v->type().dtype, a.map.substitute(coords));
}

int Lowering::operand(BodyBuilder& b, const Node& n, int i, DType dt, const std::vector<IndexExpr>& coords) {
  const Operand& o = n.operand(i);
  // An integer literal keeps its own value in an integer computation, as the reference kernels
  // read literals (as int64): eq(x_u8, 256) is false, remainder(x_u8, 256) is x.
  if (!o.is_value()) return b.constant(o.literal, is_integral(dt) && !o.literal.is_float() ? DType::I64 : dt);
  return b.cast(value_at(b, o.value, broadcast_coords(sizes_of(o.value), coords)), dt);
}

ExternOperand Lowering::extern_operand(const Value* v) {
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

Status Lowering::extern_kernel(const Node& n) {
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
  // An in-place op's result is operand 0 (ops.def): it is read where the kernel wrote it, so a
  // later write to that storage shows through it, as through the interpreter's alias (a graph
  // output is copied out after every node). The kernel's own result is a temporary no one reads.
  const bool in_place = n.info().has(kInplace) && n.operand(0).is_value();
  std::vector<int> results;
  for (int r = 0; r < n.num_results(); ++r) {
    const Value* v = n.result(r);
    if (in_place && r == 0)
      results.push_back(add_buffer("t" + std::to_string(temps_++), BufferKind::Temp, v->type().dtype, sizes_of(v)));
    else
      results.push_back(result_buffer(v, sizes_of(v)));
  }
  if (in_place) {
    const ExternOperand& self = ops[0];
    access_[n.result()] = Access{
        self.buffer, strided(self.strides, vars(0, static_cast<int>(self.sizes.size())), self.offset), self.sizes};
  }
  LoopKernel k = make_kernel(KernelKind::Extern);
  k.op = n.op();
  k.attrs = n.attrs();
  k.operands = std::move(ops);
  k.results = std::move(results);
  append(std::move(k));
  return Status::ok();
}

}  // namespace lowering

Expected<LoopProgram> lower_graph(const Graph& g, const LowerOptions& options) {
  return lowering::Lowering(g, options).run();
}

}  // namespace kiln
