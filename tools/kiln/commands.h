// Subcommands of the kiln CLI, one file each (cmd_<name>.cc). Each takes the arguments after
// its name, prints results to stdout and errors to stderr, and returns the exit status:
// 0 success, 1 user error (bad input, failed check), 2 bad command line.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "ir/graph.h"

namespace kiln::cli {

using Args = std::vector<std::string>;

int cmd_opt(const Args& args);    // kiln opt FILE --passes=a,b
int cmd_run(const Args& args);    // kiln run FILE [--device=cpu [--check]] [--inputs a.npy,... | --random-inputs SEED] [--outputs DIR] [--check-capture]
int cmd_grad(const Args& args);   // kiln grad FILE [--partition=default] [--wrt=a,b] [--json] [--emit=joint] [--device=cpu --report DIR]
int cmd_ops(const Args& args);    // kiln ops
int cmd_demo(const Args& args);
int cmd_build(const Args& args);  // kiln build FILE --emit=loops [--check] | --device=cpu --emit=cpp | --parse-loops

// Reads a whole file; on failure prints "kiln: cannot read FILE" and returns false.
bool read_file(const std::string& path, std::string& out);

// "[1, 2]": the coordinates of row-major element `flat` of t.
std::string index_text(const Tensor& t, int64_t flat);

// Whether every output `got[j]` (from `what`, e.g. "the loops") agrees with the
// interpreter's `want[j]` within default_tolerance of its dtype. When one does not, prints
// "kiln CMD: output J (%NAME) differs: ..." with its worst element to stderr.
bool outputs_agree(const std::string& cmd, const std::string& what, std::span<const Tensor> want,
                   std::span<const Tensor> got, std::span<const std::string> names);

// Whether the inputs a run wrote in place (`after`: the inputs as `what` left them) hold
// what the interpreter left in its own copies (`interpreted`); prints as outputs_agree does,
// naming the input.
bool written_inputs_agree(const std::string& cmd, const std::string& what, const Graph& g,
                          std::span<const Tensor> interpreted, std::span<const Tensor> after);

}  // namespace kiln::cli
