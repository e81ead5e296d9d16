// Misc ops of issue 21: the ATen overloads of the zoo's vision and mixture-of-experts models
// that are not one row of the op table (aten_op_table.h), rewritten before the mapping (and
// before convert_text's in-place rewrites) into nodes the table maps:
//   - upsample_bilinear2d.vec: scale_factors [h, w] as kiln's scales_h and scales_w;
//     upsample_bilinear2d.default: `self` is kiln's `input`;
//   - floor_divide (.default, .Scalar): div with rounding_mode "floor", which it is in PyTorch;
//   - empty_like, empty_permuted: empty of the sizes and dtype the result records
//     (empty_permuted's physical_layout orders the strides only; kiln lays out contiguously);
//   - repeat_interleave.self_int (a scalar repeat count): unsqueeze after the dim, expand the
//     new dim to the count, reshape to the result (without a dim: the flattened input).
// index_put_ is one of convert_text's in-place ops (its functional form is index_put).
// Every other node is kept as it is.
#pragma once

#include "import/pt2_program.h"
#include "support/diagnostic.h"

namespace kiln::pt2 {

Expected<Program> convert_misc_nodes(const Program& program);

}  // namespace kiln::pt2
