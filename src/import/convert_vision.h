// Converters for the ATen overloads of vision networks that are not one row of the op table
// (aten_op_table.h): an overload with arguments or results kiln's op lacks
// (`_native_batch_norm_legit_no_training`, `max_pool2d_with_indices`, `convolution`), in-place
// forms whose mutation no later node can see (`relu_`, `silu_`, `dropout_`, ...), and short
// compositions of kiln ops for ATen ops kiln has no op for (`hardswish`, `hardsigmoid`, `relu6`). pt2_to_graph.cc calls
// these through one hook: a node whose target has a converter goes through
// convert_vision_node.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "import/pt2_program.h"
#include "ir/graph.h"

namespace kiln::pt2 {

// Whether a converter of this file handles `target` (with or without "torch.ops.").
bool has_vision_converter(std::string_view target);

// What a converter made of a node: either a node the op table maps (the caller adds it by the
// generic path), or nothing, when the converter appended the kiln nodes to the graph itself
// and bound the node's results in `values`.
using ConvertedNode = std::optional<Node>;

// Converts node `index` of `p` (whose target has a converter). `values` maps the archive's
// value names to graph values; appended nodes get the location `loc`. Errors: a form kiln's op cannot express (a
// transposed or 1-D convolution, an in-place op whose input a later node reads, a batch norm whose statistics results
// are used).
Expected<ConvertedNode> convert_vision_node(Graph& g, const Program& p, size_t index,
                                            std::map<std::string, Value*>& values, const SourceLoc& loc);

}  // namespace kiln::pt2
