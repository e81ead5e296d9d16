// Subcommands of the kiln CLI, one file each (cmd_<name>.cc). Each takes the arguments after
// its name, prints results to stdout and errors to stderr, and returns the exit status:
// 0 success, 1 user error (bad input, failed check), 2 bad command line.
#pragma once

#include <map>
#include <optional>

#include <span>
#include <string>
#include <vector>

#include "command_line.h"
#include "core/tensor.h"
#include "ir/graph.h"

namespace kiln::cli {

int cmd_opt(const Args& args);   // kiln opt FILE --passes=a,b
int cmd_run(const Args& args);   // kiln run FILE [--device=cpu [--check]] [--inputs a.npy,... | --random-inputs SEED]
                                 // [--outputs DIR] [--check-capture]
int cmd_grad(const Args& args);  // kiln grad FILE [--partition=default] [--wrt=a,b] [--json] [--emit=joint]
                                 // [--device=cpu --report DIR]
int cmd_ops(const Args& args);   // kiln ops
int cmd_backend(const Args& args);  // kiln backend --device=cpu
int cmd_demo(const Args& args);
int cmd_build(const Args& args);
int cmd_export(const Args& args);            // kiln export FILE -o model.onnx [--opset N] [--dynamic] ...
int cmd_import(const Args& args);            // kiln import MODEL.pt2 -o MODEL.kir
int cmd_kernel_mutations(const Args& args);  // kiln kernel-mutations FILE [--function NAME] [--names-only]
int cmd_fuzz_graphs(const Args& args);  // kiln fuzz-graphs [--seed S] [--count N | --seconds T] [--emit-dir DIR] ...
int cmd_verify(const Args& args);       // kiln verify FILE [model.onnx] [--inputs ... | --random-inputs SEED] [--rtol R
                                        // --atol A] [--intermediates]  // kiln build FILE --emit=loops [--check] |
                                        // --device=cpu --emit=cpp | --parse-loops

// Prints the diagnostic to stderr and returns 1 (a user error).
int fail(const Diagnostic& d);

// Whether `path` is a file kiln can read; when not, prints "kiln: cannot read PATH: WHY"
// (it does not exist, it is a directory, ...) to stderr. Every file a subcommand reads is
// checked so before it is parsed: a directory would otherwise read as an empty file.
bool readable_file(const std::string& path);
// Reads a whole file after readable_file(path); false (after printing why) when it cannot.
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

// Where a command that runs a graph (run, verify) gets the graph's inputs: .npy files
// (--inputs a.npy,...) or seeded random tensors (--random-inputs SEED, or DESIGN.md's
// spelling --inputs random) whose symbolic dims --dim sizes.
struct InputSource {
  std::vector<std::string> files;
  std::optional<uint64_t> seed;
  std::map<std::string, int64_t> dims;

  bool given() const { return seed || !files.empty(); }
};
// Declares --inputs, --random-inputs and --dim on `cl`.
void declare_input_options(CommandLine& cl);
// The InputSource of a parsed command line; usage errors (on cl) for both kinds of inputs
// given, or --dim without --random-inputs.
InputSource input_source(CommandLine& cl);
// The usage error of a command line that gives no inputs for a graph that has some.
int no_inputs_given(CommandLine& cl, const Graph& g);
// The inputs of `g` from `source`: read from the files, one per input in order, with symbolic
// dims bound consistently (the error names the input and the file); or seeded: randn for
// floats, integers in [-8, 8) ([0, 16) unsigned), random bools, each --dim naming a symbol
// of g's inputs.
Expected<std::vector<Tensor>> graph_inputs(const Graph& g, const InputSource& source);
// The same for the inputs of `g` at `positions` only (a .pt2 archive's user inputs: its weights
// come from the archive), one file per position; `what` names them in the count's error.
Expected<std::vector<Tensor>> graph_inputs(const Graph& g, const InputSource& source, const std::vector<int>& positions,
                                           const std::string& what);

}  // namespace kiln::cli
