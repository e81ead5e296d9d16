// Small helpers the benchmark programs share.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <utility>

#include "support/diagnostic.h"

namespace kiln::bench {

// The value, or the error printed (naming `what`) and exit(1): a benchmark has no recovery.
template <typename T>
T or_die(Expected<T> e, const char* what) {
  if (!e) {
    std::fprintf(stderr, "%s: %s\n", what, e.error().to_string().c_str());
    std::exit(1);
  }
  return std::move(*e);
}

}  // namespace kiln::bench
