// The memory-budget knapsack solvers: the DP finds the best subset (checked against brute
// force on random instances whose memories are exact multiples of its 1/10000 grid), one
// table answers every capacity, and greedy takes the best runtime per memory first.
#include <gtest/gtest.h>

#include <random>

#include "autograd/partition/knapsack.h"

namespace kiln::partitioning {
namespace {

double brute_force_best(const std::vector<double>& memory, const std::vector<double>& runtime, double capacity) {
  double best = 0;
  for (uint32_t mask = 0; mask < (1u << memory.size()); ++mask) {
    double m = 0, r = 0;
    for (size_t i = 0; i < memory.size(); ++i)
      if ((mask >> i) & 1u) {
        m += memory[i];
        r += runtime[i];
      }
    if (m <= capacity + 1e-12) best = std::max(best, r);
  }
  return best;
}

TEST(Knapsack, DynamicProgrammingIsOptimal) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 100; ++trial) {
    const size_t n = 1 + rng() % 9;
    std::vector<double> memory, runtime;
    for (size_t i = 0; i < n; ++i) {
      memory.push_back(static_cast<double>(rng() % 4000) / DpKnapsack::kScale);
      runtime.push_back(1 + static_cast<double>(rng() % 1000));
    }
    const DpKnapsack dp(memory, runtime);
    for (double capacity : {0.0, 0.1, 0.25, 0.5, 1.0}) {
      const KnapsackChoice c = dp.solve(capacity);
      double m = 0;
      for (int i : c.saved) m += memory[static_cast<size_t>(i)];
      EXPECT_LE(m, capacity + 1e-9);
      EXPECT_DOUBLE_EQ(c.runtime, brute_force_best(memory, runtime, capacity)) << "trial " << trial;
      EXPECT_EQ(c.saved.size() + c.recomputable.size(), n);
    }
  }
}

TEST(Knapsack, GreedyTakesTheBestRatioFirst) {
  // Ratios: 10/0.5 = 20, 9/0.3 = 30, 4/0.4 = 10. Capacity 0.8 takes items 1 then 0.
  const std::vector<double> memory = {0.5, 0.3, 0.4}, runtime = {10, 9, 4};
  const KnapsackChoice c = greedy_knapsack(memory, runtime, 0.8);
  EXPECT_EQ(c.saved, (std::vector<int>{0, 1}));
  EXPECT_EQ(c.recomputable, (std::vector<int>{2}));
  EXPECT_DOUBLE_EQ(c.runtime, 19);
  // A zero-memory item always fits.
  const KnapsackChoice z = greedy_knapsack(std::vector<double>{0.0, 2.0}, std::vector<double>{1, 5}, 0.0);
  EXPECT_EQ(z.saved, (std::vector<int>{0}));
}

}  // namespace
}  // namespace kiln::partitioning
