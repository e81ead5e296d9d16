#include "ir/written_operands.h"

namespace kiln {

std::vector<int> written_operands(const Node& n) {
  if (n.info().has(kInplace))
    return n.num_operands() > 0 && n.operand(0).is_value() ? std::vector<int>{0} : std::vector<int>{};
  if (n.op() != OpKind::KernelCall) return {};
  std::vector<int> out;
  if (const AttrValue* w = n.attrs().find("written"); w && w->is_ints()) {
    for (int64_t a : w->as_ints())
      if (a >= 0 && a < n.num_operands() && n.operand(static_cast<int>(a)).is_value())
        out.push_back(static_cast<int>(a));
    return out;
  }
  for (int i = 0; i < n.num_operands(); ++i)
    if (n.operand(i).is_value()) out.push_back(i);
  return out;
}

bool writes_operands(const Node& n) { return n.info().has(kInplace) || n.op() == OpKind::KernelCall; }

}  // namespace kiln
