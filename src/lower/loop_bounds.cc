#include "lower/loop_bounds.h"

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
        return make_error("extern operand %", b.name, " viewed at offset ", o.offset,
                          " lies outside the buffer of ", b.storage_size(), " elements");
    }
    return Status::ok();
  }

  const LoopProgram& p_;
};

}  // namespace

Status check_loop_bounds(const LoopProgram& p) { return BoundsChecker(p).run(); }

}  // namespace kiln
