#include "support/check.h"

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace kiln {

namespace {
thread_local std::vector<std::string> check_contexts;
}

CheckContext::CheckContext(std::string what) { check_contexts.push_back(std::move(what)); }
CheckContext::~CheckContext() { check_contexts.pop_back(); }

}  // namespace kiln

namespace kiln::detail {

CheckFailure::CheckFailure(const char* cond, const char* file, int line) {
  os_ << file << ":" << line << ": internal error: check failed: " << cond << " ";
}

CheckFailure::~CheckFailure() {
  std::fprintf(stderr, "%s\n", os_.str().c_str());
  for (auto it = check_contexts.rbegin(); it != check_contexts.rend(); ++it)
    std::fprintf(stderr, "  while %s\n", it->c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace kiln::detail
