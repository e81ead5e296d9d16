// 0/1 knapsack solvers of the memory-budget partitioner (SPEC.md 5.2): choose which items
// (values the min cut would save) to keep saving, maximizing the runtime they save, with
// their total memory at most `capacity`. Memories are fractions of the memory range.
#pragma once

#include <span>
#include <vector>

namespace kiln::partitioning {

struct KnapsackChoice {
  double runtime = 0;             // total runtime of the chosen items
  std::vector<int> saved;         // chosen items, ascending
  std::vector<int> recomputable;  // the others, ascending
};

// Items in descending runtime/memory order while they fit (the reference's greedy_knapsack).
KnapsackChoice greedy_knapsack(std::span<const double> memory, std::span<const double> runtime, double capacity);

// The reference's dp_knapsack: memories quantized to 1/10000, exact 0/1 table.
class DpKnapsack {
 public:
  static constexpr int kScale = 10000;
  DpKnapsack(std::span<const double> memory, std::span<const double> runtime);
  // The optimal choice for any capacity in [0, 1], read from one table.
  KnapsackChoice solve(double capacity) const;

 private:
  std::vector<int> quantized_;
  std::vector<double> runtime_;
  int width_ = 0;              // capacities 0..width_-1
  std::vector<double> table_;  // (n + 1) x width_
};

}  // namespace kiln::partitioning
