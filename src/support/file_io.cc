#include "support/file_io.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <thread>

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

std::string temp_file_name(const std::string& path) {
  return path + ".tmp-" + std::to_string(getpid()) + "-" +
         std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()));
}

Status rename_file(const std::string& from, const std::string& to) {
  std::error_code ec;
  std::filesystem::rename(from, to, ec);
  if (!ec) return Status::ok();
  std::filesystem::remove(from, ec);
  return make_error("cannot move ", from, " to ", to, ": ", ec.message());
}

Status write_file_atomically(const std::string& path, std::string_view bytes) {
  const std::string tmp = temp_file_name(path);
  KILN_TRY(write_file_bytes(tmp, bytes));
  return rename_file(tmp, path);
}

}  // namespace kiln
