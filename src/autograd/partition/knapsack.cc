#include "autograd/partition/knapsack.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace kiln::partitioning {

namespace {

KnapsackChoice split(std::vector<bool> chosen, std::span<const double> runtime) {
  KnapsackChoice c;
  for (size_t i = 0; i < chosen.size(); ++i) {
    if (chosen[i]) {
      c.saved.push_back(static_cast<int>(i));
      c.runtime += runtime[i];
    } else {
      c.recomputable.push_back(static_cast<int>(i));
    }
  }
  return c;
}

}  // namespace

KnapsackChoice greedy_knapsack(std::span<const double> memory, std::span<const double> runtime, double capacity) {
  std::vector<int> order(memory.size());
  std::iota(order.begin(), order.end(), 0);
  const auto ratio = [&](int i) {
    const size_t k = static_cast<size_t>(i);
    return memory[k] > 0 ? runtime[k] / memory[k] : HUGE_VAL;
  };
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return ratio(a) > ratio(b); });
  std::vector<bool> chosen(memory.size(), false);
  double used = 0;
  for (int i : order) {
    const size_t k = static_cast<size_t>(i);
    if (used + memory[k] <= capacity) {
      used += memory[k];
      chosen[k] = true;
    }
  }
  return split(std::move(chosen), runtime);
}

DpKnapsack::DpKnapsack(std::span<const double> memory, std::span<const double> runtime)
    : runtime_(runtime.begin(), runtime.end()), width_(kScale + 1) {
  for (double m : memory) quantized_.push_back(static_cast<int>(std::lround(m * kScale)));
  const size_t n = quantized_.size(), w = static_cast<size_t>(width_);
  table_.assign((n + 1) * w, 0.0);
  for (size_t i = 1; i <= n; ++i) {
    const double* prev = &table_[(i - 1) * w];
    double* row = &table_[i * w];
    const int q = quantized_[i - 1];
    for (size_t j = 0; j < w; ++j) {
      row[j] = prev[j];
      if (q <= 0) {
        row[j] = prev[j] + runtime_[i - 1];
      } else if (j >= static_cast<size_t>(q)) {
        row[j] = std::max(prev[j], prev[j - static_cast<size_t>(q)] + runtime_[i - 1]);
      }
    }
  }
}

KnapsackChoice DpKnapsack::solve(double capacity) const {
  const size_t w = static_cast<size_t>(width_), n = quantized_.size();
  long j = std::clamp(std::lround(capacity * kScale), 0L, static_cast<long>(w) - 1);
  std::vector<bool> chosen(n, false);
  for (size_t i = n; i > 0; --i) {
    if (table_[i * w + static_cast<size_t>(j)] != table_[(i - 1) * w + static_cast<size_t>(j)]) {
      chosen[i - 1] = true;
      j -= std::max(quantized_[i - 1], 0);
    }
  }
  return split(std::move(chosen), runtime_);
}

}  // namespace kiln::partitioning
