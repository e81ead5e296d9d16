#include "runtime/cpu/kernel_cache.h"

#include <filesystem>
#include <optional>
#include <sstream>

#include "support/file_io.h"
#include "support/hash.h"

namespace kiln {

namespace fs = std::filesystem;

namespace {

// The whole file, or nothing when it cannot be read.
std::optional<std::string> read_file(const std::string& path) {
  Expected<std::string> bytes = read_file_bytes(path);
  if (!bytes) return std::nullopt;
  return std::move(bytes).value();
}

std::string checksum(std::string_view bytes) { return ContentHash().add(bytes).hex(); }

// Everything but the source that a unit's library depends on.
std::string options_checksum(const std::string& emit_options, const CpuToolchain& t) {
  return ContentHash().add(emit_options).add(t.flags_text()).add(t.identity).hex();
}

// What <key>.sum holds, one field a line:
//   kiln kernel cache entry 1
//   source <checksum of the unit's source>
//   options <options_checksum>
//   library <bytes> <checksum of <key>.so>
struct EntryRecord {
  static constexpr std::string_view kHeader = "kiln kernel cache entry 1";
  std::string source, options, library;
  int64_t library_bytes = -1;

  std::string to_text() const {
    return std::string(kHeader) + "\nsource " + source + "\noptions " + options + "\nlibrary " +
           std::to_string(library_bytes) + " " + library + "\n";
  }
  // Nothing when `text` is not a record this version writes.
  static std::optional<EntryRecord> parse(const std::string& text) {
    std::istringstream in(text);
    std::string header, source, options, library;
    EntryRecord r;
    if (!std::getline(in, header) || header != kHeader) return std::nullopt;
    if (!(in >> source >> r.source >> options >> r.options >> library >> r.library_bytes >> r.library))
      return std::nullopt;
    if (source != "source" || options != "options" || library != "library") return std::nullopt;
    return r;
  }
};

}  // namespace

Expected<KernelCache> KernelCache::open(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir))
    return make_error("cannot create the kernel cache directory ", dir, ": ", ec ? ec.message() : "not a directory");
  return KernelCache(dir);
}

std::string KernelCache::key(const std::string& source, const std::string& emit_options, const CpuToolchain& t) {
  return ContentHash().add(source).add(emit_options).add(t.flags_text()).add(t.identity).hex();
}

KernelCache::Lookup KernelCache::lookup(const std::string& key, const std::string& source,
                                        const std::string& emit_options, const CpuToolchain& t) const {
  std::error_code ec;
  if (!fs::exists(library_path(key), ec)) return {};
  const std::optional<std::string> text = read_file(record_path(key));
  if (!text) return {};
  const std::optional<EntryRecord> record = EntryRecord::parse(*text);
  if (!record) return {false, "its checksum record " + record_path(key) + " is not one this kiln writes"};
  if (record->source != checksum(source) || record->options != options_checksum(emit_options, t))
    return {false, "it was built from other source or options under the same key"};
  if (read_file(source_path(key)) != source)
    return {false, "its source " + source_path(key) + " was changed or removed"};
  const std::optional<std::string> library = read_file(library_path(key));
  if (!library) return {false, "its library cannot be read"};
  if (static_cast<int64_t>(library->size()) != record->library_bytes)
    return {false, "its library has " + std::to_string(library->size()) + " bytes, not the " +
                       std::to_string(record->library_bytes) + " it was built with (truncated or overwritten)"};
  if (checksum(*library) != record->library) return {false, "its library's bytes are not those it was built with"};
  return {true, ""};
}

Status KernelCache::build(const std::string& key, const std::string& source, const std::string& emit_options,
                          const CpuToolchain& t) const {
  // A record left from an entry being replaced must not vouch for the new files meanwhile.
  std::error_code ec;
  fs::remove(record_path(key), ec);
  KILN_TRY(write_file_atomically(source_path(key), source));
  const std::string tmp = temp_file_name(library_path(key));
  Status s = t.compile(source_path(key), tmp);
  Expected<std::string> library = s ? read_file_bytes(tmp) : Expected<std::string>(s);
  if (!library) {
    fs::remove(tmp, ec);
    if (!s) return s.error().add_context("while compiling " + source_path(key));
    return library.error().add_context("the library the compiler wrote");
  }
  EntryRecord record;
  record.source = checksum(source);
  record.options = options_checksum(emit_options, t);
  record.library = checksum(*library);
  record.library_bytes = static_cast<int64_t>(library->size());
  KILN_TRY(rename_file(tmp, library_path(key)));
  return write_file_atomically(record_path(key), record.to_text());
}

}  // namespace kiln
