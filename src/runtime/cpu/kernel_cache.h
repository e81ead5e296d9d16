// The disk cache of compiled C++ units. A directory ($KILN_CACHE_DIR, else
// $HOME/.cache/kiln, unless the caller names one) of <key>.cpp, <key>.so and <key>.sum, where
// key is a 64-bit content hash (support/hash.h) of the unit's source, the emit options, the
// compiler flags and the compiler's identity, and <key>.sum records checksums of the source,
// of the rest of the key's fields and of the library's bytes. An entry is a hit only when
// all of them match: a truncated or overwritten library, an edited source or a foreign entry
// under the key is rebuilt. Files are written under a temporary name and renamed (the record
// last), so processes that build the same key at once each see whole files; a hit runs no
// compiler.
#pragma once

#include <string>

#include "runtime/cpu/toolchain.h"
#include "support/cache_dir.h"
#include "support/diagnostic.h"

namespace kiln {

class KernelCache {
 public:
  // Creates the directory (and its parents) when missing.
  static Expected<KernelCache> open(const std::string& dir);

  const std::string& dir() const { return dir_; }
  static std::string key(const std::string& source, const std::string& emit_options, const CpuToolchain& t);
  std::string source_path(const std::string& key) const { return dir_ + "/" + key + ".cpp"; }
  std::string library_path(const std::string& key) const { return dir_ + "/" + key + ".so"; }
  std::string record_path(const std::string& key) const { return dir_ + "/" + key + ".sum"; }

  // What the cache holds under `key` for `source` built with `emit_options` and `t`.
  struct Lookup {
    bool hit = false;     // <key>.so is a verified build of them: load it
    std::string problem;  // not a hit, but an entry is there: what failed verification
  };
  // No entry, or one whose record is missing (being written, or from an older kiln), is a
  // miss with no problem to report.
  Lookup lookup(const std::string& key, const std::string& source, const std::string& emit_options,
                const CpuToolchain& t) const;
  // Writes <key>.cpp, compiles it to <key>.so with `t` and records their checksums.
  Status build(const std::string& key, const std::string& source, const std::string& emit_options,
               const CpuToolchain& t) const;

 private:
  explicit KernelCache(std::string dir) : dir_(std::move(dir)) {}
  std::string dir_;
};

}  // namespace kiln
