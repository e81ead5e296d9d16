#include "autograd/partition/min_cut.h"

#include <algorithm>
#include <cmath>
#include <queue>

#include "autograd/partition/max_flow.h"
#include "autograd/partition/op_categories.h"
#include "ir/printer.h"
#include "support/check.h"

namespace kiln::partitioning {

BanRules ban_rules(const PartitionOptions& o) {
  BanRules b{o.ban_recompute_used_far_apart, o.ban_recompute_long_fusible_chains, o.ban_recompute_materialized_backward,
             o.ban_recompute_not_in_allowlist, o.ban_recompute_reductions};
  if (o.aggressive_recomputation)
    b.used_far_apart = b.long_fusible_chains = b.materialized_backward = b.not_in_allowlist = false;
  return b;
}

namespace {

class CutBuilder {
 public:
  CutBuilder(const JointView& view, const PartitionOptions& options, const BanRules& bans,
             const std::set<int>& dont_ban)
      : view_(view), options_(options), bans_(bans), dont_ban_(dont_ban) {
    source_ = net_.add_vertex();
    sink_ = net_.add_vertex();
    for (int i = 0; i < view.size(); ++i) {
      first_pair_.push_back(static_cast<int>(vertex_value_.size()));
      for (const Value* v : view.item(i).values) {
        in_.push_back(net_.add_vertex());
        out_.push_back(net_.add_vertex());
        vertex_value_.push_back(v);
        vertex_item_.push_back(i);
      }
    }
  }

  Expected<CutResult> solve() {
    for (int i = 0; i < view_.size(); ++i) add_item(i, first_pair_of(i));
    // User edges, once every item has its vertices.
    for (int i = 0; i < view_.size(); ++i)
      for (int k = 0; k < static_cast<int>(view_.item(i).values.size()); ++k)
        for (int u : view_.item(i).users)
          for (int j = 0; j < static_cast<int>(view_.item(u).values.size()); ++j)
            net_.add_edge(out_[static_cast<size_t>(first_pair_[static_cast<size_t>(i)] + k)],
                          in_[static_cast<size_t>(first_pair_[static_cast<size_t>(u)] + j)], kInfiniteCapacity);
    if (bans_.used_far_apart) ban_used_far_apart();
    if (bans_.long_fusible_chains) ban_long_fusible_chains();

    if (std::vector<int> path = infinite_path(net_, source_, sink_); !path.empty()) return unbounded_error(path);
    const MinCut cut = minimum_cut(net_, source_, sink_);
    CutResult result;
    std::vector<bool> saved(vertex_value_.size(), false);
    for (int e : cut.cut_edges) {
      const FlowNetwork::Edge& edge = net_.edges()[static_cast<size_t>(e)];
      const size_t pair = static_cast<size_t>(edge.from - 2) / 2;
      KILN_CHECK(edge.from >= 2 && in_[pair] == edge.from && out_[pair] == edge.to)
          << "min-cut: a cut edge is not a value's own edge";
      saved[pair] = true;
    }
    for (size_t k = 0; k < saved.size(); ++k)
      if (saved[k]) result.saved.push_back(vertex_value_[k]);
    result.banned = banned_;
    return result;
  }

 private:
  void add_item(int i, int first) {
    const Item& it = view_.item(i);
    const int n = static_cast<int>(it.values.size());
    const auto in = [&](int k) { return in_[static_cast<size_t>(first + k)]; };
    const auto out = [&](int k) { return out_[static_cast<size_t>(first + k)]; };
    if (it.required_bw) {
      if (it.in_tangent_closure) {
        // Computed in the backward: nothing of it is saved.
        for (int k = 0; k < n; ++k) net_.add_edge(in(k), sink_, kInfiniteCapacity);
        return;
      }
      for (int k = 0; k < n; ++k) net_.add_edge(out(k), sink_, kInfiniteCapacity);
    }
    if (it.is_primal) ban(i);
    if (it.node != nullptr && it.required_fw && should_ban(i)) ban(i);
    for (int k = 0; k < n; ++k) net_.add_edge(in(k), out(k), weight(i, it.values[static_cast<size_t>(k)]));
  }

  // The reference's should_ban_recomputation.
  bool should_ban(int i) const {
    const Item& it = view_.item(i);
    const Node& n = *it.node;
    if (must_stay_in_place(n) || n.info().has(kHigherOrder)) return true;
    if (options_.recompute_views && is_view(n)) return false;
    if (bans_.not_in_allowlist ? !is_recomputable(n) : (is_random(n) || is_compute_intensive(n))) return true;
    if (bans_.materialized_backward && is_materialized_backward(i)) return true;
    if (it.dist_from_bw < 1000 && it.dist_from_bw > options_.max_dist_from_bw) return true;
    if (bans_.reductions) {
      double in_bytes = 0;
      for (int op : it.operands) in_bytes += view_.bytes(op);
      if (view_.bytes(i) * 4 < in_bytes) return true;
    }
    return false;
  }

  bool is_materialized_backward(int i) const {
    if (is_view(*view_.item(i).node)) return false;
    std::vector<int> stack = {i};
    std::set<int> seen = {i};
    while (!stack.empty()) {
      const int cur = stack.back();
      stack.pop_back();
      // A graph output is read by the output "node", outside the forward and unfusible.
      if (view_.item(cur).is_graph_output) return true;
      for (int u : view_.item(cur).users) {
        const Item& user = view_.item(u);
        if (!user.required_fw && !is_fusible(view_, cur, u)) return true;
        if (user.node != nullptr && is_view(*user.node) && seen.insert(u).second) stack.push_back(u);
      }
    }
    return false;
  }

