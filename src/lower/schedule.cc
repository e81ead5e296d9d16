#include "lower/schedule.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "lower/body_builder.h"
#include "lower/loop_control.h"
#include "lower/merge_reductions.h"

namespace kiln {

namespace {

int64_t product(const std::vector<int64_t>& v, size_t from) {
  int64_t n = 1;
  for (size_t d = from; d < v.size(); ++d) n *= v[d];
  return n;
}

// The loops `k` could share with a kernel joined to it: a pointwise kernel's loops, a
// reduction's outer loops, a fused kernel's shared loops.
std::vector<int64_t> shareable_loops(const LoopKernel& k) {
  if (k.kind == KernelKind::Reduction) return {k.loops.begin(), k.loops.begin() + k.num_outer_loops()};
  return k.loops;
}

// Whether `b` reads a buffer `a` reads or writes (worth putting in one kernel).
bool related(const LoopKernel& a, const LoopKernel& b) {
  std::set<int> touched = kernel_buffers_read(a);
  for (int w : kernel_buffers_written(a)) touched.insert(w);
  for (int r : kernel_buffers_read(b))
    if (touched.count(r)) return true;
  return false;
}

// Whether `b` writes a buffer `a` reads or writes (then it must stay after all of `a`).
bool overwrites(const LoopKernel& a, const LoopKernel& b) {
  std::set<int> touched = kernel_buffers_read(a);
  for (int w : kernel_buffers_written(a)) touched.insert(w);
  for (int w : kernel_buffers_written(b))
    if (touched.count(w)) return true;
  return false;
}

// Whether `b` may run before `k`: it reads nothing `k` writes, and writes nothing `k` reads or
// writes.
bool independent(const LoopKernel& k, const LoopKernel& b) {
  if (overwrites(k, b)) return false;
  const std::set<int> written = kernel_buffers_written(k);
  for (int r : kernel_buffers_read(b))
    if (written.count(r)) return false;
  return true;
}

bool checks_indices(const LoopKernel& k) {
  for (const BodyOp& op : k.body)
    if (op.kind == BodyOp::Kind::Indirect) return true;
  return false;
}

struct StoreAt {
  IndexExpr index;
  int value = -1;
  // No indirect terms, and the index uses every outer loop of more than one point: the element
  // is the index's at every point, and no other point stores it, so the value stored there is
  // the element's last. (index_add into a dim of size 1 stores without an indirect term at an
  // index that leaves the source's dim out: its points accumulate into one element.)
  bool direct = true;
};

bool stores_once(const LoopKernel& k, const BodyOp& store) {
  if (!store.indirect.empty()) return false;
  for (int v = 0; v < k.num_outer_loops(); ++v)
    if (k.loops[static_cast<size_t>(v)] > 1 && !store.index.uses_var(v)) return false;
  return true;
}

std::map<int, StoreAt> stores_of(const LoopKernel& k) {
  std::map<int, StoreAt> out;
  for (const BodyOp& op : k.body)
    if (op.kind == BodyOp::Kind::Store) out[op.buffer] = StoreAt{op.index, op.args.at(0), stores_once(k, op)};
  return out;
}

// Whether `load` reads what `at` stores, at the same point: both direct, at the same index.
bool same_element(const StoreAt& at, const BodyOp& load) {
  return at.direct && load.args.empty() && at.index == load.index;
}

// The most parts a fused kernel takes: each join walks every part, so joining a chain of n
// row kernels into one cost n^2 (2,000 levels of a row sum and a subtraction: 18 s).
constexpr size_t kMaxFusedParts = 64;

// How many kernels back a reduction looks for one to merge with (the search is quadratic in it).
constexpr size_t kMaxReductionLookBack = 16;

// Pointwise `b` appended to pointwise `a` over the same loops: b's loads of what a stores (at
// the same index) become a's stored values. False, leaving `a` alone, when b reads what a
// stores at another index (another iteration's element) or the body would grow too long.
bool merge_pointwise(LoopKernel& a, const LoopKernel& b) {
  if (a.body.size() + b.body.size() > kMaxMergedBodyOps) return false;
  const std::map<int, StoreAt> stored = stores_of(a);
  for (const BodyOp& op : b.body) {
    auto it = op.kind == BodyOp::Kind::Load ? stored.find(op.buffer) : stored.end();
    // A masked or indirect load, or a load of an indirect store, is not the stored value.
    if (it != stored.end() && !same_element(it->second, op)) return false;
  }
  BodyBuilder builder(a);
  std::vector<int> map(b.body.size(), -1);
  for (size_t i = 0; i < b.body.size(); ++i) {
    const BodyOp& op = b.body[i];
    if (auto it = op.kind == BodyOp::Kind::Load ? stored.find(op.buffer) : stored.end(); it != stored.end()) {
      map[i] = builder.cast(it->second.value, op.dtype);  // the store rounded to the buffer's dtype
      continue;
    }
    BodyOp copy = op;
    for (int& arg : copy.args) arg = map[static_cast<size_t>(arg)];
    map[i] = builder.add(std::move(copy));
  }
  return true;
}

// Whether `b` may run as a part after the parts of `a` (fused over `rows` shared loops): every
// load of what a part of `a` stores is at the same index, and either that index depends on the
// shared loops only or the two parts run the same loops (so the element was written in the
// same row).
bool row_local(const LoopKernel& a, const LoopKernel& b, size_t rows) {
  std::map<int, std::pair<StoreAt, const LoopKernel*>> stored;
  for (const LoopKernel* p : loop_kernel_parts(a))
    for (const auto& [buffer, at] : stores_of(*p)) stored[buffer] = {at, p};
  for (const BodyOp& op : b.body) {
    if (op.kind != BodyOp::Kind::Load) continue;
    auto it = stored.find(op.buffer);
    if (it == stored.end()) continue;
    const auto& [at, writer] = it->second;
    if (!same_element(at, op)) return false;
    if (op.index.max_var() >= static_cast<int>(rows) && writer->loops != b.loops) return false;
  }
  return true;
}

class Scheduler {
 public:
  explicit Scheduler(const ScheduleOptions& o) : o_(o) {}

