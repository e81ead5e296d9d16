// Building blocks of the reference kernels: strided iteration with broadcasting, operand
// access for tensors and inline literals, and result allocation.
#pragma once

#include <cstdint>
#include <vector>

#include "core/element.h"
#include "core/tensor.h"
#include "ops/op_call.h"
#include "support/check.h"

namespace kiln {

// Strides of `t` viewed at `sizes` under broadcasting: stretched (and missing leading) dims
// get stride 0. Requires that t's sizes broadcast to `sizes`.
std::vector<int64_t> broadcast_strides(const Tensor& t, const std::vector<int64_t>& sizes);
// The same for a layout given by its sizes and strides.
std::vector<int64_t> broadcast_strides(const std::vector<int64_t>& from_sizes, const std::vector<int64_t>& from_strides,
                                       const std::vector<int64_t>& sizes);

// `t` (rank >= 2) viewed with its leading (batch) dims broadcast to `batch` and its last two
// dims as they are: the operands of a batched matrix product.
Tensor broadcast_batch(const Tensor& t, const std::vector<int64_t>& batch);

// Calls f(flat, offsets) for every row-major index of `sizes`, where offsets[k] is the
// element offset of operand k (from its strides). Iteration is sequential and in order.
template <typename F>
void for_each_index(const std::vector<int64_t>& sizes, const std::vector<std::vector<int64_t>>& strides, F&& f) {
  const size_t rank = sizes.size(), n_ops = strides.size();
  int64_t total = 1;
  for (int64_t s : sizes) total *= s;
  if (total == 0) return;
  std::vector<int64_t> idx(rank, 0), off(n_ops, 0);
  for (int64_t flat = 0; flat < total; ++flat) {
    f(flat, off.data());
    for (size_t d = rank; d-- > 0;) {
      ++idx[d];
      for (size_t k = 0; k < n_ops; ++k) off[k] += strides[k][d];
      if (idx[d] < sizes[d]) break;
      for (size_t k = 0; k < n_ops; ++k) off[k] -= strides[k][d] * idx[d];
      idx[d] = 0;
    }
  }
}

// An operand that is a tensor broadcast to some shape, or an inline literal, read as double
// or int64 at a given offset (literals ignore the offset).
class OperandReader {
 public:
  OperandReader(const KernelOperand& op) : tensor_(op.tensor), literal_(op.literal) {}  // NOLINT
  bool is_tensor() const { return tensor_.defined(); }
  const Tensor& tensor() const { return tensor_; }
  double load_double(int64_t offset) const {
    return is_tensor() ? kiln::load_double(tensor_.data_bytes(), tensor_.dtype(), offset) : literal_.to_double();
  }
  int64_t load_int(int64_t offset) const {
    return is_tensor() ? kiln::load_int(tensor_.data_bytes(), tensor_.dtype(), offset) : literal_.to_int();
  }
  // Cast to integer or bool dtype `to` as torch casts (load_int_as): a bool reads x != 0.
  int64_t load_int_as(int64_t offset, DType to) const {
    if (!is_tensor()) return to == DType::Bool ? literal_.to_double() != 0 : literal_.to_int();
    return kiln::load_int_as(tensor_.data_bytes(), tensor_.dtype(), offset, to);
  }
  // Strides at `sizes` (all zero for literals).
  std::vector<int64_t> strides_at(const std::vector<int64_t>& sizes) const {
    return is_tensor() ? broadcast_strides(tensor_, sizes) : std::vector<int64_t>(sizes.size(), 0);
  }

 private:
  Tensor tensor_;
  Scalar literal_;
};

// A fresh, zeroed tensor of result i's type (static shape required).
Tensor new_result(const KernelCall& call, int i = 0);

// Elementwise map over operands broadcast to result 0's shape. `compute` receives the
// operands' values as doubles (if the computation dtype is floating) and returns a double;
// `compute_int` likewise over int64. The computation dtype is `compute_dtype`: floating
// computes in double, everything else in int64 (operands cast to it: a float is true in a bool
// computation when it is not 0). The result is written to a new result tensor.
template <typename FloatFn, typename IntFn>
Tensor map_elementwise(const KernelCall& call, DType compute_dtype, FloatFn&& compute, IntFn&& compute_int) {
  Tensor out = new_result(call);
  const std::vector<int64_t>& sizes = out.sizes();
  std::vector<OperandReader> readers(call.operands.begin(), call.operands.end());
  std::vector<std::vector<int64_t>> strides;
  for (const OperandReader& r : readers) strides.push_back(r.strides_at(sizes));
  strides.push_back(out.strides());
  const size_t n = readers.size();
  std::byte* out_base = out.data_bytes();
  const DType out_dtype = out.dtype();
  const bool float_path = is_floating(compute_dtype);
  std::vector<double> fv(n);
  std::vector<int64_t> iv(n);
  for_each_index(sizes, strides, [&](int64_t, const int64_t* off) {
    if (float_path) {
      for (size_t k = 0; k < n; ++k) fv[k] = readers[k].load_double(off[k]);
      store_double(out_base, out_dtype, off[n], compute(fv.data()));
    } else {
      for (size_t k = 0; k < n; ++k) iv[k] = readers[k].load_int_as(off[k], compute_dtype);
      store_int(out_base, out_dtype, off[n], compute_int(iv.data()));
    }
  });
  return out;
}

// Wrapping int64 arithmetic (modulo 2^64, through unsigned types so overflow is defined);
// stores then wrap further to the result dtype's width.
inline int64_t wrap_add(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
inline int64_t wrap_sub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
inline int64_t wrap_mul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}
inline int64_t wrap_neg(int64_t a) { return wrap_sub(0, a); }

// `v` rounded to the precision of floating dtype `t` (identity for f64 and non-floating t).
double round_to_dtype(double v, DType t);

// Like map_elementwise, but each floating operand value is first rounded to `compute_dtype`,
// as PyTorch converts every operand to the common dtype before computing (so `eq(x, 0.1)` on
// f32 compares with 0.1f, not with the double 0.1).
template <typename FloatFn, typename IntFn>
Tensor map_elementwise_in(const KernelCall& call, DType compute_dtype, FloatFn&& compute, IntFn&& compute_int) {
  return map_elementwise(
      call, compute_dtype,
      [&](const double* v) {
        double r[4];
        const size_t n = call.operands.size();
        KILN_CHECK(n <= 4) << "map_elementwise_in: at most 4 operands";
        for (size_t k = 0; k < n; ++k) r[k] = round_to_dtype(v[k], compute_dtype);
        return compute(static_cast<const double*>(r));
      },
      compute_int);
}

}  // namespace kiln
