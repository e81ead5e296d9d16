// The loop IR's compute ops as a closed set: ComputeOp, one enumerator per row of
// compute_ops.def, and the facts each row declares. A body op holds the OpKind it computes
// (loop_ir.h); consumers that give ops their meaning switch over compute_op(kind) with no
// default, so the compiler checks them against the declaration (docs/LOWERING.md).
#pragma once

#include <cstdint>
#include <optional>

#include "ops/attr.h"
#include "ops/op_kind.h"

namespace kiln {

enum class ComputeOp : uint8_t {
#define KILN_COMPUTE_OP(Name, arity, form, cost, ulps) Name,
#include "lower/compute_ops.def"
#undef KILN_COMPUTE_OP
};

inline constexpr int kNumComputeOps = 0
#define KILN_COMPUTE_OP(Name, arity, form, cost, ulps) +1
#include "lower/compute_ops.def"
#undef KILN_COMPUTE_OP
    ;

// compute_ops.def's `form` column.
enum class ComputeForm : uint8_t { Any, Float, Int, Truth, Test, Compare, Select };
// compute_ops.def's `cost` column.
enum class ComputeCost : uint8_t { Cheap, Costly };

// The ComputeOp of `op`; nullopt when `op` may not appear as a Compute op of a loop body.
std::optional<ComputeOp> find_compute_op(OpKind op);
// The ComputeOp of `op`, which must be one (an internal error otherwise).
ComputeOp compute_op(OpKind op);
OpKind compute_op_kind(ComputeOp op);

int compute_op_arity(ComputeOp op);
ComputeForm compute_op_form(ComputeOp op);
ComputeCost compute_op_cost(ComputeOp op);
double compute_op_ulps(ComputeOp op);

// How many operands `op` takes as a Compute op of a loop body (0 when it may not be one).
int compute_arity(OpKind op);
// Whether the result of Compute `op` is bool regardless of operand dtypes (forms Truth, Test
// and Compare).
bool compute_returns_bool(OpKind op);

// Where a Compute op computes: Any: in double when an operand is floating, else in int64
// (comparisons, tests, logical ops and where as well); Float: always in double (exp of an
// integer; div without rounding_mode is true division); Int: always in int64 (bitwise ops and
// shifts; a floating operand is converted as a cast to i64 would). An int64 result is wrapped
// to the op's dtype (a narrow integer wraps, a bool is 0 or 1) as each reference kernel stores
// its result.
enum class ComputeDomain : uint8_t { Any, Float, Int };
ComputeDomain compute_domain(OpKind op, const AttrMap& attrs);

// Whether Compute `op` with `attrs` divides integers (div with a rounding_mode, remainder,
// fmod): by zero, the reference kernels report an error.
bool compute_divides(OpKind op, const AttrMap& attrs);

}  // namespace kiln