  // Joins `b` to `a` (the kernel before it) when legal and worth it.
  bool join(LoopKernel& a, const LoopKernel& b) const {
    if (a.kind == KernelKind::Extern || b.kind == KernelKind::Extern || b.kind == KernelKind::Fused) return false;
    // A scan kernel's later steps read what its earlier ones stored; no join keeps that order.
    if (a.kind == KernelKind::Scan || b.kind == KernelKind::Scan) return false;
    // Kernels inside a control kernel's regions run conditionally or repeatedly: none joins one outside.
    if (is_control_kernel(a) || is_control_kernel(b)) return false;
    if (overwrites(a, b) || !related(a, b)) return false;
    if (o_.merge_pointwise && a.kind == KernelKind::Pointwise && b.kind == KernelKind::Pointwise && a.loops == b.loops)
      return merge_pointwise(a, b);
    return o_.fuse_rows && join_rows(a, b);
  }

  // Merges reduction `b` into the nearest of the last kernels of `earlier` it may move up to
  // and fold beside (merge_reductions.h). One that checks indices moves past no kernel: its
  // error would come before theirs.
  bool merge_reduction(std::vector<LoopKernel>& earlier, const LoopKernel& b) const {
    if (!o_.merge_reductions || b.kind != KernelKind::Reduction) return false;
    const size_t stop = earlier.size() - std::min(earlier.size(), kMaxReductionLookBack);
    for (size_t i = earlier.size(); i-- > stop;) {
      if (!independent(earlier[i], b)) return false;
      if (merge_reductions(earlier[i], b, o_.merge_column_reductions)) return true;
      if (checks_indices(b)) return false;
    }
    return false;
  }

  // Joins `b` to the kernel before the column reductions that end `earlier` (two at least: the
  // last one `join` tried), when `b` may move up past them (independent): a column reduction
  // joins nothing after it, so a row's pointwise or reduction behind one (layer_norm's
  // backward: rstd between the bias's gradient and the weight's) would otherwise start a kernel
  // of its own. One that checks indices moves past no kernel (merge_reduction).
  bool join_past_column_reductions(std::vector<LoopKernel>& earlier, const LoopKernel& b) const {
    if (checks_indices(b)) return false;
    for (size_t i = earlier.size(); i-- > 0;) {
      if (!is_column_reduction(earlier[i])) return i + 1 < earlier.size() && join(earlier[i], b);
      if (!independent(earlier[i], b)) return false;
    }
    return false;
  }

