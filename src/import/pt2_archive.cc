// Pt2Archive over libzip (pt2_archive.h). Compiled only where libzip is installed.
#include "import/pt2_archive.h"

#include <zip.h>

#include <fstream>

namespace kiln::pt2 {

struct Pt2Archive::Zip {
  zip_t* zip = nullptr;
  ~Zip() {
    if (zip) zip_discard(zip);  // read-only: nothing to write back
  }
};

namespace {

std::string zip_error_text(int code) {
  zip_error_t e;
  zip_error_init_with_code(&e, code);
  std::string text = zip_error_strerror(&e);
  zip_error_fini(&e);
  return text;
}

// Why libzip refused to open `head` (the first bytes of the file): a file that starts like a
// zip but cannot be opened is cut short (its central directory, at the end, is gone).
Diagnostic open_error(const std::string& name, int code, std::string_view head) {
  bool starts_like_zip = head.substr(0, 4) == std::string_view("PK\x03\x04", 4);
  if (code == ZIP_ER_NOZIP && !starts_like_zip)
    return make_error(name, ": not a .pt2 archive: not a zip file (torch.export.save writes a zip)");
  if (starts_like_zip && (code == ZIP_ER_NOZIP || code == ZIP_ER_INCONS || code == ZIP_ER_READ || code == ZIP_ER_EOF))
    return make_error(name, ": truncated or damaged .pt2 archive: ", zip_error_text(code));
  return make_error(name, ": cannot open the .pt2 archive: ", zip_error_text(code));
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

Pt2Archive::Pt2Archive(std::string name, std::unique_ptr<Zip> zip) : name_(std::move(name)), zip_(std::move(zip)) {}
Pt2Archive::~Pt2Archive() = default;

Expected<std::unique_ptr<Pt2Archive>> Pt2Archive::open(const std::string& path) {
  int code = 0;
  zip_t* zip = zip_open(path.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &code);
  if (!zip) {
    if (code == ZIP_ER_NOENT || code == ZIP_ER_OPEN) return make_error(path, ": cannot open: ", zip_error_text(code));
    char head[4] = {};
    std::ifstream(path, std::ios::binary).read(head, sizeof(head));
    return open_error(path, code, std::string_view(head, sizeof(head)));
  }
  auto z = std::make_unique<Zip>();
  z->zip = zip;
  std::unique_ptr<Pt2Archive> a(new Pt2Archive(path, std::move(z)));
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  a->archive_bytes_ = f ? static_cast<uint64_t>(f.tellg()) : 0;
  return finish_open(std::move(a));
}

Expected<std::unique_ptr<Pt2Archive>> Pt2Archive::open_bytes(std::string_view bytes, std::string name) {
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* source = zip_source_buffer_create(bytes.data(), bytes.size(), 0, &error);
  if (!source) {
    std::string why = zip_error_strerror(&error);
    zip_error_fini(&error);
    return make_error(name, ": cannot open the .pt2 archive: ", why);
  }
  zip_t* zip = zip_open_from_source(source, ZIP_RDONLY | ZIP_CHECKCONS, &error);
  if (!zip) {
    int code = zip_error_code_zip(&error);
    zip_source_free(source);
    zip_error_fini(&error);
    return open_error(name, code, bytes.substr(0, 4));
  }
  zip_error_fini(&error);
  auto z = std::make_unique<Zip>();
  z->zip = zip;
  std::unique_ptr<Pt2Archive> a(new Pt2Archive(std::move(name), std::move(z)));
  a->archive_bytes_ = bytes.size();
  return finish_open(std::move(a));
}

Expected<std::unique_ptr<Pt2Archive>> Pt2Archive::finish_open(std::unique_ptr<Pt2Archive> a) {
  KILN_TRY(a->find_prefix());
  KILN_TRY(a->check_versions());
  return a;
}

// torch.export.save puts every entry under "<archive name>/"; the folder holding
// archive_format is that prefix.
Status Pt2Archive::find_prefix() {
  zip_int64_t n = zip_get_num_entries(zip_->zip, 0);
  constexpr std::string_view kMarker = "archive_format";
  for (zip_int64_t i = 0; i < n; ++i) {
    const char* raw = zip_get_name(zip_->zip, static_cast<zip_uint64_t>(i), ZIP_FL_ENC_RAW);
    if (!raw) continue;
    std::string_view entry(raw);
    if (entry.size() < kMarker.size() || entry.substr(entry.size() - kMarker.size()) != kMarker) continue;
    std::string_view folder = entry.substr(0, entry.size() - kMarker.size());
    if (folder.empty() || (folder.back() == '/' && folder.find('/') == folder.size() - 1)) {
      prefix_ = std::string(folder);
      return Status::ok();
    }
  }
  return make_error(name_,
                    ": not a .pt2 archive: no archive_format entry (a zip, but not one torch.export.save wrote)");
}

Status Pt2Archive::check_versions() const {
  KILN_ASSIGN_OR_RETURN(std::string format, read_text("archive_format"));
  if (trimmed(format) != "pt2")
    return make_error(name_, ": archive_format is '", trimmed(format), "', kiln reads 'pt2' archives");
  if (!has("archive_version"))
    return make_error(name_, ": no archive_version entry (kiln reads archive version ", kArchiveVersion,
                      ", written by PyTorch 2.15)");
  KILN_ASSIGN_OR_RETURN(std::string version, read_text("archive_version"));
  if (trimmed(version) != kArchiveVersion)
    return make_error(name_, ": archive version '", trimmed(version), "' is not supported (kiln reads version ",
                      kArchiveVersion, ", written by PyTorch 2.15; docs/IMPORT.md)");
  if (has("byteorder")) {
    KILN_ASSIGN_OR_RETURN(std::string order, read_text("byteorder"));
    if (trimmed(order) != "little")
      return make_error(name_, ": byteorder is '", trimmed(order), "'; kiln reads little-endian weights only");
  }
  return Status::ok();
}

bool Pt2Archive::has(std::string_view entry) const {
  std::string full = prefix_ + std::string(entry);
  return zip_name_locate(zip_->zip, full.c_str(), ZIP_FL_ENC_RAW) >= 0;
}

Expected<int64_t> Pt2Archive::locate(std::string_view entry, uint64_t* size) const {
  std::string full = prefix_ + std::string(entry);
  zip_int64_t index = zip_name_locate(zip_->zip, full.c_str(), ZIP_FL_ENC_RAW);
  if (index < 0) return make_error(name_, ": missing entry ", full);
  zip_stat_t st;
  zip_stat_init(&st);
  if (zip_stat_index(zip_->zip, static_cast<zip_uint64_t>(index), 0, &st) != 0)
    return make_error(name_, ": cannot read entry ", full, ": ", zip_strerror(zip_->zip));
  // torch.export.save stores every entry uncompressed; insisting on it also bounds what a
  // damaged header can make kiln allocate by the archive's own size.
  if (!(st.valid & ZIP_STAT_COMP_METHOD) || st.comp_method != ZIP_CM_STORE)
    return make_error(name_, ": entry ", full, " is compressed; .pt2 archives store entries uncompressed");
  if (!(st.valid & ZIP_STAT_SIZE) || st.size > archive_bytes_)
    return make_error(name_, ": entry ", full, " claims ", st.size, " bytes, more than the archive's ", archive_bytes_,
                      " (truncated or damaged archive)");
  *size = st.size;
  return static_cast<int64_t>(index);
}

Expected<uint64_t> Pt2Archive::entry_size(std::string_view entry) const {
  uint64_t size = 0;
  KILN_TRY(locate(entry, &size));
  return size;
}

namespace {

// Reads all `size` bytes of entry `index` into `out`.
Status read_entry(zip_t* zip, int64_t index, std::byte* out, uint64_t size, const std::string& name,
                  const std::string& entry) {
  zip_file_t* file = zip_fopen_index(zip, static_cast<zip_uint64_t>(index), 0);
  if (!file) return make_error(name, ": cannot read entry ", entry, ": ", zip_strerror(zip));
  zip_int64_t got = size == 0 ? 0 : zip_fread(file, out, size);
  std::string why = got < 0 ? zip_file_strerror(file) : "";
  zip_fclose(file);
  if (got < 0) return make_error(name, ": entry ", entry, " cannot be read (truncated or damaged archive): ", why);
  if (static_cast<uint64_t>(got) != size)
    return make_error(name, ": entry ", entry, " is truncated: ", got, " of ", size, " bytes");
  return Status::ok();
}

}  // namespace

Expected<std::string> Pt2Archive::read_text(std::string_view entry) const {
  uint64_t size = 0;
  KILN_ASSIGN_OR_RETURN(int64_t index, locate(entry, &size));
  std::string text(size, '\0');
  KILN_TRY(read_entry(zip_->zip, index, reinterpret_cast<std::byte*>(text.data()), size, name_,
                      prefix_ + std::string(entry)));
  return text;
}

Expected<std::shared_ptr<Storage>> Pt2Archive::read_storage(std::string_view entry) const {
  uint64_t size = 0;
  KILN_ASSIGN_OR_RETURN(int64_t index, locate(entry, &size));
  // Uninitialized: every byte is about to be overwritten by the read.
  std::shared_ptr<Storage> storage = Storage::uninitialized(size);
  KILN_TRY(read_entry(zip_->zip, index, storage->data(), size, name_, prefix_ + std::string(entry)));
  return storage;
}

std::string Pt2Archive::list(std::string_view folder) const {
  std::string out;
  zip_int64_t n = zip_get_num_entries(zip_->zip, 0);
  std::string full = prefix_ + std::string(folder);
  for (zip_int64_t i = 0; i < n; ++i) {
    const char* raw = zip_get_name(zip_->zip, static_cast<zip_uint64_t>(i), ZIP_FL_ENC_RAW);
    if (!raw || std::string_view(raw).substr(0, full.size()) != full) continue;
    out += out.empty() ? "" : ", ";
    out += std::string_view(raw).substr(prefix_.size());
  }
  return out.empty() ? "none" : out;
}

}  // namespace kiln::pt2
