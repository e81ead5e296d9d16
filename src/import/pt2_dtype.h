// The archive's own dtype numbering (serde ScalarType in PyTorch 2.15's
// torch/_export/serde/schema.py: 7 is float32, 12 bool, 13 bfloat16) and kiln's dtypes.
#pragma once

#include <optional>
#include <string>

#include "core/dtype.h"

namespace kiln::pt2 {

// kiln's dtype for an archive dtype code; nullopt for one kiln lacks (complex, float8, uint16..).
std::optional<DType> dtype_from_archive(int code);
// "float32 (7)", "complex64 (10)", "unknown dtype code 99": for messages.
std::string archive_dtype_name(int code);

}  // namespace kiln::pt2
