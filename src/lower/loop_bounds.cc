#include "lower/loop_bounds.h"

#include <algorithm>
#include <string>
#include <vector>

#include "lower/loop_control.h"

namespace kiln {

namespace {

// Calls f(vars) at every point of the box `extents` (all > 0); stops when f returns false.
template <typename F>
void for_each_point(std::span<const int64_t> extents, F&& f) {
  std::vector<int64_t> vars(extents.size(), 0);
  while (true) {
    if (!f(vars)) return;
    size_t d = vars.size();
    while (true) {
      if (d == 0) return;
      --d;
      if (++vars[d] < extents[d]) break;
      vars[d] = 0;
    }
  }
}

constexpr int64_t kMaxEnumeratedPoints = int64_t{1} << 24;

// floor(a / b) for b != 0.
int64_t floor_div(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// Narrows box[v] (inclusive ranges of the loop variables) to where the bool body value `m` of
// `k` is true, from what it is a conjunction (logical_and) of: comparisons of an `index` of one
// variable, a*i<v> + b, with an integer constant. Anything else is ignored, which only leaves
// the box wider (the proof stays sound).
// A constant false mask empties the box (`never` set: the access never happens).
void narrow_to_mask(const LoopKernel& k, int m, std::vector<IndexRange>& box, bool& never) {
  const BodyOp& op = k.body[static_cast<size_t>(m)];
  if (op.kind == BodyOp::Kind::Const && !op.value.is_float() && op.value.to_int() == 0) never = true;
  if (op.kind != BodyOp::Kind::Compute) return;
  if (op.op == OpKind::LogicalAnd) {
    for (int a : op.args) narrow_to_mask(k, a, box, never);
    return;
  }
  if (op.args.size() != 2) return;
  const BodyOp &x = k.body[static_cast<size_t>(op.args[0])], &y = k.body[static_cast<size_t>(op.args[1])];
  OpKind rel = op.op;
  const BodyOp *ix = &x, *c = &y;
  if (x.kind == BodyOp::Kind::Const) {  // c REL e: e REL' c
    std::swap(ix, c);
    rel = rel == OpKind::Lt   ? OpKind::Gt
          : rel == OpKind::Le ? OpKind::Ge
          : rel == OpKind::Gt ? OpKind::Lt
          : rel == OpKind::Ge ? OpKind::Le
                              : rel;
  }
  if (ix->kind != BodyOp::Kind::Index || c->kind != BodyOp::Kind::Const || !is_integral(c->dtype) ||
      c->value.is_float() || ix->index.terms.size() != 1 || ix->index.terms[0].kind != IndexTerm::Kind::Var)
    return;
  const IndexTerm& t = ix->index.terms[0];
  const size_t v = static_cast<size_t>(t.var);
  if (v >= box.size() || t.coeff == 0) return;
  // a*i + b REL C, as lo <= a*i <= hi (no bound at the extremes: nothing to narrow there,
  // and the divisions below stay clear of overflow).
  int64_t lo = INT64_MIN, hi = INT64_MAX, cc;
  if (__builtin_sub_overflow(c->value.to_int(), ix->index.constant, &cc)) return;
  if (cc <= INT64_MIN + 1 || cc >= INT64_MAX - 1) return;
  switch (rel) {
    case OpKind::Lt: hi = cc - 1; break;
    case OpKind::Le: hi = cc; break;
    case OpKind::Gt: lo = cc + 1; break;
    case OpKind::Ge: lo = cc; break;
    case OpKind::Eq: lo = hi = cc; break;
    default: return;
  }
  const int64_t a = t.coeff;
  // i in [ceil(lo / a), floor(hi / a)] for a > 0; the bounds swap for a < 0.
  int64_t ilo = box[v].lo, ihi = box[v].hi;
  auto ceil_div = [](int64_t p, int64_t q) { return -floor_div(-p, q); };
  if (a > 0) {
    if (lo != INT64_MIN) ilo = std::max(ilo, ceil_div(lo, a));
    if (hi != INT64_MAX) ihi = std::min(ihi, floor_div(hi, a));
  } else {
    if (hi != INT64_MAX) ilo = std::max(ilo, ceil_div(hi, a));
    if (lo != INT64_MIN) ihi = std::min(ihi, floor_div(lo, a));
  }
  box[v] = {ilo, ihi};
}

class BoundsChecker {
 public:
  explicit BoundsChecker(const LoopProgram& p) : p_(p) {}

  Status run() {
    for (const LoopKernel* kp : flat_kernels(p_)) {
      const LoopKernel& k = *kp;
      Status s = Status::ok();
      if (k.kind == KernelKind::Extern) s = check_views(k);
      if (is_control_kernel(k)) s = check_control_kernel(p_, k);
      for (const LoopKernel* part : loop_kernel_parts(k))
        if (s && k.kind != KernelKind::Extern && !is_control_kernel(k)) s = check_body(*part);
      if (!s) return s.error().add_context("in kernel @" + k.name + " of loops @" + p_.name);
    }
    return Status::ok();
  }

 private:
  Status check_body(const LoopKernel& k) {
    const size_t outer = static_cast<size_t>(k.kind == KernelKind::Reduction ? k.num_outer_loops() : k.loops.size());
    for (size_t i = 0; i < k.body.size(); ++i) {
      const BodyOp& op = k.body[i];
      if (op.kind != BodyOp::Kind::Load && op.kind != BodyOp::Kind::Store) continue;
      // Ops after a reduction's reduce op run at the outer loops' points only.
      const bool epilogue = k.kind == KernelKind::Reduction && static_cast<int>(i) > k.reduce_op;
      const size_t n = epilogue ? outer : k.loops.size();
      std::vector<IndexRange> box;
      for (size_t d = 0; d < n; ++d) box.push_back({0, k.loops[d] - 1});
      bool never = false;
      if (op.masked) narrow_to_mask(k, op.mask(), box, never);  // a masked load happens where its mask holds
      if (never) continue;
      // An indirect term's value is checked into [0, size) at run time: a variable of that
      // range (numbered after the loops'), which no access reaches when the size is 0.
      IndexExpr index = op.index;
      for (size_t j = 0; j < op.indirect.size(); ++j) {
        const int64_t size = k.body[static_cast<size_t>(op.indirect_arg(j))].size;
        if (size <= 0) return make_error(access_text(op), ": an indirect index into an empty dim is never in range");
        index = index.plus(IndexExpr::var(static_cast<int>(box.size())).scaled(op.indirect[j]));
        box.push_back({0, size - 1});
      }
      KILN_TRY(check_access(op, index, box));
    }
    return Status::ok();
  }

  // "load %x[i1 + 4*(an indirect index)]"
  std::string access_text(const BodyOp& op) const {
    std::string s = std::string(op.kind == BodyOp::Kind::Load ? "load" : "store") + " %" +
                    p_.buffers[static_cast<size_t>(op.buffer)].name + "[" + op.index.to_string();
    for (int64_t c : op.indirect) s += " + " + std::to_string(c) + "*(an indirect index)";
    return s + "]";
  }

  // Whether `index` (op's, with its indirect terms as variables) is in op's buffer wherever
  // variable v runs over box[v].
  Status check_access(const BodyOp& op, const IndexExpr& unshifted, const std::vector<IndexRange>& box) {
    // The variables shifted to start at 0: i<v> = j<v> + box[v].lo with j<v> in [0, extent).
    std::vector<IndexExpr> shifted;
    std::vector<int64_t> extents;
    for (size_t v = 0; v < box.size(); ++v) {
      if (box[v].hi < box[v].lo) return Status::ok();  // never runs
      int64_t e;
      if (__builtin_sub_overflow(box[v].hi, box[v].lo, &e) || e == INT64_MAX) e = INT64_MAX - 1;
      extents.push_back(e + 1);
      shifted.push_back(IndexExpr::var(static_cast<int>(v)).plus(IndexExpr::constant_of(box[v].lo)));
    }
    const bool narrowed = std::any_of(box.begin(), box.end(), [](const IndexRange& r) { return r.lo != 0; });
    const IndexExpr index = narrowed ? unshifted.substitute(shifted) : unshifted;
    int64_t points = 1;
    for (int64_t e : extents)
      if (__builtin_mul_overflow(points, e, &points)) points = INT64_MAX;
    const Buffer& b = p_.buffers[static_cast<size_t>(op.buffer)];
    const int64_t n = b.storage_size();
    const std::string access = access_text(op);
    std::optional<IndexRange> r = index_range(index, extents);
    if (!r) return make_error(access, ": the index arithmetic may overflow int64");
    if (r->lo >= 0 && r->hi < n) return Status::ok();
    // Interval arithmetic is exact without div/mod terms; with them, count the points.
    if (index.is_affine() || points > kMaxEnumeratedPoints)
      return make_error(access, " is outside the buffer (indices ", r->lo, " to ", r->hi, ", not all in [0, ", n, "))");
    std::optional<std::string> bad;
    for_each_point(extents, [&](const std::vector<int64_t>& vars) {
      std::optional<int64_t> at = index.evaluate(vars);
      if (at && *at >= 0 && *at < n) return true;
      std::string where;
      for (size_t v = 0; v < vars.size(); ++v)
        where += (v ? ", i" : "i") + std::to_string(v) + "=" + std::to_string(vars[v] + box[v].lo);
      bad = access + " is outside the buffer (" + (at ? std::to_string(*at) : "?") + " not in [0, " +
            std::to_string(n) + ")) at " + where;
      return false;
    });
    if (bad) return make_error(*bad);
    return Status::ok();
  }

  Status check_views(const LoopKernel& k) {
    for (const ExternOperand& o : k.operands) {
      if (o.buffer < 0) continue;
      const Buffer& b = p_.buffers[static_cast<size_t>(o.buffer)];
      // The view's elements are offset + sum(stride_d * i_d) over the box of its sizes.
      bool ok = o.sizes.size() == o.strides.size(), empty = false;
      IndexExpr at = IndexExpr::constant_of(o.offset);
      for (size_t d = 0; ok && d < o.sizes.size(); ++d) {
        ok = o.sizes[d] >= 0;
        empty = empty || o.sizes[d] == 0;
        at = at.plus(IndexExpr::var(static_cast<int>(d)).scaled(o.strides[d]));
      }
      std::optional<IndexRange> r = ok && !empty ? index_range(at, o.sizes) : std::nullopt;
      ok = ok && (empty || r);
      const int64_t lo = r ? r->lo : 0, hi = r ? r->hi : 0;
      if (!ok || (!empty && (lo < 0 || hi >= b.storage_size())))
        return make_error("extern operand %", b.name, " viewed at offset ", o.offset, " lies outside the buffer of ",
                          b.storage_size(), " elements");
    }
    return Status::ok();
  }

  const LoopProgram& p_;
};

}  // namespace

Status check_loop_bounds(const LoopProgram& p) { return BoundsChecker(p).run(); }

}  // namespace kiln
