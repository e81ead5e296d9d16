// Options of the decompose pass, apart from decompose.h so that PassManagerOptions can hold
// them without the pass manager depending on the pass.
#pragma once

#include <vector>

#include "ops/op_kind.h"

namespace kiln {

struct DecomposeOptions {
  // The ops to decompose; empty: every op that has a decomposition (decomposable_ops()).
  std::vector<OpKind> ops;
};

}  // namespace kiln
