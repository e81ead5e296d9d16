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

}  // namespace kiln
