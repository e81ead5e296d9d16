#include "lower/memory_plan.h"

#include <algorithm>
#include <set>

namespace kiln {

namespace {

int64_t bytes_of(const Buffer& b) { return b.storage_size() * dtype_size(b.dtype); }

int64_t aligned(int64_t n) { return (n + MemoryPlan::kAlignment - 1) / MemoryPlan::kAlignment * MemoryPlan::kAlignment; }

struct Lifetime {
  int first = -1, last = -1;  // kernels; -1: never touched
  bool overlaps(const Lifetime& o) const { return first <= o.last && o.first <= last; }
};

}  // namespace

MemoryPlan plan_memory(const LoopProgram& p) {
  const size_t n = p.buffers.size();
  MemoryPlan plan;
  plan.offset.assign(n, -1);
  std::vector<Lifetime> life(n);
  for (size_t k = 0; k < p.kernels.size(); ++k) {
    std::set<int> touched = kernel_buffers_read(p.kernels[k]);
    for (int b : kernel_buffers_written(p.kernels[k])) touched.insert(b);
    for (int b : touched) {
      Lifetime& l = life[static_cast<size_t>(b)];
      if (l.first < 0) l.first = static_cast<int>(k);
      l.last = static_cast<int>(k);
    }
  }
  std::vector<int> temps;
  for (size_t b = 0; b < n; ++b) {
    const Buffer& buf = p.buffers[b];
    if (buf.kind == BufferKind::Input) plan.input_bytes += bytes_of(buf);
    if (buf.kind == BufferKind::Output) plan.output_bytes += bytes_of(buf);
    if (buf.kind != BufferKind::Temp) continue;
    plan.temp_bytes += bytes_of(buf);
    if (life[b].first < 0) life[b] = {0, 0};  // never touched: still gets (unused) room
    temps.push_back(static_cast<int>(b));
  }
  std::stable_sort(temps.begin(), temps.end(), [&](int a, int b) {
    return bytes_of(p.buffers[static_cast<size_t>(a)]) > bytes_of(p.buffers[static_cast<size_t>(b)]);
  });
  std::vector<int> placed;
  for (int t : temps) {
    const int64_t size = aligned(std::max<int64_t>(1, bytes_of(p.buffers[static_cast<size_t>(t)])));
    // Intervals [offset, offset + size) taken during t's lifetime, by offset.
    std::vector<std::pair<int64_t, int64_t>> taken;
    for (int q : placed)
      if (life[static_cast<size_t>(q)].overlaps(life[static_cast<size_t>(t)]))
        taken.emplace_back(plan.offset[static_cast<size_t>(q)],
                           plan.offset[static_cast<size_t>(q)] +
                               aligned(std::max<int64_t>(1, bytes_of(p.buffers[static_cast<size_t>(q)]))));
    std::sort(taken.begin(), taken.end());
    int64_t at = 0;
    for (const auto& [lo, hi] : taken) {
      if (at + size <= lo) break;
      at = std::max(at, hi);
    }
    plan.offset[static_cast<size_t>(t)] = at;
    plan.arena_bytes = std::max(plan.arena_bytes, at + size);
    placed.push_back(t);
  }
  plan.live_bytes.assign(p.kernels.size(), 0);
  for (size_t b = 0; b < n; ++b) {
    const Buffer& buf = p.buffers[b];
    if (buf.kind == BufferKind::Input || life[b].first < 0) continue;
    const int last = buf.kind == BufferKind::Output ? static_cast<int>(p.kernels.size()) - 1 : life[b].last;
    for (int k = life[b].first; k <= last; ++k) plan.live_bytes[static_cast<size_t>(k)] += bytes_of(buf);
  }
  return plan;
}

}  // namespace kiln
