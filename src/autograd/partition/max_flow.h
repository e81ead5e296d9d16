// A flow network and its minimum s-t cut, for the min-cut partitioner (min_cut.h). The
// solver is Boost.Graph's Boykov-Kolmogorov max-flow, kept inside max_flow.cc so only one
// translation unit pays for its templates.
#pragma once

#include <limits>
#include <vector>

namespace kiln::partitioning {

// Capacities are byte weights of any size (a size typo or many symbolic dims make values of
// 1e22 bytes), or kInfiniteCapacity for an edge no cut may take. The solver works on
// integers, as the reference does (weights are int(bytes * 1.1^dist)), so that its residual
// network is exact: each finite capacity is truncated, after all of them are divided by one
// factor when their sum would pass int64's exact range. A cut is then minimal up to that
// rounding, and capacities that are integers summing to less than 2^61 stay exact.
using Capacity = double;
inline constexpr Capacity kInfiniteCapacity = std::numeric_limits<double>::infinity();

class FlowNetwork {
 public:
  // Vertices are numbered from 0 in creation order.
  int add_vertex() { return num_vertices_++; }
  // `capacity` >= 0; finite ones past 1e300 count as 1e300.
  void add_edge(int from, int to, Capacity capacity);
  int num_vertices() const { return num_vertices_; }

  struct Edge {
    int from, to;
    Capacity capacity;
  };
  const std::vector<Edge>& edges() const { return edges_; }

 private:
  int num_vertices_ = 0;
  std::vector<Edge> edges_;
};

struct MinCut {
  Capacity value = 0;
  // source_side[v]: v is reachable from the source in the residual network.
  std::vector<bool> source_side;
  // The edges (indices into FlowNetwork::edges()) from the source side to the sink side.
  std::vector<int> cut_edges;
};

// A path of infinite-capacity edges from source to sink (then every cut is infinite), or empty.
std::vector<int> infinite_path(const FlowNetwork& network, int source, int sink);

// Requires that infinite_path(network, source, sink) is empty.
MinCut minimum_cut(const FlowNetwork& network, int source, int sink);

}  // namespace kiln::partitioning
