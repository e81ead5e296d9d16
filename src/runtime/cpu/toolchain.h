// The C++ compiler that builds generated kernels into shared libraries: which program
// (`compiler`: $CXX if set, else `c++`, looked up in PATH unless it names a path), its
// identity (resolved path and the first line of `--version`, part of every cache key) and
// the exact flags. A missing or failing compiler is a Diagnostic naming the compiler, the
// command line and the first lines of what it printed.
#pragma once

#include <string>
#include <vector>

#include "support/diagnostic.h"

namespace kiln {

// -O3 -march=native -fopenmp -fPIC -shared -fno-math-errno -fno-trapping-math -std=c++17
std::vector<std::string> default_cpu_flags();
// $CXX when set and not empty, else "c++". (A $CXX with arguments is not split: it names
// one program.)
std::string default_cpu_compiler();

struct CpuToolchain {
  std::string compiler;  // as asked for: a name or a path
  std::string path;      // the executable run
  // What the cache key records of the compiler, from the lookup: the resolved path and the
  // first line of its `--version` ("/usr/bin/c++\nc++ (Debian 12.2.0-14) 12.2.0").
  std::string identity;
  std::vector<std::string> flags = default_cpu_flags();

  std::string flags_text() const;  // the flags joined by spaces
  // path flags... -o output source
  std::vector<std::string> command(const std::string& source, const std::string& output) const;
  // Compiles `source` to the shared library `output`.
  Status compile(const std::string& source, const std::string& output) const;
};

// Finds `compiler` ("" for default_cpu_compiler()) and asks it for its version.
Expected<CpuToolchain> find_cpu_toolchain(const std::string& compiler = "");

}  // namespace kiln
