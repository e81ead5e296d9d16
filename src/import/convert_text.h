// Networks: transformers. The nodes of a torch.export graph of a transformer (GPT-2, BERT,
// Llama, ...) that the ATen op table (aten_op_table.h) cannot map row for row are rewritten,
// before the mapping, into nodes it can:
//   - _assert_tensor_metadata: export's bookkeeping; the dtype, sizes, strides, device and
//     layout it asserts are checked against the value's recorded metadata, and the node is
//     dropped (an error when they disagree);
//   - alias, detach: dropped, its result renamed to its input (kiln's graphs are functional);
//   - arange.default: arange.start from 0; every creation op (arange, full, zeros, ones) and
//     new_ones/new_zeros/new_full get the dtype their result records, which PyTorch inferred
//     from the scalars or the default dtype;
//   - type_as: _to_copy to the dtype of `other`;
//   - split_with_sizes and unbind (several results): one slice or select per result;
//   - conv1d: conv2d on a height of 1 between an unsqueeze and a squeeze;
//   - add_/sub_/mul_/div_ on a value no other value views (made by a non-view op): the
//     out-of-place op, later uses of the written value reading its result; on a graph input
//     or a view it is an error;
//   - copy (functional, of a source of the same type): that source;
//   - cross_entropy_loss, nll_loss: kiln's with the reduction's name; pad (constant mode):
//     constant_pad_nd;
//   - view of a transpose, permute, expand, slice, ...: reshape (PyTorch's strides of that
//     value may differ from kiln's; the core forms view the transpose of the CPU sdpa's result).
// Every other node is kept as it is.
#pragma once

#include "import/pt2_program.h"
#include "support/diagnostic.h"

namespace kiln::pt2 {

Expected<Program> convert_text_nodes(const Program& program);

}  // namespace kiln::pt2