  bool is_materialized(int i) const {
    const Item& it = view_.item(i);
    if (it.input != nullptr || it.is_graph_output) return true;
    return !std::ranges::all_of(it.users, [&](int u) { return is_fusible(view_, i, u); });
  }

  Capacity weight(int i, const Value* v) const {
    const Item& it = view_.item(i);
    if (options_.treat_parameters_as_free_to_save && it.is_param) return 0;
    if (options_.recompute_views && it.node != nullptr && is_view(*it.node)) return kInfiniteCapacity;
    const double scale = std::pow(1.1, std::clamp(it.dist_from_bw, 1, 100));
    const Capacity w = JointView::bytes(v) * scale;
    return is_materialized(i) ? w : 2 * w;
  }

  // The reference's ban_recomputation_if_allowed.
  void ban(int i) {
    const Item& it = view_.item(i);
    if (it.node != nullptr && is_view(*it.node)) return;
    const bool forced = it.node != nullptr && must_stay_in_place(*it.node);
    if (dont_ban_.contains(i) && !forced) return;
    if (!banned_.insert(i).second) return;
    for (size_t k = 0; k < it.values.size(); ++k)
      net_.add_edge(source_, in_[static_cast<size_t>(first_pair_of(i)) + k], kInfiniteCapacity);
  }

  int first_pair_of(int i) const { return first_pair_[static_cast<size_t>(i)]; }

  // Names the items along a path of infinite edges from the source to the sink.
  Diagnostic unbounded_error(const std::vector<int>& path) const {
    std::string names;
    int last_item = -1;
    for (int v : path) {
      if (v < 2) continue;
      const int item = vertex_item_[static_cast<size_t>(v - 2) / 2];
      if (item == last_item) continue;
      last_item = item;
      const Item& it = view_.item(item);
      names += std::string(names.empty() ? "" : "; then ") + (it.input ? "%" + it.input->name() : print_node(*it.node));
    }
    return make_error("partition: a value the backward needs can be neither saved nor recomputed: ", names);
  }

  // First order (among required_fw items) reached from `starts` over an unfusible edge.
  int find_first_unfusible(const std::vector<int>& starts, int max_range) const {
    using Entry = std::tuple<int, int, bool>;  // fw_order, item, reached over a fusible edge
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap;
    std::set<Entry> pushed;
    for (int s : starts) {
      Entry e{view_.item(s).fw_order, s, true};
      if (pushed.insert(e).second) heap.push(e);
    }
    while (!heap.empty()) {
      auto [order, cur, fusible] = heap.top();
      heap.pop();
      if (!fusible) return order;
      for (int u : view_.item(cur).users) {
        const Item& user = view_.item(u);
        if (!user.required_fw || user.fw_order > max_range) continue;
        Entry e{user.fw_order, u, is_fusible(view_, cur, u)};
        if (pushed.insert(e).second) heap.push(e);
      }
    }
    return max_range;
  }

  void ban_used_far_apart() {
    for (int i = 0; i < view_.size(); ++i) {
      const Item& it = view_.item(i);
      if (!it.required_fw) continue;
      std::vector<int> fw_users;
      int max_order = -1;
      for (int u : it.users)
        if (view_.item(u).required_fw) {
          fw_users.push_back(u);
          max_order = std::max(max_order, view_.item(u).fw_order);
        }
      if (fw_users.empty()) continue;
      const int first_unfusible = find_first_unfusible(fw_users, max_order);
      for (int u : fw_users)
        if (view_.item(u).fw_order > first_unfusible && is_fusible(view_, i, u) && !banned_.contains(u)) ban(u);
    }
  }

  void ban_long_fusible_chains() {
    std::set<int> visited;
    for (int start = 0; start < view_.size(); ++start) {
      if (!view_.item(start).required_fw) continue;
      const int start_order = view_.item(start).fw_order;
      using Entry = std::pair<int, int>;
      std::priority_queue<Entry, std::vector<Entry>, std::greater<>> fusible;
      fusible.push({start_order, start});
      while (!fusible.empty()) {
        const int cur = fusible.top().second;
        fusible.pop();
        if (!visited.insert(cur).second) continue;
        if (view_.item(cur).fw_order > start_order + 100 && fusible.empty()) {
          ban(cur);
          break;
        }
        for (int u : view_.item(cur).users)
          if (view_.item(u).required_fw && is_fusible(view_, cur, u) && !banned_.contains(u))
            fusible.push({view_.item(u).fw_order, u});
      }
    }
  }

  const JointView& view_;
  const PartitionOptions& options_;
  const BanRules& bans_;
  const std::set<int>& dont_ban_;
  FlowNetwork net_;
  int source_ = 0, sink_ = 0;
  std::vector<int> in_, out_;  // per value, in item order
  std::vector<const Value*> vertex_value_;
  std::vector<int> vertex_item_;
  std::vector<int> first_pair_;
  std::set<int> banned_;
};

}  // namespace

Expected<CutResult> solve_min_cut(const JointView& view, const PartitionOptions& options, const BanRules& bans,
                                  const std::set<int>& dont_ban) {
  return CutBuilder(view, options, bans, dont_ban).solve();
}

}  // namespace kiln::partitioning
