// Internal to canonicalize: the two halves of its rule set and their shared helpers.
#pragma once

#include <optional>
#include <vector>

#include "passes/rewrite_rules.h"
#include "passes/value_forwarding.h"

namespace kiln::canonicalize_detail {

using Match = std::optional<std::vector<Value*>>;
using Mutating = std::unordered_set<const Graph*>;

// `op(operands){attrs}` built before `n` when its inferred type equals n's result type;
// nullopt (nothing built) otherwise.
Match build_same_type(const Node& n, GraphBuilder& b, OpKind op, std::vector<Operand> operands, AttrMap attrs = {});

// n's result forwarded to `source` when the types agree, n's graph does not mutate and no
// new output aliasing results.
Match forward(const Node& n, Value* source, const Mutating& mutating);

// The node producing operand i when it is a value made by `op`; null otherwise.
Node* operand_producer(const Node& n, int i, OpKind op);

std::vector<RewriteRule> canonicalize_arith_rules(const Mutating& mutating);
std::vector<RewriteRule> canonicalize_layout_rules(const Mutating& mutating);

}  // namespace kiln::canonicalize_detail
