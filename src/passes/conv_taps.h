// conv2d's geometry and its kernel taps as strided slices of the padded input: for tap (i, j)
// the input elements it reads are xpad[:, :, i*dil : ... : stride, j*dil : ... : stride], shaped
// [.., OH, OW]. Shared by conv2d's decomposition (passes/decompositions_conv.cc) and its
// derivative rule (autograd/rules_conv.cc).
#pragma once

#include <cstdint>

#include "ir/graph_builder.h"
#include "ops/op_call.h"

namespace kiln::conv {

struct Geometry {
  int64_t stride[2], pad[2], dil[2], k[2], out[2], padded[2];
};

// The geometry of a conv2d node with attributes `attrs`, an input [N?, C, H, W], a weight
// [O, Cg, kh, kw] and a result [N?, O, OH, OW]; every spatial size must be static.
Geometry geometry(const OpCallBase& attrs, const Shape& input, const Shape& weight, const Shape& result);

// `v` (4-D) padded with zeros by (lo, hi) in dims -2 and -1 (negative crops).
Value* pad_hw(GraphBuilder& b, Value* v, int64_t h_lo, int64_t h_hi, int64_t w_lo, int64_t w_hi);

// The elements of `xpad` (the 4-D input padded by geo.pad) that tap `at` reads: [.., OH, OW].
Value* tap(GraphBuilder& b, Value* xpad, const Geometry& geo, const int64_t (&at)[2]);

}  // namespace kiln::conv
