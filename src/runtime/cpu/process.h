// Running a program and collecting its output, without a shell: the arguments go to
// posix_spawn as an argv array, so paths with spaces or quotes need no quoting and cannot
// inject commands. The child inherits the environment; stdout and stderr come back together.
#pragma once

#include <string>
#include <vector>

#include "support/diagnostic.h"

namespace kiln {

struct ProcessResult {
  int exit_code = 0;        // the exit status, or 128 + the signal that ended it
  std::string output;       // stdout and stderr, interleaved as written

  bool ok() const { return exit_code == 0; }
};

// Runs argv[0] (a path: no PATH lookup) with arguments argv[1..] and waits for it. An error
// only when it cannot be started (the Diagnostic names the program and why).
Expected<ProcessResult> run_process(const std::vector<std::string>& argv);

// `name` as an executable path: itself when it holds a '/' (if executable), else the first
// executable match in $PATH; "" when there is none.
std::string resolve_program(const std::string& name);

// argv as a shell would need it typed, for messages: `c++ -O3 '/tmp/a b.cpp'`.
std::string command_line_text(const std::vector<std::string>& argv);

// `text` split into words as make and CMake split $CXX: at spaces and tabs, where a word may
// hold '...' or "..." (the quotes removed; no escapes or expansions inside or outside them).
// `ccache g++` gives {"ccache", "g++"}; `'/opt/my cc/g++' -O0` gives {"/opt/my cc/g++", "-O0"}.
// An error for a quote left open.
Expected<std::vector<std::string>> split_command_line(const std::string& text);

}  // namespace kiln
