#include "core/element.h"

#include <cmath>
#include <cstring>

#include "core/half.h"
#include "support/check.h"

namespace kiln {

namespace {

template <typename T>
T load_raw(const std::byte* base, int64_t index) {
  T v;
  std::memcpy(&v, base + index * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return v;
}

template <typename T>
void store_raw(std::byte* base, int64_t index, T v) {
  std::memcpy(base + index * static_cast<int64_t>(sizeof(T)), &v, sizeof(T));
}

// double -> int64 without UB: NaN gives 0, out-of-range saturates.
int64_t double_to_int64(double v) {
  if (std::isnan(v)) return 0;
  if (v >= 9.2233720368547758e18) return INT64_MAX;
  if (v <= -9.2233720368547758e18) return INT64_MIN;
  return static_cast<int64_t>(v);
}

}  // namespace

double load_double(const std::byte* base, DType dtype, int64_t index) {
  switch (dtype) {
    case DType::Bool: return load_raw<uint8_t>(base, index) ? 1.0 : 0.0;
    case DType::U8: return load_raw<uint8_t>(base, index);
    case DType::I8: return load_raw<int8_t>(base, index);
    case DType::I16: return load_raw<int16_t>(base, index);
    case DType::I32: return load_raw<int32_t>(base, index);
    case DType::I64: return static_cast<double>(load_raw<int64_t>(base, index));
    case DType::F16: return Half::to_float(load_raw<uint16_t>(base, index));
    case DType::BF16: return BFloat16::to_float(load_raw<uint16_t>(base, index));
    case DType::F32: return load_raw<float>(base, index);
    case DType::F64: return load_raw<double>(base, index);
  }
  KILN_UNREACHABLE("bad dtype");
}

int64_t load_int(const std::byte* base, DType dtype, int64_t index) {
  switch (dtype) {
    case DType::Bool: return load_raw<uint8_t>(base, index) ? 1 : 0;
    case DType::U8: return load_raw<uint8_t>(base, index);
    case DType::I8: return load_raw<int8_t>(base, index);
    case DType::I16: return load_raw<int16_t>(base, index);
    case DType::I32: return load_raw<int32_t>(base, index);
    case DType::I64: return load_raw<int64_t>(base, index);
    default: return double_to_int64(load_double(base, dtype, index));
  }
}

int64_t load_int_as(const std::byte* base, DType dtype, int64_t index, DType to) {
  if (to == DType::Bool) return load_double(base, dtype, index) != 0.0;
  const int64_t v = load_int(base, dtype, index);
  switch (to) {  // wraps to the width of `to`, as store_int does
    case DType::U8: return static_cast<uint8_t>(v);
    case DType::I8: return static_cast<int8_t>(v);
    case DType::I16: return static_cast<int16_t>(v);
    case DType::I32: return static_cast<int32_t>(v);
    default: return v;
  }
}

void store_double(std::byte* base, DType dtype, int64_t index, double v) {
  switch (dtype) {
    case DType::Bool: store_raw<uint8_t>(base, index, v != 0.0 ? 1 : 0); return;
    case DType::F16: store_raw<uint16_t>(base, index, Half::from_float(static_cast<float>(v))); return;
    case DType::BF16: store_raw<uint16_t>(base, index, BFloat16::from_float(static_cast<float>(v))); return;
    case DType::F32: store_raw<float>(base, index, static_cast<float>(v)); return;
    case DType::F64: store_raw<double>(base, index, v); return;
    default: store_int(base, dtype, index, double_to_int64(v)); return;
  }
}

void store_int(std::byte* base, DType dtype, int64_t index, int64_t v) {
  switch (dtype) {
    case DType::Bool: store_raw<uint8_t>(base, index, v != 0 ? 1 : 0); return;
    case DType::U8: store_raw<uint8_t>(base, index, static_cast<uint8_t>(v)); return;
    case DType::I8: store_raw<int8_t>(base, index, static_cast<int8_t>(v)); return;
    case DType::I16: store_raw<int16_t>(base, index, static_cast<int16_t>(v)); return;
    case DType::I32: store_raw<int32_t>(base, index, static_cast<int32_t>(v)); return;
    case DType::I64: store_raw<int64_t>(base, index, v); return;
    default: store_double(base, dtype, index, static_cast<double>(v)); return;
  }
}

}  // namespace kiln
