// The scheduler's row limit in bytes (lower/schedule.h's max_row_bytes, part_row_bytes): a
// part's row counts the bytes of each row buffer it loads at that buffer's dtype, not what every
// row reads alike nor a row's one-element statistics; the default keeps 32768 4-byte elements.
#include <gtest/gtest.h>

#include <string>

#include "ir/parser.h"
#include "lower/lower.h"

namespace kiln {
namespace {

std::string softmax(const std::string& dt, int64_t rows, int64_t n) {
  const std::string t = dt + "[" + std::to_string(rows) + "," + std::to_string(n) + "]";
  const std::string r = dt + "[" + std::to_string(rows) + ",1]";
  return "graph @sm(%x: " + t + ") -> (" + t + ") {\n %0 = amax(%x) {dim=[1], keepdim=true} : " + r +
         "\n %1 = sub(%x, %0) : " + t + "\n %2 = exp(%1) : " + t + "\n %3 = sum(%2) {dim=[1], keepdim=true} : " + r +
         "\n %4 = div(%2, %3) : " + t + "\n return %4\n}";
}

// layer_norm without its decomposition: the rows' mean and deviation, then weight and bias
// (the same [n] for every row).
std::string layer_norm(const std::string& dt, int64_t rows, int64_t n) {
  const std::string t = dt + "[" + std::to_string(rows) + "," + std::to_string(n) + "]";
  const std::string r = dt + "[" + std::to_string(rows) + ",1]", v = dt + "[" + std::to_string(n) + "]";
  return "graph @ln(%x: " + t + ", %w: " + v + ", %b: " + v + ") -> (" + t +
         ") {\n %0 = mean(%x) {dim=[1], keepdim=true} : " + r + "\n %1 = sub(%x, %0) : " + t +
         "\n %2 = mul(%1, %1) : " + t + "\n %3 = mean(%2) {dim=[1], keepdim=true} : " + r +
         "\n %4 = add(%3, 1e-5) : " + r + "\n %5 = rsqrt(%4) : " + r + "\n %6 = mul(%1, %5) : " + t +
         "\n %7 = mul(%6, %w) : " + t + "\n %8 = add(%7, %b) : " + t + "\n return %8\n}";
}

LoopProgram lowered(const std::string& text, int64_t max_row_bytes) {
  auto g = parse_graph(text);
  EXPECT_TRUE(g) << g.error().to_string();
  LowerOptions o;
  o.schedule.min_rows = 1;
  o.schedule.max_row_bytes = max_row_bytes;
  auto p = lower_graph(**g, o);
  EXPECT_TRUE(p) << p.error().to_string();
  return std::move(*p);
}

bool one_fused_kernel(const LoopProgram& p) { return p.kernels.size() == 1 && p.kernels[0].kind == KernelKind::Fused; }

TEST(ScheduleRowBytes, ARowOfBf16CountsTwoBytesAPoint) {
  // A softmax row of 50257 bf16 reads 100514 bytes a part: inside 131072; of f32, 201028: not.
  EXPECT_TRUE(one_fused_kernel(lowered(softmax("bf16", 8192, 50257), 131072)));
  EXPECT_FALSE(one_fused_kernel(lowered(softmax("f32", 8192, 50257), 131072)));
  EXPECT_FALSE(one_fused_kernel(lowered(softmax("bf16", 8192, 50257), 100513)));
  const LoopProgram p = lowered(softmax("bf16", 8192, 50257), 131072);
  for (const LoopKernel& part : p.kernels.at(0).parts) EXPECT_EQ(part_row_bytes(part, 1), 100514);
}

TEST(ScheduleRowBytes, WeightsAndRowStatisticsAreNotCounted) {
  // The last part loads x's row, the row's mean and deviation (an element each) and w and b
  // (what every row reads): only x's 2 bytes a point count.
  const LoopProgram p = lowered(layer_norm("bf16", 8192, 50257), 131072);
  ASSERT_TRUE(one_fused_kernel(p));
  EXPECT_EQ(part_row_bytes(p.kernels[0].parts.back(), 1), 100514);
}

TEST(ScheduleRowBytes, TheDefaultFusesRowsOf32768FourByteElements) {
  EXPECT_EQ(ScheduleOptions{}.max_row_bytes, 32768 * 4);
  EXPECT_TRUE(one_fused_kernel(lowered(softmax("f32", 64, 32768), ScheduleOptions{}.max_row_bytes)));
  EXPECT_FALSE(one_fused_kernel(lowered(softmax("f32", 64, 32769), ScheduleOptions{}.max_row_bytes)));
}

}  // namespace
}  // namespace kiln
