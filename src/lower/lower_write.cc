// Lowering of copy_ into a whole buffer (computed in place) and the ordering of in-place
// writes after the pending readers of what they overwrite.
#include "lower/lowering.h"

#include <set>
#include <vector>

namespace kiln::lowering {

void Lowering::realize_readers_before_write(int buf, const Node& writer) {
  const int here = position_.at(&writer);
  std::vector<const Value*> stale;
  for (const auto& [v, node] : pending_)
    if (last_read_.count(v) && last_read_.at(v) > here && pending_reads(v, buf)) stale.push_back(v);
  for (const Value* v : stale) realize(v);
}

Expected<bool> Lowering::write_back(const Node& n) {
  if (!n.operand(0).is_value() || !n.operand(1).is_value()) return false;
  const Value* dst = n.operand(0).value;
  realize(dst);
  const Access& a = access_.at(dst);
  const std::vector<int64_t> sizes = sizes_of(dst);
  const std::vector<IndexExpr> c = loop_coords(sizes);
  const Buffer& target = buffer(a.buffer);
  // Only into the whole buffer: a view of another rank has coordinates its strides do not fit.
  if (target.sizes != sizes) return false;
  const IndexExpr at = strided(target.strides, c);
  if (!(a.map.substitute(c) == at)) return false;
  // A kernel whose index check fails stops the run after it has written: not into an input.
  if (checks_indices(n.operand(1).value)) return false;
  realize_readers_before_write(a.buffer, n);
  prepare(n.operand(1).value, numel_of(sizes));
  LoopKernel k = make_kernel(KernelKind::Pointwise);
  k.loops = sizes;
  BodyBuilder b{k};
  const int x = operand(b, n, 1, dst->type().dtype, c);
  for (const BodyOp& op : k.body)
    if (op.kind == BodyOp::Kind::Load && op.buffer == a.buffer && (!(op.index == at) || !op.args.empty())) return false;
  b.store(a.buffer, at, x);
  access_[n.result()] = a;
  append(std::move(k));
  return true;
}

bool Lowering::pending_reads(const Value* v, int buf) const {
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

}  // namespace kiln::lowering
