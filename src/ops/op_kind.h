// OpKind: one enumerator per row of ops.def.
#pragma once

#include <cstdint>

namespace kiln {

enum class OpKind : uint16_t {
#define KILN_OP(E, schema, traits, shape_rule, dtype_rule, kernel) E,
#include "ops/ops.def"
#undef KILN_OP
};

inline constexpr int kNumOps = 0
#define KILN_OP(E, schema, traits, shape_rule, dtype_rule, kernel) +1
#include "ops/ops.def"
#undef KILN_OP
    ;

// Traits: what passes may ask of an op instead of comparing names.
using Traits = uint32_t;
inline constexpr Traits kNone = 0;
inline constexpr Traits kElementwise = 1u << 0;  // result[i] depends on operands[i] (after broadcast)
inline constexpr Traits kReduction = 1u << 1;    // reduces dims of operand 0
inline constexpr Traits kView = 1u << 2;         // result shares storage with operand 0
inline constexpr Traits kInplace = 1u << 3;      // writes operand 0 and returns it
inline constexpr Traits kRandom = 1u << 4;       // draws random numbers (its `seed`, rng_state)
inline constexpr Traits kSideEffect = 1u << 5;   // must not be removed or reordered
inline constexpr Traits kCreation = 1u << 6;     // makes a new tensor from attributes (+ rng_state)
inline constexpr Traits kHigherOrder = 1u << 7;  // has subgraphs
inline constexpr Traits kMatmul = 1u << 8;       // a contraction (extern-kernel candidate)
inline constexpr Traits kScan = 1u << 9;         // prefix computation along a dim

}  // namespace kiln
