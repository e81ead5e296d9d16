// Shape rules of the layout ops that copy: cat, stack, constant_pad_nd and repeat.
#include <string>

#include "ops/type_rules.h"
#include "ops/type_rules_util.h"

namespace kiln {

namespace {

Expected<std::vector<Shape>> one(Shape s) { return std::vector<Shape>{std::move(s)}; }

// torch still accepts (and skips) 1-D empty tensors in cat whatever the other shapes are.
bool is_legacy_empty(const Shape& s) { return s.rank() == 1 && s[0] == 0; }

}  // namespace

Expected<std::vector<Shape>> shape_rule_cat(const TypeCall& call) {
  if (call.operands.empty()) return make_error("cat: expected a non-empty list of tensors");
  int ref = -1;
  for (int i = 0; i < static_cast<int>(call.operands.size()); ++i)
    if (!is_legacy_empty(operand_type(call, i).shape)) {
      ref = i;
      break;
    }
  if (ref < 0) {
    KILN_TRY(wrap_dim_or_error("cat", call.attr_int("dim"), 1));
    return one(Shape({0}));
  }
  Shape out = operand_type(call, ref).shape;
  if (out.rank() == 0) return make_error("cat: zero-dimensional tensor (at position ", ref, ") cannot be concatenated");
  KILN_ASSIGN_OR_RETURN(int d, wrap_dim_or_error("cat", call.attr_int("dim"), out.rank()));
  Dim total = 0;  // a sum of expressions when symbolic: [B,T] ++ [B,T+1] -> [B,2*T+1]
  for (int i = 0; i < static_cast<int>(call.operands.size()); ++i) {
    const Shape& s = operand_type(call, i).shape;
    if (is_legacy_empty(s)) continue;
    if (s.rank() != out.rank())
      return make_error("cat: tensors must have same number of dimensions: got ", out.rank(), " and ", s.rank(),
                        " (tensor number ", i, " in the list)");
    for (int k = 0; k < s.rank(); ++k) {
      if (k == d) continue;
      if (!(s[k] == out[k]))
        return make_error("cat: sizes of tensors must match except in dimension ", d, ". Expected size ",
                          out[k].to_string(), " but got size ", s[k].to_string(), " for tensor number ", i,
                          " in the list");
    }
    total = total + s[d];
  }
  out[d] = total;
  return one(out);
}

Expected<std::vector<Shape>> shape_rule_stack(const TypeCall& call) {
  if (call.operands.empty()) return make_error("stack: expects a non-empty TensorList");
  const Shape& first = operand_type(call, 0).shape;
  for (int i = 1; i < static_cast<int>(call.operands.size()); ++i) {
    const Shape& s = operand_type(call, i).shape;
    if (!(s == first))
      return make_error("stack: expects each tensor to be equal size, but got ", first.to_string(), " at entry 0 and ",
                        s.to_string(), " at entry ", i);
  }
  KILN_ASSIGN_OR_RETURN(int d, wrap_dim_or_error("stack", call.attr_int("dim"), first.rank() + 1));
  Shape out = first;
  out.dims().insert(out.dims().begin() + d, Dim(static_cast<int64_t>(call.operands.size())));
  return one(out);
}

Expected<std::vector<Shape>> shape_rule_pad(const TypeCall& call) {
  Shape s = operand_type(call, 0).shape;
  const std::vector<int64_t>& pad = call.attr_ints("pad");
  if (pad.size() % 2 != 0)
    return make_error("constant_pad_nd: length of pad must be even but instead it equals ", pad.size());
  if (static_cast<int>(pad.size() / 2) > s.rank())
    return make_error(
        "constant_pad_nd: length of pad should be no more than twice the number of dimensions of the "
        "input. Pad length is ",
        pad.size(), " while the input has ", s.rank(), " dimensions.");
  // Pairs apply from the last dim backwards: (left, right) of dim -1, then of dim -2, ...
  for (size_t p = 0; p < pad.size() / 2; ++p) {
    const int d = s.rank() - 1 - static_cast<int>(p);
    const int64_t lo = pad[2 * p], hi = pad[2 * p + 1];
    if (lo == 0 && hi == 0) continue;
    if (s[d].is_symbolic()) {
      // T+lo+hi; negative padding crops, assuming the result is not negative.
      const Dim n = s[d] + Dim(lo + hi);
      if (lo + hi < 0) call.assume(ShapeGuard{n.expr(), GuardRel::Ge, SymExpr(0)});
      s[d] = n;
      continue;
    }
    const int64_t size = s[d].value();
    const int64_t n = size + lo + hi;
    if (n < 0)
      return make_error("constant_pad_nd: the input size ", size, ", plus negative padding ", lo, " and ", hi,
                        " resulted in a negative output size, which is invalid. Check dimension ", d,
                        " of your input.");
    s[d] = n;
  }
  return one(s);
}

Expected<std::vector<Shape>> shape_rule_repeat(const TypeCall& call) {
  const Shape& in = operand_type(call, 0).shape;
  const std::vector<int64_t>& reps = call.attr_ints("repeats");
  if (static_cast<int>(reps.size()) < in.rank())
    return make_error("repeat: number of dimensions of repeat dims (", reps.size(),
                      ") can not be smaller than number of dimensions of tensor (", in.rank(), ")");
  const int lead = static_cast<int>(reps.size()) - in.rank();
  std::vector<Dim> out;
  for (int i = 0; i < static_cast<int>(reps.size()); ++i) {
    const int64_t r = reps[static_cast<size_t>(i)];
    if (r < 0) return make_error("repeat: repeats can not be negative, got ", r);
    if (i < lead) {
      out.push_back(r);
      continue;
    }
    const Dim& d = in[i - lead];
    if (r == 1) {
      out.push_back(d);
      continue;
    }
    KILN_ASSIGN_OR_RETURN(int64_t size, static_dim("repeat", d, "a repeated dim"));
    out.push_back(size * r);
  }
  return one(Shape(std::move(out)));
}

}  // namespace kiln
