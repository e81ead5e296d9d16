#include "lower/loop_bounds.h"

#include <string>
#include <vector>

namespace kiln {

namespace {

std::optional<int64_t> add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// [lo, hi] * c, with overflow checks.
std::optional<IndexRange> scale(IndexRange r, int64_t c) {
  int64_t a, b;
  if (__builtin_mul_overflow(r.lo, c, &a) || __builtin_mul_overflow(r.hi, c, &b)) return std::nullopt;
  return c >= 0 ? IndexRange{a, b} : IndexRange{b, a};
}

int64_t floor_div(int64_t a, int64_t d) { return a / d - ((a % d != 0) && (a < 0)); }
int64_t floor_mod(int64_t a, int64_t d) { return a - floor_div(a, d) * d; }

std::optional<IndexRange> term_range(const IndexTerm& t, std::span<const int64_t> extents) {
  IndexRange r;
  if (t.kind == IndexTerm::Kind::Var) {
    if (t.var < 0 || static_cast<size_t>(t.var) >= extents.size()) return std::nullopt;
    r = {0, extents[static_cast<size_t>(t.var)] - 1};
  } else {
    std::optional<IndexRange> in = index_range(t.inner.front(), extents);
    if (!in || t.divisor <= 0) return std::nullopt;
    const int64_t d = t.divisor;
    if (t.kind == IndexTerm::Kind::Div) {
      r = {floor_div(in->lo, d), floor_div(in->hi, d)};
    } else if (floor_div(in->lo, d) == floor_div(in->hi, d)) {
      r = {floor_mod(in->lo, d), floor_mod(in->hi, d)};
    } else {
      r = {0, d - 1};
    }
  }
  return scale(r, t.coeff);
}

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

class BoundsChecker {
 public:
  explicit BoundsChecker(const LoopProgram& p) : p_(p) {}

  Status run() {
    for (const LoopKernel& k : p_.kernels) {
      Status s = Status::ok();
      if (k.kind == KernelKind::Extern) s = check_views(k);
      for (const LoopKernel* part : loop_kernel_parts(k))
        if (s && k.kind != KernelKind::Extern) s = check_body(*part);
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
      std::span<const int64_t> extents(k.loops.data(), epilogue ? outer : k.loops.size());
      KILN_TRY(check_access(op, extents));
    }
    return Status::ok();
  }

  Status check_access(const BodyOp& op, std::span<const int64_t> extents) {
    int64_t points = 1;
    for (int64_t e : extents) {
      if (e == 0) return Status::ok();  // never runs
      if (__builtin_mul_overflow(points, e, &points)) points = INT64_MAX;
    }
    const Buffer& b = p_.buffers[static_cast<size_t>(op.buffer)];
    const int64_t n = b.storage_size();
    const char* what = op.kind == BodyOp::Kind::Load ? "load" : "store";
    const std::string access = std::string(what) + " %" + b.name + "[" + op.index.to_string() + "]";
    std::optional<IndexRange> r = index_range(op.index, extents);
    if (!r) return make_error(access, ": the index arithmetic may overflow int64");
    if (r->lo >= 0 && r->hi < n) return Status::ok();
    // Interval arithmetic is exact without div/mod terms; with them, count the points.
    if (op.index.is_affine() || points > kMaxEnumeratedPoints)
      return make_error(access, " is outside the buffer (indices ", r->lo, " to ", r->hi, ", not all in [0, ", n, "))");
    std::optional<std::string> bad;
    for_each_point(extents, [&](const std::vector<int64_t>& vars) {
      std::optional<int64_t> at = op.index.evaluate(vars);
      if (at && *at >= 0 && *at < n) return true;
      std::string where;
      for (size_t v = 0; v < vars.size(); ++v) where += (v ? ", i" : "i") + std::to_string(v) + "=" + std::to_string(vars[v]);
      bad = access + " is outside the buffer (" + (at ? std::to_string(*at) : "?") + " not in [0, " + std::to_string(n) +
            ")) at " + where;
      return false;
    });
    if (bad) return make_error(*bad);
    return Status::ok();
  }

  Status check_views(const LoopKernel& k) {
    for (const ExternOperand& o : k.operands) {
      if (o.buffer < 0) continue;
      const Buffer& b = p_.buffers[static_cast<size_t>(o.buffer)];
      bool empty = false;
      int64_t lo = o.offset, hi = o.offset;
      bool ok = o.sizes.size() == o.strides.size();
      for (size_t d = 0; ok && d < o.sizes.size(); ++d) {
        if (o.sizes[d] == 0) empty = true;
        std::optional<IndexRange> r = scale({0, o.sizes[d] - 1}, o.strides[d]);
        std::optional<int64_t> l = r ? add(lo, r->lo) : std::nullopt, h = r ? add(hi, r->hi) : std::nullopt;
        ok = o.sizes[d] >= 0 && l && h;
        if (ok) lo = *l, hi = *h;
      }
      if (!ok || (!empty && (lo < 0 || hi >= b.storage_size())))
        return make_error("extern operand %", b.name, " viewed at offset ", o.offset,
                          " lies outside the buffer of ", b.storage_size(), " elements");
    }
    return Status::ok();
  }

  const LoopProgram& p_;
};

}  // namespace

std::optional<IndexRange> index_range(const IndexExpr& e, std::span<const int64_t> extents) {
  IndexRange sum{0, 0};
  bool first = true;
  for (const IndexTerm& t : e.terms) {
    std::optional<IndexRange> r = term_range(t, extents);
    if (!r) return std::nullopt;
    if (first) {
      sum = *r;
      first = false;
      continue;
    }
    std::optional<int64_t> lo = add(sum.lo, r->lo), hi = add(sum.hi, r->hi);
    if (!lo || !hi) return std::nullopt;
    sum = {*lo, *hi};
  }
  std::optional<int64_t> lo = add(sum.lo, e.constant), hi = add(sum.hi, e.constant);
  if (!lo || !hi) return std::nullopt;
  return IndexRange{*lo, *hi};
}

Status check_loop_bounds(const LoopProgram& p) { return BoundsChecker(p).run(); }

}  // namespace kiln
