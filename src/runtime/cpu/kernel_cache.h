// The disk cache of compiled C++ units. A directory ($KILN_CACHE_DIR, else
// $HOME/.cache/kiln, unless the caller names one) of <key>.cpp and <key>.so, where key is
// a 64-bit content hash (support/hash.h) of the unit's source, the emit options, the
// compiler flags and the compiler's identity. Files are written under a temporary name and
// renamed, so processes that build the same key at once each see a whole file; a key
// whose .so exists is a hit and runs no compiler.
#pragma once

#include <string>

#include "runtime/cpu/toolchain.h"
#include "support/diagnostic.h"

namespace kiln {

// $KILN_CACHE_DIR when set and not empty, else $HOME/.cache/kiln; an error when neither
// variable is set.
Expected<std::string> default_cache_dir();

class KernelCache {
 public:
  // Creates the directory (and its parents) when missing.
  static Expected<KernelCache> open(const std::string& dir);

  const std::string& dir() const { return dir_; }
  static std::string key(const std::string& source, const std::string& emit_options, const CpuToolchain& t);
  std::string source_path(const std::string& key) const { return dir_ + "/" + key + ".cpp"; }
  std::string library_path(const std::string& key) const { return dir_ + "/" + key + ".so"; }

  bool has(const std::string& key) const;
  // Writes <key>.cpp and compiles it to <key>.so with `t`.
  Status build(const std::string& key, const std::string& source, const CpuToolchain& t) const;

 private:
  explicit KernelCache(std::string dir) : dir_(std::move(dir)) {}
  std::string dir_;
};

}  // namespace kiln
