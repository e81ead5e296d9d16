// BackendPolicy: what a backend answers before lowering (DESIGN.md section 6's policy): which
// ops it keeps whole though they have a decomposition, and the limits its scheduler fuses
// within. Its text form is what `kiln backend --device=D` prints (tests/lit/cli/backend.kir).
#pragma once

#include <string>
#include <vector>

#include "lower/schedule.h"
#include "ops/op_kind.h"

namespace kiln {

// An op that has a decomposition (passes/decompose.h) but that the backend runs whole, and why.
struct KeptWholeOp {
  OpKind op;
  std::string why;
};

// What the driver asks before lowering: every decomposable op not listed in kept_whole is
// decomposed; the scheduler merges kernels within `schedule`'s limits.
struct BackendPolicy {
  std::vector<KeptWholeOp> kept_whole = {};
  ScheduleOptions schedule = {};

  bool keeps_whole(OpKind op) const;
};

// The ops the driver decomposes for `policy`: every decomposable op it does not keep whole.
std::vector<OpKind> decomposed_ops(const BackendPolicy& policy);

// The policy as text, one fact a line: "keeps whole: linear (why)", "decomposes: gelu", then
// the fusion limits.
std::string policy_text(const BackendPolicy& policy);

}  // namespace kiln
