#include "support/cache_dir.h"

#include <cstdlib>

namespace kiln {

Expected<std::string> default_cache_dir() {
  const char* dir = std::getenv("KILN_CACHE_DIR");
  if (dir && *dir) return std::string(dir);
  const char* home = std::getenv("HOME");
  if (home && *home) return std::string(home) + "/.cache/kiln";
  return make_error("no kernel cache directory: set KILN_CACHE_DIR (or HOME)");
}

}  // namespace kiln
