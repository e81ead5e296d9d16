// Element types and PyTorch-style type promotion.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace kiln {

// X(Enumerator, printed name, C++ storage type, size in bytes)
#define KILN_DTYPES(X)                 \
  X(Bool, "bool", bool, 1)             \
  X(U8, "u8", uint8_t, 1)              \
  X(I8, "i8", int8_t, 1)               \
  X(I16, "i16", int16_t, 2)            \
  X(I32, "i32", int32_t, 4)            \
  X(I64, "i64", int64_t, 8)            \
  X(F16, "f16", ::kiln::Half, 2)       \
  X(BF16, "bf16", ::kiln::BFloat16, 2) \
  X(F32, "f32", float, 4)              \
  X(F64, "f64", double, 8)

enum class DType : uint8_t {
#define KILN_DTYPE_ENUM(E, name, T, size) E,
  KILN_DTYPES(KILN_DTYPE_ENUM)
#undef KILN_DTYPE_ENUM
};
inline constexpr int kNumDTypes = 10;

std::string_view dtype_name(DType t);                      // "f32"
std::optional<DType> dtype_from_name(std::string_view s);  // "f32" -> F32
int dtype_size(DType t);

bool is_floating(DType t);  // f16 bf16 f32 f64
// Machine epsilon of a floating dtype, as torch.finfo(dtype).eps (f64's for other dtypes).
double dtype_epsilon(DType t);
bool is_integral(DType t);  // u8 i8 i16 i32 i64 (not bool)
bool is_signed(DType t);

// The default dtype of floating results (torch.get_default_dtype()).
inline constexpr DType kDefaultFloat = DType::F32;

// torch.promote_types: the smallest type both values fit in, by category
// (bool < integral < floating). u8 with a signed int goes to the next wider signed type;
// f16 with bf16 goes to f32.
DType promote_types(DType a, DType b);

// Category of a type for scalar/zero-dim promotion: 0 bool, 1 integral, 2 floating.
int dtype_category(DType t);

}  // namespace kiln
