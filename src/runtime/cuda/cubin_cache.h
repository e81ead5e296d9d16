// The disk cache of cubins: a directory (by default `cuda/` under support/cache_dir.h's, beside
// the CPU's compiled units) of <key>.cu, <key>.cubin, <key>.log and <key>.sum. The key is a
// content hash (support/hash.h) of the source, NVRTC's flags, NVRTC's version and the
// architecture; <key>.log is NVRTC's log (ptxas's report per kernel, kept for the compile
// report on a hit as on a miss) and <key>.sum records checksums of the source, the key's other
// fields, the cubin and the log. An entry is a hit only when all of them match; one that fails
// is rebuilt, with the reason. Files are written under a temporary name and renamed (the
// record last), so processes that build one key at once each see whole files.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "runtime/cuda/nvrtc.h"
#include "support/diagnostic.h"

namespace kiln {

// What a cubin depends on besides its source.
struct CubinBuild {
  NvrtcOptions options = cubin_options();
  std::string nvrtc_version;  // nvrtc_version(): "13.0"

  // The fields as one text (the flags, the version, the architecture), hashed into keys.
  std::string to_string() const;
};

class CubinCache {
 public:
  // Creates the directory (and its parents) when missing.
  static Expected<CubinCache> open(const std::string& dir);
  // `default_cache_dir()`/cuda.
  static Expected<CubinCache> open_default();

  const std::string& dir() const { return dir_; }
  static std::string key(std::string_view source, const CubinBuild& build);
  std::string source_path(const std::string& key) const { return dir_ + "/" + key + ".cu"; }
  std::string cubin_path(const std::string& key) const { return dir_ + "/" + key + ".cubin"; }
  std::string log_path(const std::string& key) const { return dir_ + "/" + key + ".log"; }
  std::string record_path(const std::string& key) const { return dir_ + "/" + key + ".sum"; }

  struct Lookup {
    std::optional<Cubin> cubin;  // a verified entry, its kernels' resources parsed from its log
    std::string problem;         // no hit, but an entry is there: what failed verification
  };
  // No entry, or one without its record (being written, or from an older kiln), is a miss with
  // no problem to report.
  Lookup lookup(const std::string& key, std::string_view source, const CubinBuild& build) const;
  // Compiles `source` with NVRTC and writes the entry. Errors: NVRTC's (missing, or the source
  // does not compile), or a file that cannot be written.
  Expected<Cubin> build(const std::string& key, std::string_view source, const CubinBuild& build) const;

 private:
  explicit CubinCache(std::string dir) : dir_(std::move(dir)) {}
  std::string dir_;
};

}  // namespace kiln
