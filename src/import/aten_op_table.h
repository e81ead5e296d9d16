// The one table from ATen overloads (as a torch.export graph names them, "aten.linear.default")
// to kiln ops (ops/ops.def). kiln's schemas are ATen's with the same argument names, so a row
// says only which kiln op an overload becomes and which ATen arguments kiln's op does not have
// (with the values under which leaving them out is exact). Arguments an archive leaves out
// take the kiln schema's default, which is ATen's.
#pragma once

#include <span>
#include <string_view>

namespace kiln::pt2 {

// What an ATen argument that kiln's op lacks must hold for the mapping to be exact.
enum class DroppedWhen {
  Any,               // no effect on values (layer_norm's cudnn_enable, expand's implicit)
  False,             // only false (_softmax's half_to_float)
  NoneOrContiguous,  // a memory_format that is absent, None or torch.contiguous_format
  NoneOrCpu,         // a device that is absent, None or the CPU (kiln imports CPU programs)
  NoneOrStrided,     // a layout that is absent, None or torch.strided
};

struct DroppedArg {
  std::string_view name;
  DroppedWhen when;
};

struct AtenOpMapping {
  std::string_view aten;  // "aten.add.Tensor"
  std::string_view kiln;  // "add"
  std::span<const DroppedArg> dropped = {};
};

// The row for an overload, or null when kiln does not import it. `target` may carry
// torch.export's "torch.ops." prefix.
const AtenOpMapping* find_aten_op(std::string_view target);
// Every row, for docs and tests.
std::span<const AtenOpMapping> aten_op_table();

}  // namespace kiln::pt2
