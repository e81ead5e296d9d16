// Helpers shared by the subcommands.
#include <cstdio>
#include <fstream>
#include <sstream>

#include "commands.h"

namespace kiln::cli {

bool read_file(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "kiln: cannot read %s\n", path.c_str());
    return false;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

}  // namespace kiln::cli
