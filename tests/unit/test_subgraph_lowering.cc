// LowerOptions::allowed_mutations (SPEC.md 4's approved list), which the command line does not
// expose: approval lifts only the buffer rule for the listed op; an approved op still needs a
// pointwise lowering. The accepted and rejected bodies are lit tests (tests/lit/lower/subgraph.kir).
#include <gtest/gtest.h>

#include <string>

#include "ir/parser.h"
#include "lower/lower.h"

namespace kiln {
namespace {

constexpr const char* kMapWithSum = R"(graph @g(%xs: f32[4,3]) -> (f32[4]) {
  %0 = map(%xs) {num_mapped=1} : f32[4] {
    body_fn = graph(%x: f32[3]) -> (f32[]) {
      %0 = sum(%x) : f32[]
      return %0
    }
  }
  return %0
})";

std::string lowering_error(const LowerOptions& options) {
  auto g = parse_graph(kMapWithSum);
  EXPECT_TRUE(g) << g.error().to_string();
  if (!g) return "";
  auto p = lower_graph(**g, options);
  EXPECT_FALSE(p);
  return p ? "" : p.error().to_string();
}

TEST(SubgraphLowering, BufferCreatingOpIsRejectedByDefault) {
  const std::string msg = lowering_error({});
  EXPECT_NE(msg.find("map: body_fn is not pointwise: 'sum' would create a buffer"), std::string::npos) << msg;
}

TEST(SubgraphLowering, ApprovalOfAnotherOpDoesNotApproveThisOne) {
  LowerOptions options;
  options.allowed_mutations = {OpKind::MulInplace};
  const std::string msg = lowering_error(options);
  EXPECT_NE(msg.find("'sum' would create a buffer"), std::string::npos) << msg;
}

TEST(SubgraphLowering, ApprovedOpStillNeedsAPointwiseLowering) {
  LowerOptions options;
  options.allowed_mutations = {OpKind::Sum};
  const std::string msg = lowering_error(options);
  EXPECT_NE(msg.find("map: body_fn is not pointwise: 'sum' is approved to create or mutate buffers but is not "
                     "supported in a subgraph (missing lowering)"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("%0 = map(%xs)"), std::string::npos) << msg;
}

}  // namespace
}  // namespace kiln
