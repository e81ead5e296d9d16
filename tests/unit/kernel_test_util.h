// Shorthands for kernel unit tests: operands, tensors from literal values, running one op
// and reading its first result or its error message.
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <string>
#include <vector>

#include "ops/op_call.h"

namespace kiln::test {

inline KernelOperand T(const Tensor& t) { return KernelOperand{t, Scalar()}; }
inline KernelOperand L(Scalar s) { return KernelOperand{Tensor(), s}; }
inline KernelOperand None() { return KernelOperand{Tensor(), Scalar()}; }

inline Tensor F(std::vector<double> v, std::vector<int64_t> sizes = {}, DType t = DType::F32) {
  if (sizes.empty()) sizes = {static_cast<int64_t>(v.size())};
  return Tensor::from_doubles(v, sizes, t);
}
inline Tensor I(std::vector<int64_t> v, std::vector<int64_t> sizes = {}, DType t = DType::I64) {
  if (sizes.empty()) sizes = {static_cast<int64_t>(v.size())};
  return Tensor::from_ints(v, sizes, t);
}
// 0, 1, 2, ... in the given shape.
inline Tensor arange_f(std::vector<int64_t> sizes, DType t = DType::F32) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(static_cast<double>(i));
  return Tensor::from_doubles(v, sizes, t);
}

inline std::vector<Tensor> run_all(OpKind op, std::vector<KernelOperand> ops, const AttrMap& attrs = {}) {
  Expected<std::vector<Tensor>> r = run_op(op, attrs, ops);
  EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().message());
  return r ? r.value() : std::vector<Tensor>{};
}
inline Tensor run1(OpKind op, std::vector<KernelOperand> ops, const AttrMap& attrs = {}) {
  std::vector<Tensor> r = run_all(op, std::move(ops), attrs);
  return r.empty() ? Tensor() : r[0];
}
inline std::string run_error(OpKind op, std::vector<KernelOperand> ops, const AttrMap& attrs = {}) {
  Expected<std::vector<Tensor>> r = run_op(op, attrs, ops);
  return r ? "no error" : r.error().message();
}

// Values compared within `tol` (NaN equal to NaN); dtype and sizes exactly.
inline void expect_close(const Tensor& got, const Tensor& want, double tol = 1e-5) {
  ASSERT_TRUE(got.defined());
  ASSERT_EQ(got.dtype(), want.dtype()) << got.to_string();
  ASSERT_EQ(got.sizes(), want.sizes()) << got.to_string();
  for (int64_t i = 0; i < got.numel(); ++i) {
    const double a = got.item_double(i), b = want.item_double(i);
    if (a != a && b != b) continue;
    EXPECT_NEAR(a, b, tol) << "element " << i << "\ngot " << got.to_string() << "\nwant " << want.to_string();
  }
}

// Result types of `op` on operands of the given types (for symbolic-shape rules).
inline Expected<std::vector<TensorType>> types_of(OpKind op, std::vector<TensorType> types, const AttrMap& attrs = {}) {
  std::vector<TypeOperand> ops;
  for (auto& t : types) ops.push_back(TypeOperand{t, Scalar()});
  return infer_types(TypeCall(op, attrs, ops));
}

inline Shape sym(std::vector<std::string> dims) {
  std::vector<Dim> out;
  for (const auto& d : dims) {
    if (!d.empty() && std::isdigit(static_cast<unsigned char>(d[0])))
      out.push_back(Dim(std::stoll(d)));
    else
      out.push_back(Dim::symbol(d));
  }
  return Shape(out);
}

}  // namespace kiln::test
