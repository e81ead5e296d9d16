// The archive's dtype codes (pt2_dtype.h).
#include "import/pt2_dtype.h"

#include <array>
#include <string_view>

namespace kiln::pt2 {
namespace {

struct ArchiveDType {
  int code;
  std::string_view name;
  std::optional<DType> dtype;
};

constexpr std::array kArchiveDTypes = {
    ArchiveDType{1, "uint8", DType::U8},
    ArchiveDType{2, "int8", DType::I8},
    ArchiveDType{3, "int16", DType::I16},
    ArchiveDType{4, "int32", DType::I32},
    ArchiveDType{5, "int64", DType::I64},
    ArchiveDType{6, "float16", DType::F16},
    ArchiveDType{7, "float32", DType::F32},
    ArchiveDType{8, "float64", DType::F64},
    ArchiveDType{9, "complex32", std::nullopt},
    ArchiveDType{10, "complex64", std::nullopt},
    ArchiveDType{11, "complex128", std::nullopt},
    ArchiveDType{12, "bool", DType::Bool},
    ArchiveDType{13, "bfloat16", DType::BF16},
    ArchiveDType{28, "uint16", std::nullopt},
    ArchiveDType{29, "float8_e4m3fn", std::nullopt},
    ArchiveDType{30, "float8_e5m2", std::nullopt},
    ArchiveDType{31, "float8_e4m3fnuz", std::nullopt},
    ArchiveDType{32, "float8_e5m2fnuz", std::nullopt},
    ArchiveDType{33, "float8_e8m0fnu", std::nullopt},
    ArchiveDType{34, "uint32", std::nullopt},
    ArchiveDType{35, "uint64", std::nullopt},
};

const ArchiveDType* find(int code) {
  for (const ArchiveDType& d : kArchiveDTypes)
    if (d.code == code) return &d;
  return nullptr;
}

}  // namespace

std::optional<DType> dtype_from_archive(int code) {
  const ArchiveDType* d = find(code);
  return d ? d->dtype : std::nullopt;
}

std::string archive_dtype_name(int code) {
  const ArchiveDType* d = find(code);
  if (!d) return "unknown dtype code " + std::to_string(code);
  return std::string(d->name) + " (" + std::to_string(code) + ")";
}

}  // namespace kiln::pt2
