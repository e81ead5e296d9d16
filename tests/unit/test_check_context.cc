// A failed internal check prints what the thread was working on (support/check.h's
// CheckContext), innermost first, so an abort in a long fuzz run names the seed at fault.
#include <gtest/gtest.h>

#include "support/check.h"

namespace kiln {
namespace {

void fail_inside_two_contexts() {
  const CheckContext outer("checking fuzz seed 12");
  const CheckContext inner("compiling kernel k3");
  KILN_CHECK(1 + 1 == 3) << "arithmetic";
}

TEST(CheckContextDeathTest, AFailedCheckNamesItsContextsInnermostFirst) {
  EXPECT_DEATH(fail_inside_two_contexts(),
               "check failed: 1 \\+ 1 == 3 arithmetic\n  while compiling kernel k3\n  while checking fuzz seed 12");
}

TEST(CheckContextDeathTest, AContextEndsWithItsScope) {
  auto fail_after_scope = [] {
    { const CheckContext done("an earlier case"); }
    KILN_CHECK(false) << "later";
  };
  EXPECT_DEATH({ fail_after_scope(); }, "check failed: false later\n$");
}

}  // namespace
}  // namespace kiln
