#include "autograd/partition/max_flow.h"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/boykov_kolmogorov_max_flow.hpp>
#include <cmath>
#include <cstdint>
#include <deque>

#include "support/check.h"

namespace kiln::partitioning {

namespace {

inline constexpr Capacity kMaxFiniteCapacity = 1e300;

}  // namespace

void FlowNetwork::add_edge(int from, int to, Capacity capacity) {
  KILN_CHECK(from >= 0 && from < num_vertices() && to >= 0 && to < num_vertices()) << "add_edge: no such vertex";
  KILN_CHECK(capacity >= 0) << "add_edge: negative capacity " << capacity;
  edges_.push_back({from, to, capacity == kInfiniteCapacity ? capacity : std::min(capacity, kMaxFiniteCapacity)});
}

std::vector<int> infinite_path(const FlowNetwork& net, int source, int sink) {
  std::vector<std::vector<int>> out(static_cast<size_t>(net.num_vertices()));
  for (const FlowNetwork::Edge& e : net.edges())
    if (e.capacity == kInfiniteCapacity) out[static_cast<size_t>(e.from)].push_back(e.to);
  std::vector<int> parent(static_cast<size_t>(net.num_vertices()), -1);
  std::deque<int> queue = {source};
  parent[static_cast<size_t>(source)] = source;
  while (!queue.empty()) {
    const int v = queue.front();
    queue.pop_front();
    if (v == sink) break;
    for (int w : out[static_cast<size_t>(v)])
      if (parent[static_cast<size_t>(w)] < 0) {
        parent[static_cast<size_t>(w)] = v;
        queue.push_back(w);
      }
  }
  if (parent[static_cast<size_t>(sink)] < 0) return {};
  std::vector<int> path = {sink};
  while (path.back() != source) path.push_back(parent[static_cast<size_t>(path.back())]);
  return {path.rbegin(), path.rend()};
}

namespace {

// The solver's integers. Finite capacities sum to at most about kFiniteTotal, so no flow,
// residual or reverse residual passes kSolverInfinite + kFiniteTotal < 2^63.
using SolverCapacity = int64_t;
inline constexpr SolverCapacity kSolverInfinite = SolverCapacity{1} << 62;
inline constexpr double kFiniteTotal = 0x1p61;

// What finite capacities are divided by before they are truncated: 1 unless their sum
// passes kFiniteTotal.
double capacity_scale(const FlowNetwork& net) {
  double total = 0;
  for (const FlowNetwork::Edge& e : net.edges())
    if (e.capacity != kInfiniteCapacity) total += e.capacity;
  return std::max(1.0, total / kFiniteTotal);
}

// A positive capacity stays positive, so a value that costs something never looks free.
SolverCapacity solver_capacity(Capacity c, double scale) {
  if (c == kInfiniteCapacity) return kSolverInfinite;
  if (c <= 0) return 0;
  return std::max(SolverCapacity{1}, static_cast<SolverCapacity>(std::floor(c / scale)));
}

using Traits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
using BoostGraph = boost::adjacency_list<
    boost::vecS, boost::vecS, boost::directedS,
    boost::property<
        boost::vertex_index_t, long,
        boost::property<boost::vertex_color_t, boost::default_color_type,
                        boost::property<boost::vertex_distance_t, long,
                                        boost::property<boost::vertex_predecessor_t, Traits::edge_descriptor>>>>,
    boost::property<boost::edge_capacity_t, SolverCapacity,
                    boost::property<boost::edge_residual_capacity_t, SolverCapacity,
                                    boost::property<boost::edge_reverse_t, Traits::edge_descriptor>>>>;

}  // namespace

MinCut minimum_cut(const FlowNetwork& net, int source, int sink) {
  KILN_CHECK(infinite_path(net, source, sink).empty()) << "minimum_cut: every cut is infinite";
  const size_t n = static_cast<size_t>(net.num_vertices());
  const double scale = capacity_scale(net);
  BoostGraph g(n);
  auto capacity = boost::get(boost::edge_capacity, g);
  auto residual = boost::get(boost::edge_residual_capacity, g);
  auto reverse = boost::get(boost::edge_reverse, g);
  std::vector<Traits::edge_descriptor> forward_edges;
  forward_edges.reserve(net.edges().size());
  for (const FlowNetwork::Edge& e : net.edges()) {
    auto [fwd, ok1] = boost::add_edge(static_cast<size_t>(e.from), static_cast<size_t>(e.to), g);
    auto [rev, ok2] = boost::add_edge(static_cast<size_t>(e.to), static_cast<size_t>(e.from), g);
    KILN_CHECK(ok1 && ok2) << "min-cut: parallel edges are allowed in a vecS graph";
    capacity[fwd] = solver_capacity(e.capacity, scale);
    capacity[rev] = 0;
    reverse[fwd] = rev;
    reverse[rev] = fwd;
    forward_edges.push_back(fwd);
  }
  MinCut cut;
  const SolverCapacity flow =
      boost::boykov_kolmogorov_max_flow(g, static_cast<size_t>(source), static_cast<size_t>(sink));
  cut.value = static_cast<double>(flow) * scale;

  // Source side: reachable from the source over edges with residual capacity left.
  cut.source_side.assign(n, false);
  std::deque<size_t> queue = {static_cast<size_t>(source)};
  cut.source_side[static_cast<size_t>(source)] = true;
  while (!queue.empty()) {
    const size_t v = queue.front();
    queue.pop_front();
    for (auto [it, end] = boost::out_edges(v, g); it != end; ++it) {
      const size_t w = boost::target(*it, g);
      if (residual[*it] > 0 && !cut.source_side[w]) {
        cut.source_side[w] = true;
        queue.push_back(w);
      }
    }
  }
  for (size_t i = 0; i < net.edges().size(); ++i) {
    const FlowNetwork::Edge& e = net.edges()[i];
    if (cut.source_side[static_cast<size_t>(e.from)] && !cut.source_side[static_cast<size_t>(e.to)])
      cut.cut_edges.push_back(static_cast<int>(i));
  }
  return cut;
}

}  // namespace kiln::partitioning
