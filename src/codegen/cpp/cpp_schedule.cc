#include "codegen/cpp/cpp_schedule.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "codegen/cpp/cpp_lane_reduce.h"
#include "codegen/cpp/cpp_reduce.h"

namespace kiln::cpp {

namespace {

int64_t points(const LoopKernel& k, size_t first, size_t last) {
  int64_t n = 1;
  for (size_t d = first; d < last; ++d)
    if (__builtin_mul_overflow(n, k.loops[d], &n)) return INT64_MAX;
  return n;
}

// Whether e takes distinct values at distinct points of loops [0, n) (mixed radix: each
// coefficient exceeds the span of the smaller ones).
bool injective(const IndexExpr& e, const LoopKernel& k, int n) {
  std::vector<std::pair<int64_t, int64_t>> dims;  // |coeff|, extent
  for (int v = 0; v < n; ++v) {
    const int64_t extent = k.loops[static_cast<size_t>(v)];
    if (extent <= 1) continue;
    const int64_t c = e.coeff_of(v);
    if (c == 0 || c == INT64_MIN || !e.is_affine_in(v)) return false;
    dims.emplace_back(std::llabs(c), extent);
  }
  std::sort(dims.begin(), dims.end());
  int64_t span = 0;  // the largest offset the smaller coefficients reach
  for (const auto& [c, extent] : dims) {
    if (c <= span) return false;
    int64_t reach;
    if (__builtin_mul_overflow(c, extent - 1, &reach) || __builtin_add_overflow(span, reach, &span)) return false;
  }
  return true;
}

// Whether `load` and `store` address the same element at every point: the same index
// and the same indirect terms (values and coefficients).
bool same_address(const BodyOp& load, const BodyOp& store) {
  if (!(load.index == store.index) || load.indirect != store.indirect || load.masked) return false;
  for (size_t j = 0; j < load.indirect.size(); ++j)
    if (load.indirect_arg(j) != store.indirect_arg(j)) return false;
  return true;
}

}  // namespace

bool scan_rows_independent(const LoopKernel& k) {
  const int n = static_cast<int>(k.loops.size());
  if (k.kind != KernelKind::Scan || n < 2) return false;
  std::map<int, std::string> stored;  // buffer -> its store's index
  for (const BodyOp& op : k.body) {
    if (op.kind != BodyOp::Kind::Store) continue;
    const bool carry = !op.index.uses_var(n - 1);
    if (!op.indirect.empty() || stored.count(op.buffer) || !injective(op.index, k, carry ? n - 1 : n)) return false;
    stored[op.buffer] = carry ? op.index.to_string() : "";
  }
  for (const BodyOp& op : k.body) {
    if (op.kind != BodyOp::Kind::Load) continue;
    auto it = stored.find(op.buffer);
    if (it != stored.end() && (it->second.empty() || it->second != op.index.to_string())) return false;
  }
  return true;
}

bool stores_independent(const LoopKernel& k, int n) {
  std::map<int, const BodyOp*> stored;
  for (const BodyOp& op : k.body) {
    if (op.kind != BodyOp::Kind::Store) continue;
    // An indirect store may repeat an element (its points run in order) unless it is unique.
    const bool distinct = op.unique || (op.indirect.empty() && injective(op.index, k, n));
    if (!stored.emplace(op.buffer, &op).second || !distinct) return false;
  }
  // A stored buffer may be loaded where the same point stores it, and nowhere else: an
  // in-place op's x[i] = f(x[i]) and a unique scatter read only what their own point writes.
  for (const BodyOp& op : k.body) {
    if (op.kind != BodyOp::Kind::Load) continue;
    auto it = stored.find(op.buffer);
    if (it != stored.end() && !same_address(op, *it->second)) return false;
  }
  return true;
}

bool inner_loop_independent(const LoopKernel& k) {
  const int inner = static_cast<int>(k.loops.size()) - 1;
  if (inner < 0 || k.kind != KernelKind::Pointwise) return false;
  // Which body values change along the innermost loop.
  std::vector<bool> varies(k.body.size(), false);
  for (size_t i = 0; i < k.body.size(); ++i) {
    const BodyOp& op = k.body[i];
    bool v = (op.kind == BodyOp::Kind::Load || op.kind == BodyOp::Kind::Index) && op.index.uses_var(inner);
    for (int a : op.args) v = v || varies[static_cast<size_t>(a)];
    varies[i] = v;
  }
  std::map<int, const BodyOp*> stored;
  for (const BodyOp& op : k.body) {
    if (op.kind != BodyOp::Kind::Store) continue;
    if (!stored.emplace(op.buffer, &op).second) return false;
    if (!op.index.is_affine_in(inner) || op.index.coeff_of(inner) == 0) return false;
    for (size_t j = 0; j < op.indirect.size(); ++j)
      if (varies[static_cast<size_t>(op.indirect_arg(j))]) return false;
  }
  for (const BodyOp& op : k.body) {
    if (op.kind != BodyOp::Kind::Load) continue;
    auto it = stored.find(op.buffer);
    if (it != stored.end() && !same_address(op, *it->second)) return false;
  }
  return true;
}

bool fused_rows_independent(const LoopKernel& k) {
  std::map<int, std::string> stored;
  for (const LoopKernel& part : k.parts)
    for (const BodyOp& op : part.body)
      if (op.kind == BodyOp::Kind::Store) {
        if (stored.count(op.buffer) || !op.indirect.empty()) return false;
        stored[op.buffer] = op.index.to_string();
      }
  for (const LoopKernel& part : k.parts) {
    const int outer = part.kind == KernelKind::Reduction ? part.num_outer_loops() : static_cast<int>(part.loops.size());
    LoopKernel stores_only = part;
    stores_only.body.clear();
    for (const BodyOp& op : part.body) {
      if (op.kind == BodyOp::Kind::Store) stores_only.body.push_back(op);
      if (op.kind == BodyOp::Kind::Load) {
        auto it = stored.find(op.buffer);
        if (it != stored.end() && (it->second != op.index.to_string() || !op.args.empty())) return false;
      }
    }
    if (!stores_independent(stores_only, outer)) return false;
  }
  return true;
}

CppSchedule schedule_cpp_kernel(const LoopKernel& k, const CppEmitOptions& o) {
  CppSchedule s;
  const int n = static_cast<int>(k.loops.size());
  if (!o.openmp || n == 0 || k.kind == KernelKind::Fused) return s;  // fused: cpp_kernel.cc parallelizes rows
  if (k.kind == KernelKind::Scan) {  // steps depend on earlier ones: serial, but rows may not
    if (points(k, 0, k.loops.size()) >= o.parallel_threshold && scan_rows_independent(k)) {
      s.parallel_loop = 0;
      s.parallel_collapse = n - 1;
    }
    return s;
  }
  const bool large = points(k, 0, k.loops.size()) >= o.parallel_threshold;
  if (k.kind == KernelKind::Pointwise) {
    if (!stores_independent(k, n)) {
      // Outer points in order (repeated indices), the innermost loop vectorized where its
      // points write distinct elements.
      if (inner_loop_independent(k)) s.simd_loop = n - 1;
      return s;
    }
    s.simd_loop = n - 1;
    if (large) {
      s.parallel_loop = 0;
      s.parallel_collapse = std::max(1, n - 1);
    }
    return s;
  }
  const int outer = k.num_outer_loops();
  if (uses_lanes(k)) {  // lanes vectorize themselves (cpp_lane_reduce.h)
    if (!large) return s;
    const int64_t rows = points(k, 0, static_cast<size_t>(outer));
    // Welford's chunks of a single reduce loop run in parallel when the rows are few.
    if (uses_welford_chunks(k) && rows < kMinParallelOuterPoints && k.num_reduce_loops == 1) {
      s.parallel_loop = outer;
    } else if (outer > 0 && rows > 1 && stores_independent(k, outer)) {
      s.parallel_loop = 0;
      s.parallel_collapse = outer;
    }
    return s;
  }
  s.reduction = accumulator_for(k).clause;
  if (!s.reduction.empty()) s.simd_loop = n - 1;
  if (!large) return s;
  if (outer > 0 && points(k, 0, static_cast<size_t>(outer)) >= kMinParallelOuterPoints &&
      stores_independent(k, outer)) {
    s.parallel_loop = 0;
    s.parallel_collapse = outer;
  } else if (!s.reduction.empty()) {
    s.parallel_loop = outer;
    s.parallel_collapse = std::max(1, k.num_reduce_loops - 1);
  }
  return s;
}

}  // namespace kiln::cpp
