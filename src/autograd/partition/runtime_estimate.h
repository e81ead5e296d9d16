// How long a node takes, estimated from its FLOPs (the reference's default
// activation_memory_budget_runtime_estimator "flops"): contractions, convolution and
// attention count their multiply-adds; every other op counts one operation per element it
// produces (the reference counts those as 1 in total; per-element is a better proxy for
// bandwidth-bound ops). At least 1.
#pragma once

#include "ir/graph.h"

namespace kiln::partitioning {

double estimate_runtime(const Node& n);

}  // namespace kiln::partitioning
