#include "codegen/cuda/cuda_held_row.h"

#include <map>
#include <set>

#include "codegen/cpp/cpp_lane_reduce.h"
#include "codegen/cpp/cpp_schedule.h"
#include "codegen/cuda/cuda_reduce.h"
#include "codegen/cuda/cuda_vector_access.h"
#include "lower/loop_control.h"

namespace kiln::cuda {

namespace {

bool is_access(const BodyOp& op) { return op.kind == BodyOp::Kind::Load || op.kind == BodyOp::Kind::Store; }

std::string buffer_name(const LoopProgram& p, int b) { return "%" + p.buffers[static_cast<size_t>(b)].name; }

// The key of the accesses that read and write the same element at each point.
std::string key_of(const BodyOp& op) { return std::to_string(op.buffer) + "@" + op.index.to_string(); }

bool moves_with_row(const BodyOp& op, int first, int last) {
  for (int d = first; d < last; ++d)
    if (op.index.uses_var(d)) return true;
  return false;
}

std::vector<int64_t> row_loops(const LoopKernel& part, size_t n) {
  return {part.loops.begin() + static_cast<std::ptrdiff_t>(n), part.loops.end()};
}

int64_t product(const std::vector<int64_t>& loops) {
  int64_t points = 1;
  for (int64_t e : loops) points *= e;
  return points;
}

}  // namespace

bool is_scalar_part(const LoopKernel& part, size_t n) {
  return part.kind == KernelKind::Pointwise && product(row_loops(part, n)) == 1;
}

namespace {

// The row loops of fused kernel `k` (its shared loops `n`): those of its first part that is not
// scalar.
std::vector<int64_t> row_of(const LoopKernel& k, size_t n) {
  for (const LoopKernel& part : k.parts)
    if (!is_scalar_part(part, n)) return row_loops(part, n);
  return {};
}

// Why fused kernel `k` (its shared loops `n`) cannot hold its row, or "".
std::string shape_reason(const LoopProgram& p, const LoopKernel& k, size_t n) {
  if (k.kind != KernelKind::Fused || k.parts.empty()) return "not a fused kernel";
  if (!cpp::fused_rows_independent(k)) return "stores repeat elements";
  const std::vector<int64_t> row = row_of(k, n);
  if (row.empty()) return "no row loops";
  for (const LoopKernel& part : k.parts) {
    if (!is_scalar_part(part, n) && row_loops(part, n) != row) return "parts walk different row loops";
    if (part.kind == KernelKind::Reduction && part.num_outer_loops() != static_cast<int>(n))
      return "a reduction part keeps some row loops";
    for (const BodyOp& op : part.body)
      if (is_access(op) && (!op.indirect.empty() || op.masked))
        return "an indirect or masked access of " + buffer_name(p, op.buffer);
  }
  for (int64_t e : row)
    if (e == 0) return "an empty row";
  return "";
}

// Whether `b`'s stores must reach memory: it is not a temporary, or a kernel other than `k`
// reads it (a control kernel reads what its regions read, `k` included: kept).
bool read_outside(const LoopProgram& p, const LoopKernel& k, int b) {
  if (p.buffers[static_cast<size_t>(b)].kind != BufferKind::Temp) return true;
  for (const LoopKernel* other : flat_kernels(p))
    if (other != &k && kernel_buffers_read(*other).count(b)) return true;
  return false;
}

// The vector width every row access allows (1: scalar groups).
int row_width(const LoopProgram& p, const LoopKernel& k, int first, int last, int64_t innermost) {
  std::vector<const LoopKernel*> parts;
  for (const LoopKernel& part : k.parts)
    if (!is_scalar_part(part, static_cast<size_t>(first))) parts.push_back(&part);
  const int width = vector_group_width(p, parts, last - 1);
  if (width == 1 || innermost % width != 0) return 1;
  std::string why;
  for (const LoopKernel* part : parts)
    for (const BodyOp& op : part->body)
      if (is_access(op) && moves_with_row(op, first, last) &&
          vector_access(p, op, last - 1, width, why) != VectorAccess::Contiguous)
        return 1;
  return width;
}

}  // namespace

HeldRow plan_held_row(const LoopProgram& p, const LoopKernel& k, const CudaTarget& target) {
  HeldRow h;
  const size_t n = k.loops.size();
  h.reason = shape_reason(p, k, n);
  if (!h.reason.empty()) return h;
  const std::vector<int64_t> row = row_of(k, n);
  const int first = static_cast<int>(n), last = first + static_cast<int>(row.size());
  std::set<std::string> stored;
  for (const LoopKernel& part : k.parts)
    for (const BodyOp& op : part.body)
      if (op.kind == BodyOp::Kind::Store) stored.insert(key_of(op));
  std::map<std::string, int> index_of;
  int arrays = 0;
  for (const LoopKernel& part : k.parts) {
    h.two_pass_m2.push_back(has_welford_m2(part));
    std::vector<int>& of = h.value_of.emplace_back(part.body.size(), -1);
    for (size_t i = 0; i < part.body.size(); ++i) {
      const BodyOp& op = part.body[i];
      if (!is_access(op)) continue;
      const bool moves = !is_scalar_part(part, n) && moves_with_row(op, first, last);
      const std::string key = key_of(op);
      if (!moves && !stored.count(key)) continue;  // a broadcast the kernel only reads: from memory
      auto [it, fresh] = index_of.try_emplace(key, static_cast<int>(h.values.size()));
      if (fresh) {
        h.values.push_back({.buffer = op.buffer,
                            .row = moves,
                            .load_first = op.kind == BodyOp::Kind::Load,
                            .store_to_memory = read_outside(p, k, op.buffer)});
        arrays += moves ? 1 : 0;
      }
      of[i] = it->second;
    }
  }
  const int64_t points = product(row);
  h.width = row_width(p, k, first, last, row.back());
  h.groups = points / h.width;
  int64_t rows = 1;
  for (int64_t e : k.loops) rows *= e;
  h.launch = held_row_launch(rows, h.groups, h.width, arrays, target);
  if (h.launch.groups_per_thread == 0) {
    h.reason = "a row of " + std::to_string(points) + " points in " + std::to_string(arrays) +
               " arrays needs more registers than " + std::to_string(kMaxBlockThreads) + " threads have";
    return h;
  }
  hold_recomputed(k, h);
  divide_by_reciprocals(k, h);
  return h;
}

}  // namespace kiln::cuda
