// The C++ compiler that builds generated kernels into shared libraries: which command
// (`compiler`: $CXX if set, else `c++`; a program and arguments, as make and CMake take $CXX:
// `ccache g++`, `g++ -O0`; the program is looked up in PATH unless it names a path), its
// identity (the command as run and the first line of its `--version`, part of every cache key)
// and the exact flags. A missing or failing compiler, or one that writes no library, is a
// Diagnostic naming the compiler, the command line and the first lines of what it printed.
#pragma once

#include <string>
#include <vector>

#include "support/diagnostic.h"

namespace kiln {

// -O3 -march=native -mprefer-vector-width=512 -fopenmp -fPIC -shared -fno-math-errno
// -fno-trapping-math -ffp-contract=off -std=c++17
std::vector<std::string> default_cpu_flags();
// $CXX when set and not empty, else "c++".
std::string default_cpu_compiler();

struct CpuToolchain {
  std::string compiler;  // as asked for: a command ("c++", "/usr/bin/g++", "ccache g++ -O0")
  std::string path;      // the executable run: the command's first word, resolved
  // The command's other words, passed before the flags as make passes $(CXX) $(CXXFLAGS), so
  // that a launcher takes the compiler as its argument (`ccache g++`); a flag given here that
  // a later one contradicts (`-O0`, then -O3) loses, as it does with make.
  std::vector<std::string> arguments;
  // What the cache key records of the compiler, from the lookup: the command as run and the
  // first line of its `--version` ("/usr/bin/ccache g++\ng++ (Debian 12.2.0-14) 12.2.0").
  std::string identity;
  std::vector<std::string> flags = default_cpu_flags();

  std::string flags_text() const;  // the flags joined by spaces
  // path arguments... flags... -o output source
  std::vector<std::string> command(const std::string& source, const std::string& output) const;
  // Compiles `source` to the shared library `output`; a compiler that exits 0 without writing
  // it is an error too.
  Status compile(const std::string& source, const std::string& output) const;
};

// Finds `compiler` ("" for default_cpu_compiler()): splits it into words (split_command_line),
// finds its program and asks the command for its version.
Expected<CpuToolchain> find_cpu_toolchain(const std::string& compiler = "");

}  // namespace kiln
