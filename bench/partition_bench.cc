// Partitioning the transformer block of the autograd acceptance tests (batch 4, sequence
// 512, width 1024, 16 heads): how long building the joint graph and each partition takes,
// median of repeated runs, with each partition's time as a ratio of the default partition's.
// The acceptance line: min-cut (budget 1) under 100 ms.
//
//     build/bench/kiln_bench_partition [runs]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "autograd/joint_graph.h"
#include "autograd/partition.h"
#include "transformer_block.h"

namespace {

using Clock = std::chrono::steady_clock;

double median_ms(int runs, const std::function<void()>& fn) {
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) {
    const auto start = Clock::now();
    fn();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  std::ranges::sort(ms);
  return ms[ms.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 21;
  const kiln::test_models::TransformerBlockConfig config;
  auto block = kiln::test_models::capture_transformer_block(config);
  if (!block) {
    std::fprintf(stderr, "%s\n", block.error().to_string().c_str());
    return 1;
  }
  auto joint = kiln::joint_graph(*block->graph);
  if (!joint) {
    std::fprintf(stderr, "%s\n", joint.error().to_string().c_str());
    return 1;
  }
  std::printf("transformer block: batch %lld, seq %lld, width %lld, heads %lld; joint graph of %zu nodes; %d runs\n\n",
              static_cast<long long>(config.batch), static_cast<long long>(config.seq),
              static_cast<long long>(config.width), static_cast<long long>(config.heads), joint->graph->nodes().size(),
              runs);

  struct Row {
    std::string name;
    double ms;
    int64_t saved_bytes;
  };
  std::vector<Row> rows;
  rows.push_back({"joint_graph", median_ms(runs, [&] { (void)kiln::joint_graph(*block->graph); }), -1});
  const auto time_partition = [&](const std::string& name, const kiln::PartitionOptions& options) {
    int64_t bytes = 0;
    const double ms = median_ms(runs, [&] {
      auto p = kiln::partition(*joint, options);
      if (!p) {
        std::fprintf(stderr, "%s\n", p.error().to_string().c_str());
        std::exit(1);
      }
      bytes = p->saved_bytes;
    });
    rows.push_back({name, ms, bytes});
  };
  time_partition("default", {.kind = kiln::PartitionKind::Default});
  time_partition("min-cut budget 1", {});
  time_partition("min-cut budget 0.5 dp", {.memory_budget = 0.5});
  time_partition("min-cut budget 0.5 greedy", {.memory_budget = 0.5, .solver = kiln::KnapsackSolver::Greedy});
  time_partition("min-cut budget 0", {.memory_budget = 0});

  const double default_ms = rows[1].ms;
  std::printf("%-28s %12s %14s %16s\n", "stage", "median ms", "x default", "saved bytes");
  for (const Row& r : rows)
    std::printf("%-28s %12.2f %14.2f %16s\n", r.name.c_str(), r.ms, r.ms / default_ms,
                r.saved_bytes < 0 ? "-" : std::to_string(r.saved_bytes).c_str());
  const double min_cut_ms = rows[2].ms;
  std::printf("\nmin-cut (budget 1) partition: %.2f ms (acceptance: < 100 ms): %s\n", min_cut_ms,
              min_cut_ms < 100 ? "ok" : "TOO SLOW");
  return min_cut_ms < 100 ? 0 : 1;
}
