// Reusing a row's values across the parts of a fused kernel (schedule.h). A pointwise part that
// recomputes, element by element, an expensive value an earlier reduction part of the same row
// already computed (softmax's exp(x - max): the sum computes it, the division again) loads it
// instead: the reduction part also stores the value into the pointwise part's output, at the
// element the pointwise part then overwrites, so each output element is still written by its
// own part and the value comes back from cache, not from a second exp.
//
// Applies when both parts run the same loops, the pointwise part stores to each element once
// (an affine, non-overlapping index), the output's dtype is the value's (a float: the round
// trip is exact), the pointwise part does not otherwise read the output, and no part from the
// reduction part to it reads or writes the output. "Expensive" means the value's expression
// holds a transcendental op (exp, log, tanh, sigmoid, erf, pow, sin, ...); re-loading a cheap
// one would cost what it saves.
#pragma once

#include "lower/loop_ir.h"

namespace kiln {

// Returns the number of values now reused.
int reuse_row_values(LoopProgram& p);

}  // namespace kiln
