// CUDA C++ for the loop IR's compute ops (lower/compute_ops.def), with the evaluator's
// semantics: one case per op (no default), so a declared op without its CUDA text does not
// build. The compute types and operand conversions are the C++ printer's (cpp_math.h's
// compute_expr_with): f32/f16/bf16 in float, f64 and mixed floating work in double, integers
// in int64_t. Floating functions are CUDA's (expf, erff, ... in float; exp, erf, ... in
// double: within 2 ulp, docs/CUDA_CODEGEN.md), but for results rounded to bf16 or f16, where
// exp, sigmoid (and tanh for bf16) use the hardware's approximate functions, whose error is far
// below that rounding; helpers with no CUDA function are the prelude's (cuda_prelude.h).
#pragma once

#include <span>
#include <string>

#include "core/dtype.h"
#include "ops/attr.h"
#include "ops/op_kind.h"

namespace kiln::cuda {

// Compute op `op` (with its loop-body `attrs`) on `args` (values of `arg_dtypes`), result dtype `out`.
std::string compute_expr(OpKind op, std::span<const std::string> args, std::span<const DType> arg_dtypes, DType out,
                         const AttrMap& attrs = {});

}  // namespace kiln::cuda
