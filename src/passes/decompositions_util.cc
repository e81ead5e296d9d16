// GraphBuilder shorthands shared by the decomposition rules (decompositions.h).
#include "passes/decompositions.h"

namespace kiln::decomp {

Value* optional_operand(const Node& n, int i) {
  return i < n.num_operands() && n.operand(i).is_value() ? n.operand(i).value : nullptr;
}

Replacement result(GraphBuilder& b, const Node& n, Value* v) {
  return std::vector<Value*>{b.cast(v, n.result()->type().dtype)};
}

DType compute_dtype(DType t) { return t == DType::F16 || t == DType::BF16 ? DType::F32 : t; }

Value* add(GraphBuilder& b, Operand x, Operand y) { return b.apply1(OpKind::Add, {x, y}); }
Value* sub(GraphBuilder& b, Operand x, Operand y) { return b.apply1(OpKind::Sub, {x, y}); }
Value* mul(GraphBuilder& b, Operand x, Operand y) { return b.apply1(OpKind::Mul, {x, y}); }
Value* div(GraphBuilder& b, Operand x, Operand y) { return b.apply1(OpKind::Div, {x, y}); }
Value* unary(GraphBuilder& b, OpKind op, Value* x) { return b.apply1(op, {x}); }
Value* where(GraphBuilder& b, Value* cond, Operand x, Operand y) { return b.apply1(OpKind::Where, {cond, x, y}); }

Value* reduce(GraphBuilder& b, OpKind op, Value* x, const std::vector<int64_t>& dims, bool keepdim) {
  AttrMap attrs;
  if (!dims.empty()) attrs.set("dim", dims);
  if (keepdim) attrs.set("keepdim", true);
  return b.apply1(op, {x}, std::move(attrs));
}

Value* squeeze_dims(GraphBuilder& b, Value* v, const std::vector<int64_t>& dims) {
  if (dims.empty()) return v;
  return b.apply1(OpKind::Squeeze, {v}, {{"dim", dims}});
}

Value* per_channel(GraphBuilder& b, Value* p, int rank) {
  if (p == nullptr || rank <= 2) return p;
  AttrValue::Ints shape{-1};
  for (int i = 2; i < rank; ++i) shape.push_back(1);
  return b.apply1(OpKind::Reshape, {p}, {{"shape", shape}});
}

std::optional<std::vector<int64_t>> wrap_dims(const std::vector<int64_t>& dims, int rank) {
  std::vector<int64_t> out;
  const int64_t r = rank == 0 ? 1 : rank;  // a 0-d tensor takes dim 0 and -1, as in torch
  for (int64_t d : dims) {
    if (d < -r || d >= r) return std::nullopt;
    out.push_back(d < 0 ? d + r : d);
  }
  return out;
}

std::optional<std::vector<int64_t>> static_sizes(const Value* v) {
  const Shape& s = v->type().shape;
  if (!s.is_static()) return std::nullopt;
  return s.sizes();
}

}  // namespace kiln::decomp
