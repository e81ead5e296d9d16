// Lowering of the in-place elementwise ops (add_, sub_, mul_, div_, relu_, clamp_,
// masked_fill_, fill_, zero_; copy_ is lower_write.cc's): their functional form, inlined into
// one pointwise kernel over operand 0's points that stores into operand 0's own elements. The
// reference kernels compute into a fresh tensor and then write operand 0; a kernel that reads
// each element only at the point it writes it gives the same values without the temporary.
#include <algorithm>
#include <cstdlib>
#include <utility>
#include <vector>

#include "lower/lowering.h"
#include "ops/functional_form.h"
#include "ops/op_call.h"

namespace kiln::lowering {

namespace {

// Whether affine `e` takes distinct values at distinct points of `sizes` (mixed radix: each
// coefficient exceeds the span of the smaller ones), so that a store through it writes every
// element of the view once. A view with a broadcast (stride 0) dim is not.
bool injective(const IndexExpr& e, const std::vector<int64_t>& sizes) {
  if (!e.is_affine()) return false;
  std::vector<std::pair<int64_t, int64_t>> dims;  // |coeff|, extent
  for (size_t v = 0; v < sizes.size(); ++v) {
    if (sizes[v] <= 1) continue;
    const int64_t c = e.coeff_of(static_cast<int>(v));
    if (c == 0 || c == INT64_MIN) return false;
    dims.emplace_back(std::llabs(c), sizes[v]);
  }
  std::sort(dims.begin(), dims.end());
  int64_t span = 0;
  for (const auto& [c, extent] : dims) {
    int64_t reach;
    if (c <= span || __builtin_mul_overflow(c, extent - 1, &reach) || __builtin_add_overflow(span, reach, &span))
      return false;
  }
  return true;
}

}  // namespace

OpKind Lowering::pointwise_op(const Node& n) { return functional_form(n.op()).value_or(n.op()); }

DType Lowering::pointwise_dtype(const Node& n) {
  const DType own = n.result()->type().dtype;
  const OpKind functional = pointwise_op(n);
  if (functional == n.op()) return own;
  // The dtype the functional form computes in (add_ of an f64 operand into f32 adds in f64),
  // before the result is cast into operand 0.
  std::vector<TypeOperand> types;
  for (const Operand& o : n.operands())
    types.push_back(o.is_value() ? TypeOperand{o.value->type(), Scalar()} : TypeOperand{std::nullopt, o.literal});
  Expected<std::vector<TensorType>> t = infer_types(TypeCall(functional, n.attrs(), types));
  return t ? (*t)[0].dtype : own;
}

// Stays an extern kernel (returns false) when the functional form does (lowers_as_pointwise),
// fill_'s value is a tensor of rank > 0 (an error of its reference kernel), operand 0 is not
// an injective affine view of its buffer (a broadcast, or a reshape that needs div/mod), or
// the kernel would read operand 0's buffer at other points than the one it writes (add_(x, x.t())):
// the reference kernel computes before it writes, a pointwise kernel does not.
Expected<bool> Lowering::write_in_place(const Node& n) {
  const Value* dst = n.operand(0).value;
  if (n.op() == OpKind::FillInplace) {
    const Operand& v = n.operand(1);
    if (v.is_value() ? v.value->type().shape.rank() != 0 : v.literal.is_none()) return false;
  } else if (n.op() != OpKind::ZeroInplace && !lowers_as_pointwise(n)) {
    return false;
  }
  realize(dst);
  const Access& a = access_.at(dst);
  const std::vector<int64_t> sizes = sizes_of(dst);
  const std::vector<IndexExpr> c = loop_coords(sizes);
  const IndexExpr at = a.map.substitute(c).simplified(sizes);
  if (!injective(at, sizes)) return false;
  realize_readers_before_write(a.buffer, n);
  for (int i = 1; i < n.num_operands(); ++i)
    if (n.operand(i).is_value()) prepare(n.operand(i).value, numel_of(sizes));
  LoopKernel k = make_kernel(KernelKind::Pointwise);
  k.loops = sizes;
  BodyBuilder b{k};
  const DType dt = dst->type().dtype;
  int v;
  if (n.op() == OpKind::ZeroInplace)
    v = b.constant(Scalar(int64_t{0}), dt);
  else if (n.op() == OpKind::FillInplace)
    v = operand(b, n, 1, dt, c);
  else
    v = emit_pointwise(b, n, c);
  for (const BodyOp& op : k.body)
    if (op.kind == BodyOp::Kind::Load && op.buffer == a.buffer && !(op.index == at)) return false;
  b.store(a.buffer, at, b.cast(v, dt));
  access_[n.result()] = a;
  append(std::move(k));
  return true;
}

}  // namespace kiln::lowering
