// Reference kernels of the layout ops that produce new tensors: cat, stack,
// constant_pad_nd, flip, roll, repeat, tril and triu. Most copy operand 0 (or its pieces)
// through a strided view of the result, so dtype conversion happens in Tensor::copy_from.
#include "ops/kernel_index_util.h"
#include "ops/kernel_util.h"
#include "ops/kernels.h"
#include "ops/type_rules_util.h"

namespace kiln {

namespace {

Expected<std::vector<Tensor>> single(Tensor t) { return std::vector<Tensor>{std::move(t)}; }

// The view of `out` covering [start, start + length) along `d`.
Tensor slab(const Tensor& out, int d, int64_t start, int64_t length) {
  std::vector<int64_t> sizes = out.sizes();
  sizes[static_cast<size_t>(d)] = length;
  return out.as_strided(sizes, out.strides(), out.offset() + start * out.strides()[static_cast<size_t>(d)]);
}

void fill(const Tensor& t, const Scalar& v) {
  const ElementAccess e(t);
  for_each_index(t.sizes(), {t.strides()}, [&](int64_t, const int64_t* off) {
    if (v.is_float())
      e.set(off[0], v.to_double());
    else
      e.set_int(off[0], v.to_int());
  });
}

}  // namespace

Expected<std::vector<Tensor>> kernel_cat(const KernelCall& call) {
  Tensor out = new_result(call);
  if (out.dim() == 1 && out.sizes()[0] == 0) return single(out);
  const int d = *wrap_dim(call.attr_int("dim"), out.dim());
  int64_t start = 0;
  for (const KernelOperand& o : call.operands) {
    const Tensor& t = o.tensor;
    if (t.dim() == 1 && t.sizes()[0] == 0) continue;  // torch's legacy empty tensors
    const int64_t n = t.sizes()[static_cast<size_t>(d)];
    slab(out, d, start, n).copy_from(t);
    start += n;
  }
  return single(out);
}

Expected<std::vector<Tensor>> kernel_stack(const KernelCall& call) {
  Tensor out = new_result(call);
  const int d = *wrap_dim(call.attr_int("dim"), out.dim());
  for (size_t i = 0; i < call.operands.size(); ++i) {
    std::vector<int64_t> sizes = out.sizes(), strides = out.strides();
    const int64_t offset = out.offset() + static_cast<int64_t>(i) * strides[static_cast<size_t>(d)];
    sizes.erase(sizes.begin() + d);
    strides.erase(strides.begin() + d);
    out.as_strided(sizes, strides, offset).copy_from(call.operands[i].tensor);
  }
  return single(out);
}

Expected<std::vector<Tensor>> kernel_constant_pad_nd(const KernelCall& call) {
  const Tensor& in = call.operands[0].tensor;
  Tensor out = new_result(call);
  fill(out, call.attr_scalar("value"));
  // The part of the input that survives (negative pads crop) and where it lands in out.
  Tensor src = in, dst = out;
  const std::vector<int64_t>& pad = call.attr_ints("pad");
  for (size_t p = 0; p < pad.size() / 2; ++p) {
    const int d = in.dim() - 1 - static_cast<int>(p);
    const int64_t lo = pad[2 * p], hi = pad[2 * p + 1], size = in.sizes()[static_cast<size_t>(d)];
    const int64_t src_start = lo < 0 ? -lo : 0, src_end = hi < 0 ? size + hi : size;
    const int64_t len = std::max<int64_t>(src_end - src_start, 0);
    src = slab(src, d, len > 0 ? src_start : 0, len);
    dst = slab(dst, d, len > 0 ? (lo > 0 ? lo : 0) : 0, len);
  }
  dst.copy_from(src);
  return single(out);
}

Expected<std::vector<Tensor>> kernel_flip(const KernelCall& call) {
  const Tensor& in = call.operands[0].tensor;
  std::vector<int64_t> strides = in.strides();
  int64_t offset = in.offset();
  std::vector<bool> seen(in.sizes().size(), false);
  for (int64_t dim : call.attr_ints("dims")) {
    KILN_ASSIGN_OR_RETURN(int d, wrap_dim_or_error("flip", dim, in.dim()));
    if (in.dim() == 0) continue;
    const auto ud = static_cast<size_t>(d);
    if (seen[ud]) return make_error("flip: dim ", d, " appears multiple times in the list of dims");
    seen[ud] = true;
    // A negative stride walks the dim backwards from its last element.
    if (in.sizes()[ud] > 0) offset += (in.sizes()[ud] - 1) * strides[ud];
    strides[ud] = -strides[ud];
  }
  Tensor out = new_result(call);
  out.copy_from(in.as_strided(in.sizes(), strides, offset));
  return single(out);
}

Expected<std::vector<Tensor>> kernel_roll(const KernelCall& call) {
  const Tensor& in = call.operands[0].tensor;
  const std::vector<int64_t>& shifts = call.attr_ints("shifts");
  const std::vector<int64_t>& dims = call.attr_ints("dims");
  Tensor out = new_result(call);
  if (dims.empty()) {
    // Roll of the flattened tensor, reshaped back.
    if (shifts.size() != 1)
      return make_error("roll: shifts and dimensions must align. shifts: ", shifts.size(), ", dims: 0");
    const int64_t n = in.numel();
    if (n == 0) return single(out);
    const Tensor flat_in = in.contiguous();
    const ElementAccess ei(flat_in), eo(out);
    const int64_t s = ((shifts[0] % n) + n) % n;
    for (int64_t i = 0; i < n; ++i) eo.set_from((i + s) % n, ei, i);
    return single(out);
  }
  if (shifts.size() != dims.size())
    return make_error("roll: shifts and dimensions must align. shifts: ", shifts.size(), ", dims: ", dims.size());
  std::vector<int64_t> shift(in.sizes().size(), 0);
  for (size_t i = 0; i < dims.size(); ++i) {
    KILN_ASSIGN_OR_RETURN(int d, wrap_dim_or_error("roll", dims[i], in.dim()));
    shift[static_cast<size_t>(d)] += shifts[i];
  }
  const ElementAccess ei(in), eo(out);
  std::vector<int64_t> src(in.sizes().size());
  for_each_multi_index(in.sizes(), [&](const std::vector<int64_t>& idx) {
    for (size_t k = 0; k < idx.size(); ++k) {
      const int64_t n = in.sizes()[k];
      src[k] = (((idx[k] - shift[k]) % n) + n) % n;
    }
    eo.set_from(offset_of(out.strides(), idx), ei, offset_of(in.strides(), src));
  });
  return single(out);
}

Expected<std::vector<Tensor>> kernel_repeat(const KernelCall& call) {
  const Tensor& in = call.operands[0].tensor;
  Tensor out = new_result(call);
  const size_t lead = out.sizes().size() - in.sizes().size();
  const ElementAccess ei(in), eo(out);
  std::vector<int64_t> src(in.sizes().size());
  for_each_multi_index(out.sizes(), [&](const std::vector<int64_t>& idx) {
    for (size_t k = 0; k < src.size(); ++k) src[k] = idx[lead + k] % in.sizes()[k];
    eo.set_from(offset_of(out.strides(), idx), ei, offset_of(in.strides(), src));
  });
  return single(out);
}

namespace {

// tril (lower = true) or triu over the last two dims; other elements become zero.
Expected<std::vector<Tensor>> triangle(const KernelCall& call, bool lower) {
  const Tensor& in = call.operands[0].tensor;
  if (in.dim() < 2) return make_error(call.name(), ": input tensor must have at least 2 dimensions, got ", in.dim());
  const int64_t diag = call.attr_int("diagonal");
  Tensor out = new_result(call);
  const ElementAccess ei(in), eo(out);
  const size_t r = in.sizes().size();
  for_each_multi_index(in.sizes(), [&](const std::vector<int64_t>& idx) {
    const int64_t j_minus_i = idx[r - 1] - idx[r - 2];
    if (lower ? j_minus_i <= diag : j_minus_i >= diag)
      eo.set_from(offset_of(out.strides(), idx), ei, offset_of(in.strides(), idx));
  });
  return single(out);
}

}  // namespace

Expected<std::vector<Tensor>> kernel_tril(const KernelCall& call) { return triangle(call, true); }

Expected<std::vector<Tensor>> kernel_triu(const KernelCall& call) { return triangle(call, false); }

}  // namespace kiln
