// Subcommands of the kiln CLI, one file each (cmd_<name>.cc). Each takes the arguments after
// its name, prints results to stdout and errors to stderr, and returns the exit status:
// 0 success, 1 user error (bad input, failed check), 2 bad command line.
#pragma once

#include <map>
#include <optional>

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
int cmd_build(const Args& args);
int cmd_export(const Args& args);  // kiln export FILE -o model.onnx [--opset N] [--dynamic] ...
int cmd_kernel_mutations(const Args& args);  // kiln kernel-mutations FILE [--function NAME] [--names-only]
int cmd_fuzz_graphs(const Args& args);  // kiln fuzz-graphs [--seed S] [--count N | --seconds T] [--emit-dir DIR] ...
int cmd_verify(const Args& args);  // kiln verify FILE [model.onnx] [--inputs ... | --random-inputs SEED] [--rtol R --atol A] [--intermediates]  // kiln build FILE --emit=loops [--check] | --device=cpu --emit=cpp | --parse-loops

// Prints the diagnostic to stderr and returns 1 (a user error).
int fail(const Diagnostic& d);
// "a,b" split at `sep` ("" gives one empty piece).
std::vector<std::string> split(const std::string& s, char sep);
// A decimal int64, or nullopt when `s` is not one.
std::optional<int64_t> parse_int(const std::string& s);

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

// g's inputs read from .npy files, one per input in order; symbolic dims must bind
// consistently. The error names the input and the file.
Expected<std::vector<Tensor>> read_inputs(const Graph& g, const std::vector<std::string>& files);
// Seeded inputs: randn for floats, integers in [-8, 8) ([0, 16) unsigned), random bools;
// `dims` sizes the symbolic dims.
Expected<std::vector<Tensor>> random_inputs(const Graph& g, uint64_t seed, const std::map<std::string, int64_t>& dims);

}  // namespace kiln::cli
