// Pt2Archive: the zip file torch.export.save writes (PyTorch 2.15), opened with libzip. Every
// entry sits under one folder named after the archive ("mlp/models/model.json"); this class
// finds that folder, checks the format and version entries, and reads entries by their path
// below it: whole (JSON, small text) or straight into a tensor's storage (weights).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/storage.h"
#include "support/diagnostic.h"

namespace kiln::pt2 {

// The archive_version entries this reader understands ("0" in PyTorch 2.15).
inline constexpr std::string_view kArchiveVersion = "0";

class Pt2Archive {
 public:
  // Opens the file at `path`, or an archive held in memory (`bytes` must outlive the archive;
  // `name` stands for it in messages). Fails for a file that is not a zip, a truncated one, or
  // one whose archive_format, archive_version or byteorder entries are missing or unknown.
  static Expected<std::unique_ptr<Pt2Archive>> open(const std::string& path);
  static Expected<std::unique_ptr<Pt2Archive>> open_bytes(std::string_view bytes, std::string name);
  ~Pt2Archive();
  Pt2Archive(const Pt2Archive&) = delete;
  Pt2Archive& operator=(const Pt2Archive&) = delete;

  const std::string& name() const { return name_; }
  // The folder every entry sits under, with its '/' ("mlp/").
  const std::string& prefix() const { return prefix_; }
  bool has(std::string_view entry) const;
  // The bytes of `entry` (a path below the prefix, "models/model.json").
  Expected<std::string> read_text(std::string_view entry) const;
  // The size in bytes of `entry`.
  Expected<uint64_t> entry_size(std::string_view entry) const;
  // A new host storage holding the bytes of `entry`, read once straight into it.
  Expected<std::shared_ptr<Storage>> read_storage(std::string_view entry) const;
  // Entry names below the prefix that start with `folder` ("models/"), for messages.
  std::string list(std::string_view folder) const;

 private:
  struct Zip;
  Pt2Archive(std::string name, std::unique_ptr<Zip> zip);
  static Expected<std::unique_ptr<Pt2Archive>> finish_open(std::unique_ptr<Pt2Archive> a);
  Status find_prefix();
  Status check_versions() const;
  // The entry's index, after checking it is stored uncompressed and no larger than the archive.
  Expected<int64_t> locate(std::string_view entry, uint64_t* size) const;

  std::string name_;
  std::string prefix_;
  std::unique_ptr<Zip> zip_;
  uint64_t archive_bytes_ = 0;
};

}  // namespace kiln::pt2
