// The decompose pass: selects the decomposition rules of the requested ops and runs them with
// the shared rule driver to a fixed point.
#include "passes/decompose.h"

#include <algorithm>
#include <sstream>

#include "passes/decompositions.h"

namespace kiln {

namespace {

// Every decomposition rule, each named for its op and rooted at that op alone.
const std::vector<RewriteRule>& all_rules() {
  static const std::vector<RewriteRule> rules = [] {
    std::vector<RewriteRule> out;
    for (auto family : {decomp::activation_rules, decomp::reduction_rules, decomp::norm_rules, decomp::loss_rules,
                        decomp::linear_rules, decomp::conv_rules, decomp::sort_rules, decomp::upsample_rules}) {
      std::vector<RewriteRule> f = family();
      out.insert(out.end(), f.begin(), f.end());
    }
    return out;
  }();
  return rules;
}

const RewriteRule* rule_for(OpKind op) {
  for (const RewriteRule& r : all_rules())
    if (r.roots.size() == 1 && r.roots[0] == op) return &r;
  return nullptr;
}

std::string decomposable_names() {
  std::string out;
  for (OpKind op : decomposable_ops()) out += (out.empty() ? "" : ", ") + std::string(op_info(op).name());
  return out;
}

}  // namespace

bool has_decomposition(OpKind op) { return rule_for(op) != nullptr; }

std::vector<OpKind> decomposable_ops() {
  std::vector<OpKind> out;
  for (const OpInfo& info : all_ops())
    if (has_decomposition(info.kind)) out.push_back(info.kind);
  return out;
}

Expected<DecomposeOptions> parse_decompose_ops(const std::string& names) {
  DecomposeOptions options;
  std::stringstream ss(names);
  std::string name;
  while (std::getline(ss, name, ',')) {
    if (name.empty()) continue;
    const std::optional<OpKind> op = op_from_name(name);
    if (!op) return make_error("decompose: unknown op '", name, "'");
    if (!has_decomposition(*op))
      return make_error("decompose: op '", name, "' has no decomposition (decomposable: ", decomposable_names(), ")");
    options.ops.push_back(*op);
  }
  if (options.ops.empty()) return make_error("decompose: no op named in '", names, "'");
  return options;
}

Expected<PassResult> decompose(Graph& g, const DecomposeOptions& options) {
  RuleSet set{"decompose", {}};
  const std::vector<OpKind> ops = options.ops.empty() ? decomposable_ops() : options.ops;
  for (OpKind op : ops) {
    const RewriteRule* rule = rule_for(op);
    if (rule == nullptr)
      return make_error("decompose: op '", op_info(op).name(),
                        "' has no decomposition (decomposable: ", decomposable_names(), ")");
    const bool seen =
        std::any_of(set.rules.begin(), set.rules.end(), [&](const RewriteRule& r) { return r.roots[0] == op; });
    if (!seen) set.rules.push_back(*rule);
  }
  return apply_rules(g, set);
}

}  // namespace kiln