 private:
  bool join_rows(LoopKernel& a, const LoopKernel& b) const {
    if (is_column_reduction(b) || (a.kind == KernelKind::Fused && a.parts.size() >= kMaxFusedParts)) return false;
    for (const LoopKernel* p : loop_kernel_parts(a))
      if (is_column_reduction(*p)) return false;
    const std::vector<int64_t> sa = shareable_loops(a), sb = shareable_loops(b);
    size_t rows = 0;
    while (rows < sa.size() && rows < sb.size() && sa[rows] == sb[rows]) ++rows;
    if (a.kind == KernelKind::Fused && rows != sa.size()) return false;
    if (rows == 0 || product(sa, 0) / std::max<int64_t>(1, product(sa, rows)) < o_.min_rows) return false;
    for (const LoopKernel* p : loop_kernel_parts(a))
      if (part_row_bytes(*p, rows) > o_.max_row_bytes) return false;
    if (part_row_bytes(b, rows) > o_.max_row_bytes) return false;
    if (!row_local(a, b, rows)) return false;
    if (a.kind != KernelKind::Fused) {
      LoopKernel fused;
      fused.name = a.name;
      fused.kind = KernelKind::Fused;
      fused.loops.assign(sa.begin(), sa.begin() + static_cast<std::ptrdiff_t>(rows));
      fused.parts.push_back(std::move(a));
      fused.parts.back().name.clear();
      a = std::move(fused);
    }
    LoopKernel& last = a.parts.back();
    if (o_.merge_pointwise && last.kind == KernelKind::Pointwise && b.kind == KernelKind::Pointwise &&
        last.loops == b.loops && merge_pointwise(last, b))
      return true;
    a.parts.push_back(b);
    a.parts.back().name.clear();
    return true;
  }

