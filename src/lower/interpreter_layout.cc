#include "lower/interpreter_layout.h"

namespace kiln {

namespace {

std::vector<std::vector<int64_t>> result_sizes(const Node& n) {
  std::vector<std::vector<int64_t>> sizes;
  for (const Value* r : n.results()) sizes.push_back(r->type().shape.sizes());
  return sizes;
}

Expected<std::vector<std::optional<Layout>>> layouts_of(const Node& n) {
  return view_layouts(OpCallBase(n.op(), n.attrs()), interpreter_layout(n.operand(0).value), result_sizes(n));
}

}  // namespace

Layout interpreter_layout(const Value* v) {
  const Node* p = v->producer();
  if (p && p->num_operands() > 0 && p->operand(0).is_value()) {
    if (p->info().has(kInplace)) return interpreter_layout(p->operand(0).value);
    if (p->info().has(kView)) {
      Expected<std::vector<std::optional<Layout>>> layouts = layouts_of(*p);
      if (layouts && (*layouts)[static_cast<size_t>(v->index())]) return *(*layouts)[static_cast<size_t>(v->index())];
    }
  }
  return contiguous_layout(v->type().shape.sizes());
}

Status check_view_like_interpreter(const Node& n) { return layouts_of(n).status(); }

}  // namespace kiln
