#include "backend/backend_policy.h"

#include <algorithm>

#include "ops/op_info.h"
#include "passes/decompose.h"

namespace kiln {

bool BackendPolicy::keeps_whole(OpKind op) const {
  return std::ranges::any_of(kept_whole, [op](const KeptWholeOp& k) { return k.op == op; });
}

std::vector<OpKind> decomposed_ops(const BackendPolicy& policy) {
  std::vector<OpKind> ops = decomposable_ops();
  std::erase_if(ops, [&](OpKind op) { return policy.keeps_whole(op); });
  return ops;
}

std::string policy_text(const BackendPolicy& policy) {
  std::string out;
  for (const KeptWholeOp& k : policy.kept_whole)
    out += "keeps whole: " + std::string(op_info(k.op).name()) + " (" + k.why + ")\n";
  for (OpKind op : decomposed_ops(policy)) out += "decomposes: " + std::string(op_info(op).name()) + "\n";
  const ScheduleOptions& s = policy.schedule;
  out += std::string("merges pointwise kernels: ") + (s.merge_pointwise ? "yes" : "no") + "\n";
  out +=
      std::string("merges reductions reading one buffer: ") + (s.merge_reductions ? "yes" : "no") +
      (s.merge_reductions ? std::string(", column reductions ") + (s.merge_column_reductions ? "too" : "apart") : "") +
      "\n";
  out += std::string("fuses rows: ") + (s.fuse_rows ? "yes" : "no") + ", rows of at most " +
         std::to_string(s.max_row_bytes) + " bytes read a part, at least " + std::to_string(s.min_rows) +
         " rows to run in parallel\n";
  return out;
}

}  // namespace kiln
