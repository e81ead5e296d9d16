// Which scan kernels may run their rows in parallel (codegen/cpp/cpp_schedule.h,
// scan_rows_independent): the innermost loop stays in order; the rows may not share an element
// that one of them writes.
#include <gtest/gtest.h>

#include <string>

#include "codegen/cpp/cpp_schedule.h"
#include "lower/loop_text.h"

namespace kiln {
namespace {

// A scan kernel over [4, 5] whose body is `body` (buffers %x: f32[4,5], %c: f64[4],
// %o: f32[4,5], %p: f32[5]).
bool rows_independent(const std::string& body) {
  const std::string text =
      "loops @s(%x: f32[4,5]) -> (%o) {\n  buffer %c : f64[4] strides [1]\n"
      "  buffer %o : f32[4,5] strides [5,1]\n  buffer %p : f32[5] strides [1]\n"
      "  kernel @k0 scan {\n    for i0 in range(4) {\n      for i1 in range(5) {\n" +
      body + "      }\n    }\n  }\n}\n";
  auto p = parse_loops(text);
  EXPECT_TRUE(p) << p.error().to_string() << "\n" << text;
  return p && cpp::scan_rows_independent(p->kernels.at(0));
}

TEST(CppScanSchedule, CarriedRowsAreIndependent) {
  // cumsum's form: the carry loaded and stored at one index of the row, the output per step.
  EXPECT_TRUE(
      rows_independent("        %0 = load %c[i0]\n        %1 = load %x[5*i0 + i1]\n        %2 = cast %1 : f64\n"
                       "        %3 = add %0, %2 : f64\n        store %c[i0], %3\n        store %o[5*i0 + i1], %3\n"));
}

TEST(CppScanSchedule, SharedOrReadBackElementsAreNot) {
  // Every row writes the same carry element.
  EXPECT_FALSE(
      rows_independent("        %0 = load %c[0]\n        %1 = cast %0 : f32\n        store %c[0], %0\n"
                       "        store %o[5*i0 + i1], %1\n"));
  // Rows write overlapping outputs (i0 + i1).
  EXPECT_FALSE(rows_independent("        %0 = load %x[5*i0 + i1]\n        store %o[i0 + i1], %0\n"));
  // A step reads an output an earlier step stored (not at its own index).
  EXPECT_FALSE(rows_independent("        %0 = load %o[5*i0]\n        store %o[5*i0 + i1], %0\n"));
  // A per-step output read back at its own index is not a carry.
  EXPECT_FALSE(rows_independent("        %0 = load %o[5*i0 + i1]\n        store %o[5*i0 + i1], %0\n"));
  // A carry per step of the innermost loop only (%p[i1]) is shared by the rows.
  EXPECT_FALSE(rows_independent("        %0 = load %p[i1]\n        store %p[i1], %0\n"));
}

}  // namespace
}  // namespace kiln
