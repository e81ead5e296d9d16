// The partitioner's max-flow / min-cut (Boost's Boykov-Kolmogorov) against brute force: on
// random small networks the cut value equals the cheapest of all 2^(n-2) source/sink splits,
// and the reported cut edges add up to it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>

#include "autograd/partition/max_flow.h"

namespace kiln::partitioning {
namespace {

Capacity brute_force_min_cut(const FlowNetwork& net, int source, int sink) {
  const int n = net.num_vertices();
  Capacity best = kInfiniteCapacity;
  for (uint32_t mask = 0; mask < (1u << n); ++mask) {
    const auto on_source_side = [&](int v) { return ((mask >> v) & 1u) != 0; };
    if (!on_source_side(source) || on_source_side(sink)) continue;
    Capacity value = 0;
    for (const FlowNetwork::Edge& e : net.edges())
      if (on_source_side(e.from) && !on_source_side(e.to)) value += e.capacity;
    best = std::min(best, value);
  }
  return best;
}

// `n` vertices and up to `edges` edges between random distinct ends, of capacity `capacity()`.
template <typename CapacityFn>
FlowNetwork random_network(std::mt19937& rng, int n, int edges, CapacityFn capacity) {
  FlowNetwork net;
  for (int v = 0; v < n; ++v) net.add_vertex();
  for (int e = 0; e < edges; ++e) {
    const int a = static_cast<int>(rng() % static_cast<uint32_t>(n)),
              b = static_cast<int>(rng() % static_cast<uint32_t>(n));
    if (a != b) net.add_edge(a, b, capacity());
  }
  return net;
}

TEST(MaxFlow, MatchesBruteForceOnRandomNetworks) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    const int n = 3 + static_cast<int>(rng() % 6);
    const FlowNetwork net = random_network(rng, n, static_cast<int>(rng() % static_cast<uint32_t>(3 * n)), [&] {
      return rng() % 8 == 0 ? kInfiniteCapacity : static_cast<Capacity>(rng() % 100);
    });
    const Capacity expected = brute_force_min_cut(net, 0, n - 1);
    if (expected == kInfiniteCapacity) {
      EXPECT_FALSE(infinite_path(net, 0, n - 1).empty()) << "trial " << trial;
      continue;
    }
    ASSERT_TRUE(infinite_path(net, 0, n - 1).empty()) << "trial " << trial;
    const MinCut cut = minimum_cut(net, 0, n - 1);
    EXPECT_EQ(cut.value, expected) << "trial " << trial;
    Capacity cut_sum = 0;
    for (int e : cut.cut_edges) cut_sum += net.edges()[static_cast<size_t>(e)].capacity;
    EXPECT_EQ(cut_sum, expected) << "trial " << trial;
    EXPECT_TRUE(cut.source_side[0]);
    EXPECT_FALSE(cut.source_side[static_cast<size_t>(n - 1)]);
  }
}

// Byte weights past int64 (a size typo makes values of 1e22 bytes): the solver scales them
// into its integers, and the cut it finds costs what the cheapest split costs, up to one
// rounding unit (the sum of the finite capacities / 2^61) per edge.
TEST(MaxFlow, FindsTheMinimumCutWhenCapacitiesPassInt64) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 300; ++trial) {
    const int n = 3 + static_cast<int>(rng() % 6);
    // Mostly huge, some small beside them, some infinite.
    const FlowNetwork net = random_network(rng, n, 3 * n, [&] {
      const uint32_t kind = rng() % 8;
      return kind == 0   ? kInfiniteCapacity
             : kind == 1 ? static_cast<Capacity>(rng() % 100)
                         : static_cast<Capacity>(1 + rng() % 100) * 1e22;
    });
    const Capacity expected = brute_force_min_cut(net, 0, n - 1);
    if (expected == kInfiniteCapacity) continue;
    Capacity total = 0;
    for (const FlowNetwork::Edge& e : net.edges())
      if (e.capacity != kInfiniteCapacity) total += e.capacity;
    const double rounding = static_cast<double>(net.edges().size()) * std::max(1.0, total / 0x1p61) + expected * 1e-12;
    const MinCut cut = minimum_cut(net, 0, n - 1);
    Capacity cut_sum = 0;
    for (int e : cut.cut_edges) cut_sum += net.edges()[static_cast<size_t>(e)].capacity;
    EXPECT_NEAR(cut_sum, expected, rounding) << "trial " << trial;
    EXPECT_NEAR(cut.value, expected, rounding) << "trial " << trial;
  }
}

TEST(MaxFlow, FindsAPathOfInfiniteEdges) {
  FlowNetwork net;
  for (int v = 0; v < 4; ++v) net.add_vertex();
  net.add_edge(0, 1, kInfiniteCapacity);
  net.add_edge(1, 2, 5);
  net.add_edge(1, 3, kInfiniteCapacity);
  net.add_edge(2, 3, kInfiniteCapacity);
  EXPECT_EQ(infinite_path(net, 0, 3), (std::vector<int>{0, 1, 3}));
}

}  // namespace
}  // namespace kiln::partitioning
