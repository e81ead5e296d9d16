#include "core/dtype.h"

#include <array>
#include <limits>

#include "core/half.h"

namespace kiln {

namespace {

struct DTypeInfo {
  std::string_view name;
  int size;
};

constexpr std::array<DTypeInfo, kNumDTypes> kInfo = {{
#define KILN_DTYPE_INFO(E, name, T, size) {name, size},
    KILN_DTYPES(KILN_DTYPE_INFO)
#undef KILN_DTYPE_INFO
}};

}  // namespace

std::string_view dtype_name(DType t) { return kInfo[static_cast<int>(t)].name; }
int dtype_size(DType t) { return kInfo[static_cast<int>(t)].size; }

std::optional<DType> dtype_from_name(std::string_view s) {
  for (int i = 0; i < kNumDTypes; ++i)
    if (kInfo[i].name == s) return static_cast<DType>(i);
  return std::nullopt;
}

bool is_floating(DType t) { return t == DType::F16 || t == DType::BF16 || t == DType::F32 || t == DType::F64; }
double dtype_epsilon(DType t) {
  switch (t) {
    case DType::F16: return 0.0009765625;
    case DType::BF16: return 0.0078125;
    case DType::F32: return std::numeric_limits<float>::epsilon();
    default: return std::numeric_limits<double>::epsilon();
  }
}

bool is_integral(DType t) {
  return t == DType::U8 || t == DType::I8 || t == DType::I16 || t == DType::I32 || t == DType::I64;
}
bool is_signed(DType t) { return t != DType::Bool && t != DType::U8; }

int dtype_category(DType t) { return t == DType::Bool ? 0 : is_integral(t) ? 1 : 2; }

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  int ca = dtype_category(a), cb = dtype_category(b);
  if (ca != cb) return ca > cb ? a : b;
  if (ca == 2) {
    if ((a == DType::F16 && b == DType::BF16) || (a == DType::BF16 && b == DType::F16)) return DType::F32;
    return dtype_size(a) >= dtype_size(b) ? a : b;
  }
  // Integral: u8 mixes with signed types by widening to the next signed type that holds both.
  if (a == DType::U8 || b == DType::U8) {
    DType other = a == DType::U8 ? b : a;
    return other == DType::I8 ? DType::I16 : other;
  }
  return dtype_size(a) >= dtype_size(b) ? a : b;
}

}  // namespace kiln
