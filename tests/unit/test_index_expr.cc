// Index expressions: floor division pulls out the multiples of the divisor; simplified()
// uses the loop extents to turn div/mod into affine terms, and checks itself by evaluation.
#include <gtest/gtest.h>

#include <vector>

#include "lower/index_expr.h"

namespace kiln {
namespace {

IndexExpr v(int i) { return IndexExpr::var(i); }
IndexExpr c(int64_t x) { return IndexExpr::constant_of(x); }

TEST(IndexExpr, FloorDivPullsOutMultiples) {
  // floor((16*i0 + i1 + 5) / 4) = 4*i0 + 1 + floor((i1 + 1) / 4)
  EXPECT_EQ(IndexExpr::floor_div(v(0).scaled(16).plus(v(1)).plus(c(5)), 4).to_string(), "4*i0 + div(i1 + 1, 4) + 1");
  EXPECT_EQ(IndexExpr::floor_div(v(0).scaled(-8).plus(c(-3)), 4).to_string(), "-2*i0 - 1");
}

TEST(IndexExpr, SimplifiedUsesExtents) {
  const std::vector<int64_t> ext = {4, 512, 1024};
  // div(524288*i0 + 1024*i1 + i2, 64), then mod 16, as a transpose-reshape composes them.
  const IndexExpr flat = v(0).scaled(524288).plus(v(1).scaled(1024)).plus(v(2));
  const IndexExpr e = IndexExpr::mod(IndexExpr::floor_div(flat, 64), 16);
  EXPECT_EQ(e.simplified(ext).to_string(), "div(i2, 64)");
  EXPECT_EQ(IndexExpr::mod(flat, 1024).simplified(ext).to_string(), "i2");
  EXPECT_EQ(IndexExpr::floor_div(v(1).scaled(1024).plus(v(2)), 1024).simplified(ext).to_string(), "i1");
  // A remainder that can reach the divisor stays.
  EXPECT_EQ(IndexExpr::floor_div(v(2), 1000).simplified(ext).to_string(), "div(i2, 1000)");
  // Unknown variables (past the extents) are left alone; extent-1 variables become 0.
  EXPECT_EQ(IndexExpr::mod(v(5), 4).simplified(ext).to_string(), "mod(i5, 4)");
  const std::vector<int64_t> unit = {1, 8};
  EXPECT_EQ(v(0).scaled(8).plus(v(1)).simplified(unit).to_string(), "i1");
}

TEST(IndexExpr, SimplifiedAgreesWithEvaluation) {
  const std::vector<int64_t> ext = {3, 5, 7};
  const IndexExpr flat = v(0).scaled(35).plus(v(1).scaled(7)).plus(v(2));
  const std::vector<IndexExpr> exprs = {IndexExpr::floor_div(flat, 7),
                                        IndexExpr::mod(flat, 7),
                                        IndexExpr::floor_div(flat, 5),
                                        IndexExpr::mod(IndexExpr::floor_div(flat, 7), 5),
                                        IndexExpr::floor_div(flat.plus(c(-3)), 4),
                                        IndexExpr::mod(v(2).scaled(-1).plus(c(2)), 3)};
  for (const IndexExpr& e : exprs) {
    const IndexExpr s = e.simplified(ext);
    for (int64_t a = 0; a < 3; ++a)
      for (int64_t b = 0; b < 5; ++b)
        for (int64_t d = 0; d < 7; ++d) {
          const std::vector<int64_t> at = {a, b, d};
          ASSERT_EQ(e.evaluate(at), s.evaluate(at)) << e.to_string() << " vs " << s.to_string();
        }
  }
}

}  // namespace
}  // namespace kiln
