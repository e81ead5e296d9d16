#include "support/check.h"

#include <cstdio>
#include <cstdlib>

namespace kiln::detail {

CheckFailure::CheckFailure(const char* cond, const char* file, int line) {
  os_ << file << ":" << line << ": internal error: check failed: " << cond << " ";
}

CheckFailure::~CheckFailure() {
  std::fprintf(stderr, "%s\n", os_.str().c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace kiln::detail
