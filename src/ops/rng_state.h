// The runtime generator state of random ops (ops.def, "Random ops"): an optional operand
// `rng_state`, an i64[2] tensor (seed, offset), that turns a node's static `seed` attribute
// into a stream chosen at run time. Shared by the type rules, the kernels and the passes.
#pragma once

#include "core/random.h"
#include "ops/op_call.h"
#include "support/diagnostic.h"

namespace kiln {

// Flat operand index of the op's `rng_state` operand, or -1 when its schema has none.
int rng_state_operand_index(OpKind op);

// True for i64[2], the type of a generator state.
bool is_rng_state_type(const TensorType& t);

// Whether a node of this op with these attributes draws random numbers: every op with trait
// Random except dropout outside training, and scaled_dot_product_attention with dropout_p > 0.
bool draws_random_numbers(const OpCallBase& call);

// The rng_state operand, when present, is an i64[2] tensor; otherwise
// "dropout: rng_state must be i64[2] (seed, offset), got f32[2]". Run by infer_types for
// every op, so each op's shape and dtype rules may assume it.
Status check_rng_state(const TypeCall& call);

// The stream a kernel draws from: {seed attribute, 0} without rng_state, else
// stream_from_state(rng_state[0], rng_state[1], seed attribute).
RandomStream random_stream(const KernelCall& call);

// The value of a generator state: the i64[2] tensor (seed, offset).
Tensor make_rng_state(uint64_t seed, int64_t offset);

}  // namespace kiln
