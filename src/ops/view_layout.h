// The layouts view ops give their results (sizes, strides and offset into the operand's
// storage) from their operand's layout: the math of the reference view kernels
// (kernels_view.cc), written once, so that code without data knows the strides the
// interpreter's views have (the CPU lowering refuses `view` where the interpreter does).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ops/op_call.h"
#include "support/diagnostic.h"

namespace kiln {

struct Layout {
  std::vector<int64_t> sizes, strides;
  int64_t offset = 0;
};

// Row-major strides of `sizes`, from offset 0.
Layout contiguous_layout(const std::vector<int64_t>& sizes);

// One entry per result of view op `call` (an op with the View trait) on an operand laid out as
// `in`; `result_sizes` are the results' sizes, from the rules. nullopt for a reshape or flatten
// that no strides express: it copies, and the copy is contiguous. Errors are the kernels':
// view where no strides express the shape, expand of a non-singleton dim, select's index and
// narrow's start out of range, a reshape to another element count. as_strided takes its
// attributes as they are (its kernel checks them against the storage).
Expected<std::vector<std::optional<Layout>>> view_layouts(const OpCallBase& call, const Layout& in,
                                                          const std::vector<std::vector<int64_t>>& result_sizes);

}  // namespace kiln
