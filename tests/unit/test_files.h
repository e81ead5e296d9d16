// Checked-in files that unit tests read (kernel corpora, hand-written IR, expected answers).
#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace kiln::test {

// The whole text of the file at `path`; empty when it cannot be read (the test that compares
// it then fails on the contents).
inline std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace kiln::test
