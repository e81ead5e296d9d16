#include "runtime/cpu/kernel_cache.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "support/hash.h"

namespace kiln {

namespace fs = std::filesystem;

namespace {

// A name beside `path` that no other process or thread uses at the same time.
std::string temp_name(const std::string& path) {
  return path + ".tmp-" + std::to_string(getpid()) + "-" +
         std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()));
}

Status rename_into_place(const std::string& from, const std::string& to) {
  std::error_code ec;
  fs::rename(from, to, ec);
  if (!ec) return Status::ok();
  fs::remove(from, ec);
  return make_error("cannot move ", from, " to ", to, ": ", ec.message());
}

Status write_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = temp_name(path);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) return make_error("cannot write ", tmp);
  }
  return rename_into_place(tmp, path);
}

}  // namespace

Expected<std::string> default_cache_dir() {
  const char* dir = std::getenv("KILN_CACHE_DIR");
  if (dir && *dir) return std::string(dir);
  const char* home = std::getenv("HOME");
  if (home && *home) return std::string(home) + "/.cache/kiln";
  return make_error("no kernel cache directory: set KILN_CACHE_DIR (or HOME)");
}

Expected<KernelCache> KernelCache::open(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) return make_error("cannot create the kernel cache directory ", dir, ": ",
                                                      ec ? ec.message() : "not a directory");
  return KernelCache(dir);
}

std::string KernelCache::key(const std::string& source, const std::string& emit_options, const CpuToolchain& t) {
  return ContentHash().add(source).add(emit_options).add(t.flags_text()).add(t.identity).hex();
}

bool KernelCache::has(const std::string& key) const {
  std::error_code ec;
  return fs::is_regular_file(library_path(key), ec);
}

Status KernelCache::build(const std::string& key, const std::string& source, const CpuToolchain& t) const {
  KILN_TRY(write_atomically(source_path(key), source));
  const std::string tmp = temp_name(library_path(key));
  Status s = t.compile(source_path(key), tmp);
  if (!s) {
    std::error_code ec;
    fs::remove(tmp, ec);
    return s.error().add_context("while compiling " + source_path(key));
  }
  return rename_into_place(tmp, library_path(key));
}

}  // namespace kiln
