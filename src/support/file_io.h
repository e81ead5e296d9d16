// Whole-file reads and writes whose errors say which file and why: "cannot write
// out/x.npy: No such file or directory" (the OS's reason, strerror of the failing call).
// Every file kiln reads or writes for a user goes through these, so no file error is
// reported without its reason.
#pragma once

#include <string>
#include <string_view>

#include "support/diagnostic.h"

namespace kiln {

// The bytes of the file at `path`; a directory, a missing or unreadable file is an error.
Expected<std::string> read_file_bytes(const std::string& path);

// Replaces the file at `path` with `bytes` (creating it); an error when it cannot be opened,
// written or closed (a full disk shows at the close).
Status write_file_bytes(const std::string& path, std::string_view bytes);

// write_file_bytes to a name beside `path` that no other process or thread uses, then a rename
// onto `path`: readers see the old file or the whole new one, never a part (the disk caches).
Status write_file_atomically(const std::string& path, std::string_view bytes);

// A name beside `path` for this process and thread alone: "<path>.tmp-<pid>-<thread>".
std::string temp_file_name(const std::string& path);

// Moves `from` onto `to` (replacing it); on failure removes `from` and says why.
Status rename_file(const std::string& from, const std::string& to);

}  // namespace kiln
