// C++ for the loop IR's `random` body op (loop_ir.h, RandomDraw): a call of the prelude's
// Philox helpers (cpp_prelude.cc), which give core/random.h's numbers.
#pragma once

#include <span>
#include <string>

#include "core/dtype.h"
#include "lower/loop_ir.h"

namespace kiln::cpp {

// The draw `d` of result dtype `out` (held in value_type(out)) at counter `args[0]`, under the
// stream of d.seed, or of the rng_state words args[1] (seed) and args[2] (offset) when given;
// all of them int64_t values.
std::string random_expr(const RandomDraw& d, std::span<const std::string> args, DType out);

}  // namespace kiln::cpp
