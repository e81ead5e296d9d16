// Memory planning: temporaries whose lifetimes do not overlap share bytes of the arena, those
// that do never do, and the planned peak counts inputs, outputs and the arena.
#include <gtest/gtest.h>

#include "ir/parser.h"
#include "lower/lower.h"
#include "lower/memory_plan.h"

namespace kiln {
namespace {

LoopProgram unfused(const char* text) {
  auto g = parse_graph(text);
  EXPECT_TRUE(g) << g.error().to_string();
  auto p = lower_graph(**g, LowerOptions{.fuse = false});
  EXPECT_TRUE(p) << p.error().to_string();
  return std::move(*p);
}

TEST(MemoryPlan, ReusesBytesOfDeadTemporaries) {
  // A chain: t0 = exp(x), t1 = neg(t0), t2 = sin(t1), out = cos(t2): t0 dies when t1 is
  // made, so t2 can take its place; t1 overlaps both.
  const LoopProgram p = unfused(
      "graph @g(%x: f32[1024]) -> (f32[1024]) {\n %0 = exp(%x) : f32[1024]\n %1 = neg(%0) : f32[1024]\n"
      " %2 = sin(%1) : f32[1024]\n %3 = cos(%2) : f32[1024]\n return %3\n}");
  const MemoryPlan plan = plan_memory(p);
  const int t0 = p.find_buffer("t0"), t1 = p.find_buffer("t1"), t2 = p.find_buffer("t2");
  ASSERT_GE(t0, 0);
  ASSERT_GE(t2, 0);
  EXPECT_EQ(plan.temp_bytes, 3 * 4096);
  EXPECT_EQ(plan.arena_bytes, 2 * 4096);
  EXPECT_EQ(plan.offset[static_cast<size_t>(t0)], plan.offset[static_cast<size_t>(t2)]);
  EXPECT_NE(plan.offset[static_cast<size_t>(t0)], plan.offset[static_cast<size_t>(t1)]);
  EXPECT_EQ(plan.offset[static_cast<size_t>(p.find_buffer("x"))], -1);
  EXPECT_EQ(plan.peak_bytes(), 4096 + 4096 + 2 * 4096);
  ASSERT_EQ(plan.live_bytes.size(), p.kernels.size());
  EXPECT_EQ(plan.live_bytes.front(), 4096);        // t0 only: the output is written last
  EXPECT_EQ(plan.live_bytes.back(), 4096 + 4096);  // t2 and the output
}

TEST(MemoryPlan, OverlappingLifetimesNeverShare) {
  // Both temporaries are read by the last kernel: all live together, all placed apart and
  // aligned to 64 bytes (10 floats take 64).
  const LoopProgram p = unfused(
      "graph @g(%x: f32[10]) -> (f32[10]) {\n %0 = exp(%x) : f32[10]\n %1 = neg(%x) : f32[10]\n"
      " %2 = add(%0, %1) : f32[10]\n return %2\n}");
  const MemoryPlan plan = plan_memory(p);
  const int64_t a = plan.offset[static_cast<size_t>(p.find_buffer("t0"))];
  const int64_t b = plan.offset[static_cast<size_t>(p.find_buffer("t1"))];
  EXPECT_NE(a, b);
  EXPECT_EQ(a % MemoryPlan::kAlignment, 0);
  EXPECT_EQ(b % MemoryPlan::kAlignment, 0);
  EXPECT_EQ(plan.arena_bytes, 128);
}

}  // namespace
}  // namespace kiln
