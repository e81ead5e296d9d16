#include "runtime/cuda/cubin_cache.h"

#include <filesystem>
#include <sstream>

#include "support/cache_dir.h"
#include "support/file_io.h"
#include "support/hash.h"

namespace kiln {

namespace fs = std::filesystem;

namespace {

std::string checksum(std::string_view bytes) { return ContentHash().add(bytes).hex(); }

// The whole file, or nothing when it cannot be read.
std::optional<std::string> read_if_there(const std::string& path) {
  Expected<std::string> bytes = read_file_bytes(path);
  if (!bytes) return std::nullopt;
  return std::move(bytes).value();
}

// What <key>.sum holds, one field a line:
//   kiln cubin cache entry 1
//   source <checksum>
//   build <checksum of CubinBuild::to_string()>
//   cubin <bytes> <checksum>
//   log <bytes> <checksum>
struct EntryRecord {
  static constexpr std::string_view kHeader = "kiln cubin cache entry 1";
  std::string source, build, cubin, log;
  int64_t cubin_bytes = -1, log_bytes = -1;

  std::string to_text() const {
    return std::string(kHeader) + "\nsource " + source + "\nbuild " + build + "\ncubin " + std::to_string(cubin_bytes) +
           " " + cubin + "\nlog " + std::to_string(log_bytes) + " " + log + "\n";
  }
  // Nothing when `text` is not a record this version writes.
  static std::optional<EntryRecord> parse(const std::string& text) {
    std::istringstream in(text);
    std::string header, source, build, cubin, log;
    EntryRecord r;
    if (!std::getline(in, header) || header != kHeader) return std::nullopt;
    if (!(in >> source >> r.source >> build >> r.build >> cubin >> r.cubin_bytes >> r.cubin >> log >> r.log_bytes >>
          r.log))
      return std::nullopt;
    if (source != "source" || build != "build" || cubin != "cubin" || log != "log") return std::nullopt;
    return r;
  }
};

// "" when `bytes` (the file at `path`) are what the record says, else why not.
std::string mismatch(const std::string& path, const std::optional<std::string>& bytes, int64_t size,
                     const std::string& sum) {
  if (!bytes) return path + " cannot be read";
  if (static_cast<int64_t>(bytes->size()) != size)
    return path + " has " + std::to_string(bytes->size()) + " bytes, not the " + std::to_string(size) +
           " it was built with (truncated or overwritten)";
  if (checksum(*bytes) != sum) return path + " does not hold the bytes it was built with";
  return "";
}

}  // namespace

std::string CubinBuild::to_string() const {
  std::string text;
  for (const std::string& flag : nvrtc_flags(options)) text += flag + " ";
  return text + "nvrtc " + nvrtc_version + " arch " + options.arch;
}

Expected<CubinCache> CubinCache::open(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir))
    return make_error("cannot create the cubin cache directory ", dir, ": ", ec ? ec.message() : "not a directory");
  return CubinCache(dir);
}

Expected<CubinCache> CubinCache::open_default() {
  KILN_ASSIGN_OR_RETURN(std::string dir, default_cache_dir());
  return open(dir + "/cuda");
}

std::string CubinCache::key(std::string_view source, const CubinBuild& build) {
  return ContentHash().add(source).add(build.to_string()).hex();
}

CubinCache::Lookup CubinCache::lookup(const std::string& key, std::string_view source, const CubinBuild& build) const {
  std::error_code ec;
  if (!fs::exists(cubin_path(key), ec)) return {};
  const std::optional<std::string> text = read_if_there(record_path(key));
  if (!text) return {};
  const std::optional<EntryRecord> record = EntryRecord::parse(*text);
  if (!record) return {std::nullopt, "its checksum record " + record_path(key) + " is not one this kiln writes"};
  if (record->source != checksum(source) || record->build != checksum(build.to_string()))
    return {std::nullopt, "it was built from other source or options under the same key"};
  if (read_if_there(source_path(key)) != source)
    return {std::nullopt, "its source " + source_path(key) + " was changed or removed"};
  std::optional<std::string> cubin = read_if_there(cubin_path(key));
  if (std::string bad = mismatch(cubin_path(key), cubin, record->cubin_bytes, record->cubin); !bad.empty())
    return {std::nullopt, bad};
  std::optional<std::string> log = read_if_there(log_path(key));
  if (std::string bad = mismatch(log_path(key), log, record->log_bytes, record->log); !bad.empty())
    return {std::nullopt, bad};
  std::vector<KernelResources> kernels = parse_ptxas_log(*log);
  return {Cubin{std::move(*cubin), std::move(kernels), std::move(*log)}, ""};
}

Expected<Cubin> CubinCache::build(const std::string& key, std::string_view source, const CubinBuild& build) const {
  // A record left from an entry being replaced must not vouch for the new files meanwhile.
  std::error_code ec;
  fs::remove(record_path(key), ec);
  KILN_ASSIGN_OR_RETURN(Cubin cubin, compile_cuda_to_cubin(source, build.options));
  KILN_TRY(write_file_atomically(source_path(key), source));
  KILN_TRY(write_file_atomically(log_path(key), cubin.log));
  KILN_TRY(write_file_atomically(cubin_path(key), cubin.image));
  EntryRecord record;
  record.source = checksum(source);
  record.build = checksum(build.to_string());
  record.cubin = checksum(cubin.image);
  record.cubin_bytes = static_cast<int64_t>(cubin.image.size());
  record.log = checksum(cubin.log);
  record.log_bytes = static_cast<int64_t>(cubin.log.size());
  KILN_TRY(write_file_atomically(record_path(key), record.to_text()));
  return cubin;
}

}  // namespace kiln
