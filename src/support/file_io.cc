#include "support/file_io.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace kiln {

namespace {

struct CloseFile {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, CloseFile>;

Diagnostic cannot(std::string_view what, const std::string& path, int err) {
  return make_error("cannot ", what, " ", path, ": ", std::strerror(err));
}

}  // namespace

Expected<std::string> read_file_bytes(const std::string& path) {
  File f(std::fopen(path.c_str(), "rb"));
  if (!f) return cannot("read", path, errno);
  std::string bytes;
  char buf[1 << 16];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f.get())) > 0) bytes.append(buf, n);
  if (std::ferror(f.get())) return cannot("read", path, errno);  // EISDIR for a directory
  return bytes;
}

Status write_file_bytes(const std::string& path, std::string_view bytes) {
  File f(std::fopen(path.c_str(), "wb"));
  if (!f) return cannot("write", path, errno);
  if (std::fwrite(bytes.data(), 1, bytes.size(), f.get()) != bytes.size()) return cannot("write", path, errno);
  if (std::fclose(f.release()) != 0) return cannot("write", path, errno);
  return Status::ok();
}

}  // namespace kiln
