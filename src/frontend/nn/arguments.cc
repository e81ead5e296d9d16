#include "frontend/nn/arguments.h"

#include "core/checked_layout.h"
#include "support/error.h"

namespace kiln::nn {

void check_size_arg(const char* module, const char* name, int64_t value) {
  if (value < 0) throw Error(make_error(module, ": ", name, " must not be negative, got ", value));
}

void check_positive_arg(const char* module, const char* name, int64_t value) {
  if (value <= 0) throw Error(make_error(module, ": ", name, " must be positive, got ", value));
}

void check_shape_arg(const char* module, const char* name, const std::vector<int64_t>& shape) {
  for (int64_t s : shape)
    if (s < 0) throw Error(make_error(module, ": ", name, " ", int_list_text(shape), " has a negative size"));
}

}  // namespace kiln::nn
