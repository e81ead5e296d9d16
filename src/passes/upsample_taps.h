// upsample_bilinear2d as index_select and a weighted sum, built in the graph: the taps of each
// spatial dim (ops/upsample_geometry.h's arithmetic, step for step in the op-math dtype, from an
// arange) and the separable blend. Shared by the decomposition
// (passes/decompositions_upsample.cc) and the derivative rule (autograd/rules_nn.cc), which
// records the blend on a tape; the taps carry no gradient.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "ir/graph_builder.h"
#include "ops/op_call.h"

namespace kiln::upsample {

struct GraphTaps {
  Value *i0, *i1;            // i64[out]: the source indices
  Value *lambda0, *lambda1;  // [out] in the op-math dtype: their weights
};

// The taps of one dim of size `in` resized to `out`, computed in `math` (f32 or f64).
GraphTaps graph_taps(GraphBuilder& b, int64_t in, int64_t out, bool align_corners, std::optional<double> scale,
                     DType math);

// The op-math dtype of a value of dtype `t`: f64 for f64, else f32 (as ATen's opmath_type).
DType math_dtype(DType t);

// Builds one node; the decomposition passes GraphBuilder::apply1, the derivative rule its tape.
using BuildOp = std::function<Value*(OpKind, std::vector<Operand>, AttrMap)>;

// The upsample_bilinear2d node `n` of operand `x` (static spatial sizes) as index_select, mul and
// add in the op-math dtype; the taps are built with `b`, the blend of `x` with `op`. The result
// is in the op-math dtype: the caller casts it to the node's.
Value* blend(GraphBuilder& b, const BuildOp& op, const Node& n, Value* x);

}  // namespace kiln::upsample
