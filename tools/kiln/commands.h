// Subcommands of the kiln CLI, one file each (cmd_<name>.cc). Each takes the arguments after
// its name, prints results to stdout and errors to stderr, and returns the exit status:
// 0 success, 1 user error (bad input, failed check), 2 bad command line.
#pragma once

#include <string>
#include <vector>

namespace kiln::cli {

using Args = std::vector<std::string>;

int cmd_opt(const Args& args);    // kiln opt FILE --passes=a,b
int cmd_run(const Args& args);    // kiln run FILE [--inputs a.npy,... | --random-inputs SEED] [--outputs DIR] [--check-capture]
int cmd_grad(const Args& args);   // kiln grad FILE [--partition=default] [--wrt=a,b] [--json] [--emit=joint]
int cmd_ops(const Args& args);    // kiln ops
int cmd_demo(const Args& args);
int cmd_build(const Args& args);  // kiln build FILE --emit=loops [--check] | --parse-loops   // kiln demo [--train-steps=N]

// Reads a whole file; on failure prints "kiln: cannot read FILE" and returns false.
bool read_file(const std::string& path, std::string& out);

}  // namespace kiln::cli
