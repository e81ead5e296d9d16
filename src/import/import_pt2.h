// kiln::import_pt2: a model saved by torch.export.save (PyTorch 2.15, a .pt2 archive) as an
// ordinary kiln graph. Parameters, buffers and constants become `param`/`buffer` inputs whose
// tensors come with the graph; user inputs keep their order. The graph runs in the interpreter,
// compiles for the CPU, and differentiates like any other (docs/IMPORT.md says what imports).
//
//   kiln::Expected<kiln::ImportedProgram> m = kiln::import_pt2("mlp.pt2");
//   std::vector<kiln::Tensor> in = kiln::value_or_throw(m->inputs_with({x}));
//   std::vector<kiln::Tensor> out = kiln::value_or_throw(kiln::interpret(*m->graph, in));
//
// Every problem with an archive is a Diagnostic: not a zip, truncated, an unknown version,
// corrupt JSON, a missing or short weight entry, dynamic shapes, and ops kiln does not import
// (all of them listed at once, each with its Python source line).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/tensor.h"
#include "ir/graph.h"
#include "support/diagnostic.h"

namespace kiln {

struct ImportedProgram {
  std::unique_ptr<Graph> graph;
  // The tensors of the graph's param and buffer inputs, by input name ("l1.weight"). Views of
  // the archive's storages: tied weights are one input and one tensor.
  std::map<std::string, Tensor> weights;
  // State-dict names that are the same tensor as another input, and that input's name.
  std::map<std::string, std::string> tied;
  std::vector<std::string> user_inputs;   // the names of the user's inputs, in graph order
  std::vector<std::string> user_outputs;  // the archive's names of the graph outputs

  // Every graph input in order: the weights where they belong and `user` for the rest (one
  // tensor per user input). Fails for the wrong count.
  Expected<std::vector<Tensor>> inputs_with(const std::vector<Tensor>& user) const;
};

// Whether this kiln was built with .pt2 import (libzip and nlohmann-json were found).
bool pt2_import_available();

// The program in the archive at `path`, or in memory (`name` stands for it in messages).
Expected<ImportedProgram> import_pt2(const std::string& path);
Expected<ImportedProgram> import_pt2_bytes(std::string_view bytes, std::string name = "<memory>");

}  // namespace kiln
