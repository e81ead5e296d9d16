// Scalar C++ for one body value: the type a dtype's values are held in, literals, loads,
// stores and conversions, each matching the loop-IR evaluator (lower/loop_eval.cc) in
// semantics (cpp_math.h: compute ops). Compute types (docs/CODEGEN.md): f64 in double; f32,
// f16 and bf16 in float (the evaluator computes in double); integers in int64_t with
// wrapping arithmetic; bool as bool. Every function returns an expression; callers name it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "core/dtype.h"
#include "core/scalar.h"

namespace kiln::cpp {

// "double", "float", "int64_t" or "bool": the type a body value of dtype `t` is held in.
std::string_view value_type(DType t);
// The element type of a buffer: f16/bf16 as uint16_t bits, bool as uint8_t 0/1.
std::string_view storage_type(DType t);

// `name` with every character outside [A-Za-z0-9_] replaced by '_'.
std::string identifier(std::string_view name);

std::string int_literal(int64_t v);                // INT64_MIN as (-9223372036854775807 - 1)
std::string float_literal(double v, bool single);  // exact: 0.1f, 2.0, -__builtin_inff(), __builtin_nan("")
// A `const` of dtype t: the value rounded to t exactly as the evaluator rounds it.
std::string const_literal(const Scalar& v, DType t);

// The value held in storage element `elem` of a buffer of dtype t.
std::string load_value(const std::string& elem, DType t);
// Value x of dtype `from` as a storage element of dtype `to` (what a store writes).
std::string store_value(const std::string& x, DType from, DType to);
// Value x of dtype `from` converted to dtype `to` and held in value_type(to): as a store
// then a load would (f16 and narrow integers round or wrap; float -> int is guarded).
std::string convert_value(const std::string& x, DType from, DType to);

// Value x of dtype t as a truth value (a bool expression).
std::string truth_value(const std::string& x, DType t);
// Value x of dtype `from` as an int64_t expression, as the evaluator's load_int / double_to_int64.
std::string int64_value(const std::string& x, DType from);

}  // namespace kiln::cpp
