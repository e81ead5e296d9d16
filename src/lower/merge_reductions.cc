#include "lower/merge_reductions.h"

#include <set>
#include <vector>

#include "lower/body_builder.h"
#include "support/check.h"

namespace kiln {

namespace {

bool plain_folds(const LoopKernel& k) {
  if (k.kind != KernelKind::Reduction || k.reduce_op < 0) return false;
  for (const BodyOp& op : k.body)
    if (op.kind == BodyOp::Kind::Reduce && !is_plain_fold(op.reduce)) return false;
  return true;
}

std::set<int> buffers_read_in_reduce_loops(const LoopKernel& k) {
  std::set<int> out;
  for (int i = 0; i < k.reduce_op; ++i)
    if (k.body[static_cast<size_t>(i)].kind == BodyOp::Kind::Load) out.insert(k.body[static_cast<size_t>(i)].buffer);
  return out;
}

bool read_in_common(const LoopKernel& a, const LoopKernel& b) {
  const std::set<int> read = buffers_read_in_reduce_loops(a);
  for (int buffer : buffers_read_in_reduce_loops(b))
    if (read.count(buffer)) return true;
  return false;
}

// Copies body ops [from, to) of `k` into `builder`, their operands through `map` (k's body
// indices to the merged body's), which it extends.
void copy_ops(const LoopKernel& k, size_t from, size_t to, BodyBuilder& builder, std::vector<int>& map) {
  for (size_t i = from; i < to; ++i) {
    BodyOp op = k.body[i];
    for (int& arg : op.args) arg = map[static_cast<size_t>(arg)];
    map[i] = builder.add(std::move(op));
  }
}

// Copies reduce ops [from, to) of `k` after those already in `merged`, an op identical to one
// there (the same fold of the same value: avg_pool2d twice over one input) becoming that one.
void copy_reduce_ops(const LoopKernel& k, size_t from, size_t to, LoopKernel& merged, std::vector<int>& map) {
  for (size_t i = from; i < to; ++i) {
    BodyOp op = k.body[i];
    for (int& arg : op.args) arg = map[static_cast<size_t>(arg)];
    map[i] = -1;
    for (size_t r = static_cast<size_t>(merged.reduce_op); r < merged.body.size() && map[i] < 0; ++r) {
      const BodyOp& there = merged.body[r];
      if (there.reduce == op.reduce && there.dtype == op.dtype && there.args == op.args) map[i] = static_cast<int>(r);
    }
    if (map[i] >= 0) continue;
    map[i] = static_cast<int>(merged.body.size());
    merged.body.push_back(std::move(op));
  }
}

}  // namespace

bool merge_reductions(LoopKernel& a, const LoopKernel& b, bool columns) {
  if (!plain_folds(a) || !plain_folds(b) || a.loops != b.loops || a.num_reduce_loops != b.num_reduce_loops)
    return false;
  const bool column = is_column_reduction(a);
  if (column != is_column_reduction(b) || (column && !columns)) return false;
  if (a.body.size() + b.body.size() > kMaxMergedBodyOps || !read_in_common(a, b)) return false;
  LoopKernel merged;
  merged.name = a.name;
  merged.kind = KernelKind::Reduction;
  merged.loops = a.loops;
  merged.num_reduce_loops = a.num_reduce_loops;
  BodyBuilder builder(merged);
  std::vector<int> map_a(a.body.size(), -1), map_b(b.body.size(), -1);
  const size_t red_a = static_cast<size_t>(a.reduce_op), red_b = static_cast<size_t>(b.reduce_op);
  const size_t end_a = reduce_ops_end(a), end_b = reduce_ops_end(b);
  copy_ops(a, 0, red_a, builder, map_a);  // the reduce loops' values, loads of one element once
  copy_ops(b, 0, red_b, builder, map_b);
  merged.reduce_op = static_cast<int>(merged.body.size());
  copy_reduce_ops(a, red_a, end_a, merged, map_a);  // each fold its own state
  copy_reduce_ops(b, red_b, end_b, merged, map_b);
  BodyBuilder epilogue(merged);  // merges the epilogues' common ops
  copy_ops(a, end_a, a.body.size(), epilogue, map_a);
  copy_ops(b, end_b, b.body.size(), epilogue, map_b);
  // Each load walks the columns as it did alone: the merged kernel reduces columns as they did.
  KILN_CHECK(is_column_reduction(merged) == column) << "merged reductions @" << a.name << " changed their shape";
  a = std::move(merged);
  return true;
}

}  // namespace kiln
