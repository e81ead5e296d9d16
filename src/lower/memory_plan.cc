#include "lower/memory_plan.h"

#include <algorithm>
#include <set>

#include "lower/loop_control.h"

namespace kiln {

namespace {

int64_t bytes_of(const Buffer& b) { return b.storage_size() * dtype_size(b.dtype); }

int64_t aligned(int64_t n, int64_t alignment) { return (n + alignment - 1) / alignment * alignment; }

struct Lifetime {
  int first = -1, last = -1;  // kernels (flat indices, loop_control.h); -1: never touched
  bool overlaps(const Lifetime& o) const { return first <= o.last && o.first <= last; }
  void cover(const Lifetime& o) {
    first = first < 0 ? o.first : std::min(first, o.first);
    last = std::max(last, o.last);
  }
};

// The buffers kernel `k` touches itself: a control kernel's predicate, carried and next
// buffers; any other kernel's reads and writes.
std::set<int> touched_by(const LoopKernel& k) {
  if (is_control_kernel(k)) return control_buffers(k);
  std::set<int> touched = kernel_buffers_read(k);
  for (int b : kernel_buffers_written(k)) touched.insert(b);
  return touched;
}

// A while loop's regions run again and again (loop_control.h): a buffer live when the loop
// starts or after it ends, or one the while kernel itself names (its predicate, carried and
// next buffers), must keep its bytes through every iteration, so its lifetime covers the whole
// loop; a carried buffer and its next buffer exchange bytes, so they share one lifetime.
// Repeated until nothing changes (loops nest).
void cover_loops(const std::vector<const LoopKernel*>& flat, const std::vector<int>& ends,
                 std::vector<Lifetime>& life) {
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t w = 0; w < flat.size(); ++w) {
      const LoopKernel& k = *flat[w];
      if (k.kind != KernelKind::While) continue;
      const Lifetime loop{static_cast<int>(w), ends[w] - 1};
      const std::set<int> own = control_buffers(k);
      for (size_t b = 0; b < life.size(); ++b) {
        Lifetime& l = life[b];
        if (l.first < 0 || !l.overlaps(loop)) continue;
        if (!own.count(static_cast<int>(b)) && l.first >= loop.first && l.last <= loop.last) continue;
        const Lifetime before = l;
        l.cover(loop);
        changed = changed || l.first != before.first || l.last != before.last;
      }
      for (size_t i = 0; i < k.carried.size(); ++i) {
        Lifetime& c = life[static_cast<size_t>(k.carried[i])];
        Lifetime& n = life[static_cast<size_t>(k.next[i])];
        const Lifetime before = c;
        c.cover(n);
        n = c;
        changed = changed || c.first != before.first || c.last != before.last;
      }
    }
  }
}

}  // namespace

MemoryPlan plan_memory(const LoopProgram& p, int64_t alignment) {
  const size_t n = p.buffers.size();
  MemoryPlan plan;
  plan.offset.assign(n, -1);
  std::vector<Lifetime> life(n);
  const std::vector<const LoopKernel*> flat = flat_kernels(p);
  const std::vector<int> ends = flat_kernel_ends(p);
  for (size_t k = 0; k < flat.size(); ++k) {
    for (int b : touched_by(*flat[k])) {
      Lifetime& l = life[static_cast<size_t>(b)];
      if (l.first < 0) l.first = static_cast<int>(k);
      l.last = static_cast<int>(k);
    }
  }
  cover_loops(flat, ends, life);
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
    const int64_t size = aligned(std::max<int64_t>(1, bytes_of(p.buffers[static_cast<size_t>(t)])), alignment);
    // Intervals [offset, offset + size) taken during t's lifetime, by offset.
    std::vector<std::pair<int64_t, int64_t>> taken;
    for (int q : placed)
      if (life[static_cast<size_t>(q)].overlaps(life[static_cast<size_t>(t)]))
        taken.emplace_back(plan.offset[static_cast<size_t>(q)],
                           plan.offset[static_cast<size_t>(q)] +
                               aligned(std::max<int64_t>(1, bytes_of(p.buffers[static_cast<size_t>(q)])), alignment));
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
  std::vector<int64_t> live(flat.size(), 0);
  for (size_t b = 0; b < n; ++b) {
    const Buffer& buf = p.buffers[b];
    if (buf.kind == BufferKind::Input || life[b].first < 0) continue;
    const int last = buf.kind == BufferKind::Output ? static_cast<int>(flat.size()) - 1 : life[b].last;
    for (int k = life[b].first; k <= last; ++k) live[static_cast<size_t>(k)] += bytes_of(buf);
  }
  // Per kernel of p.kernels: a control kernel holds the most that any kernel of its regions does.
  for (size_t f = 0; f < flat.size(); f = static_cast<size_t>(ends[f]))
    plan.live_bytes.push_back(*std::max_element(live.begin() + static_cast<std::ptrdiff_t>(f),
                                                live.begin() + static_cast<std::ptrdiff_t>(ends[f])));
  return plan;
}

}  // namespace kiln