  const ScheduleOptions& o_;
};

// ---- Removing temporaries nothing reads ----

// Drops body ops whose values reach no store and no index check (a check may fail: it stays,
// with what it reads); false when neither is left.
bool prune_body(LoopKernel& k, const std::vector<bool>& dead_buffer) {
  std::vector<bool> live(k.body.size(), false);
  for (const BodyOp& op : k.body)  // a reduction kernel that keeps a check keeps its reduce op
    if (op.kind == BodyOp::Kind::Indirect && k.reduce_op >= 0) live[static_cast<size_t>(k.reduce_op)] = true;
  for (size_t i = k.body.size(); i-- > 0;) {
    const BodyOp& op = k.body[i];
    if (op.kind == BodyOp::Kind::Store && !dead_buffer[static_cast<size_t>(op.buffer)]) live[i] = true;
    if (op.kind == BodyOp::Kind::Indirect) live[i] = true;
    if (!live[i]) continue;
    for (int a : op.args) live[static_cast<size_t>(a)] = true;
  }
  std::vector<int> map(k.body.size(), -1);
  std::vector<BodyOp> body;
  bool stores = false;
  for (size_t i = 0; i < k.body.size(); ++i) {
    if (!live[i]) continue;
    BodyOp op = std::move(k.body[i]);
    for (int& a : op.args) a = map[static_cast<size_t>(a)];
    stores = stores || op.kind == BodyOp::Kind::Store || op.kind == BodyOp::Kind::Indirect;
    map[i] = static_cast<int>(body.size());
    body.push_back(std::move(op));
  }
  k.body = std::move(body);
  if (k.reduce_op >= 0) {  // the first reduce op left (of several, unused ones may go)
    k.reduce_op = -1;
    for (size_t i = 0; i < k.body.size() && k.reduce_op < 0; ++i)
      if (k.body[i].kind == BodyOp::Kind::Reduce) k.reduce_op = static_cast<int>(i);
  }
  return stores && (k.kind != KernelKind::Reduction || k.reduce_op >= 0);
}

// Drops the kernels of `kernels` that store nothing live (a cond whose regions are left empty too).
void prune_kernels(std::vector<LoopKernel>& kernels, const std::vector<bool>& dead) {
  std::vector<LoopKernel> kept;
  for (LoopKernel& k : kernels) {
    if (k.kind == KernelKind::Extern) {
      kept.push_back(std::move(k));
    } else if (is_control_kernel(k)) {
      bool empty = true;
      for (std::vector<LoopKernel>& region : k.regions) {
        prune_kernels(region, dead);
        empty = empty && region.empty();
      }
      if (k.kind == KernelKind::While || !empty) kept.push_back(std::move(k));
    } else if (k.kind == KernelKind::Fused) {
      std::vector<LoopKernel> parts;
      for (LoopKernel& part : k.parts)
        if (prune_body(part, dead)) parts.push_back(std::move(part));
      k.parts = std::move(parts);
      if (!k.parts.empty()) kept.push_back(std::move(k));
    } else if (prune_body(k, dead)) {
      kept.push_back(std::move(k));
    }
  }
  kernels = std::move(kept);
}

void remove_unread_temporaries(LoopProgram& p) {
  std::vector<bool> dead(p.buffers.size(), false);
  std::set<int> read, extern_written;
  for (const LoopKernel* k : flat_kernels(p)) {
    for (int b : kernel_buffers_read(*k)) read.insert(b);
    extern_written.insert(k->results.begin(), k->results.end());
  }
  for (size_t b = 0; b < p.buffers.size(); ++b)
    dead[b] = p.buffers[b].kind == BufferKind::Temp && !read.count(static_cast<int>(b)) &&
              !extern_written.count(static_cast<int>(b));
  prune_kernels(p.kernels, dead);
  std::vector<int> map(p.buffers.size(), -1);
  std::vector<Buffer> buffers;
  for (size_t b = 0; b < p.buffers.size(); ++b) {
    if (dead[b]) continue;
    map[b] = static_cast<int>(buffers.size());
    buffers.push_back(std::move(p.buffers[b]));
  }
  p.buffers = std::move(buffers);
  for (int& b : p.inputs) b = map[static_cast<size_t>(b)];
  for (int& b : p.outputs) b = map[static_cast<size_t>(b)];
  for (LoopKernel& k : p.kernels) remap_kernel_buffers(k, map);
}

// Joins the kernels of one list, and of each control kernel's regions apart.
void schedule_list(std::vector<LoopKernel>& kernels, const Scheduler& scheduler) {
  std::vector<LoopKernel> out;
  for (LoopKernel& k : kernels) {
    for (std::vector<LoopKernel>& region : k.regions) schedule_list(region, scheduler);
    if (scheduler.merge_reduction(out, k)) continue;
    if (!out.empty() && scheduler.join(out.back(), k)) continue;
    if (scheduler.join_past_column_reductions(out, k)) continue;
    out.push_back(std::move(k));
  }
  kernels = std::move(out);
}

}  // namespace

int64_t part_row_bytes(const LoopKernel& part, size_t rows) {
  const auto uses_any = [](const IndexExpr& index, size_t from, size_t to) {
    for (size_t v = from; v < to; ++v)
      if (index.uses_var(static_cast<int>(v))) return true;
    return false;
  };
  std::map<int, int64_t> row_buffers;  // buffer -> its element's bytes
  for (const BodyOp& op : part.body) {
    if (op.kind != BodyOp::Kind::Load || !uses_any(op.index, rows, part.loops.size())) continue;
    if (op.args.empty() && !uses_any(op.index, 0, rows)) continue;
    row_buffers[op.buffer] = dtype_size(op.dtype);
  }
  int64_t bytes_per_point = 0;
  for (const auto& [buffer, bytes] : row_buffers) bytes_per_point += bytes;
  return product(part.loops, rows) * bytes_per_point;
}

void schedule_kernels(LoopProgram& p, const ScheduleOptions& options) {
  schedule_list(p.kernels, Scheduler(options));
  remove_unread_temporaries(p);
  number_kernels(p);
}

}  // namespace kiln
