// Shorthands the per-op exporters share: computing in a wider dtype than ONNX Runtime
// supports for an op, and elementwise arithmetic on ONNX value names.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "onnx/op_exporter.h"

namespace kiln::onnx {

// The dtype an exporter computes a result in: f16 and bf16 through f32, bool and 8/16-bit
// integers through i32 (ONNX Runtime's CPU kernels lack most ops for them; kiln's reference
// kernels compute wide and round or wrap on store, and ONNX's Cast to a narrower integer
// wraps the same way), every other dtype as it is.
DType compute_dtype(DType result);

// Exports a node with one result computed by `f` from its operands cast to the compute
// dtype of the result, then cast to the result dtype. `f` gets the operands' names and the
// compute dtype.
using ComputeFn = std::function<Expected<std::string>(ExportContext&, const std::vector<std::string>&, DType)>;
Expected<std::vector<std::string>> compute_as_result(ExportContext& cx, int num_operands, const ComputeFn& f);

// Elementwise helpers on names of the same dtype `d`.
std::string where(OnnxBuilder& b, const std::string& cond, const std::string& x, const std::string& y);
std::string is_nan(OnnxBuilder& b, const std::string& x);  // Not(Equal(x, x)): any numeric dtype
// Whether a floating x has its sign bit set, -0 included (1 / -0 is -inf).
std::string sign_bit(OnnxBuilder& b, const std::string& x, DType d);
// |magnitude| with sign_of's sign bit (C's copysign). Exporters of results whose sign is an
// operand's end with it: it gives the result's zeros their sign, which ONNX Runtime's Where
// drops (it returns +0 where it picks a -0 from its first branch, as of 1.31).
std::string copysign(OnnxBuilder& b, const std::string& magnitude, const std::string& sign_of, DType d);
// cond ? x : y for floating x and y, a -0 from x included (see copysign), where the result's
// sign is no operand's.
std::string where_keeping_zero_sign(OnnxBuilder& b, const std::string& cond, const std::string& x, const std::string& y,
                                    DType d);
// floor(a / b) for integers (Python's floor division, exact).
std::string int_floor_div(OnnxBuilder& b, const std::string& a, const std::string& bb);
// Truncation toward zero of a floating value (-0 for -0.5).
std::string trunc(OnnxBuilder& b, const std::string& x, DType d);
// log(1 + x) without losing small x (Kahan: log(u) * x / (u - 1) with u = 1 + x).
std::string log1p(OnnxBuilder& b, const std::string& x, DType d);

// An ONNX Reduce* node over `axes`: the axes an attribute before opset 18 (ReduceSum's an
// input since opset 13), an input from opset 18 on.
std::string reduce_op(ExportContext& cx, const std::string& op, const std::string& x, const std::vector<int64_t>& axes,
                      bool keepdims);

}  // namespace kiln::onnx
