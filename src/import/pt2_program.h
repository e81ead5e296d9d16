// The serialized ExportedProgram of a .pt2 archive (models/model.json, schema 8.x of PyTorch
// 2.15's torch/_export/serde/schema.py) as plain C++ structs: the nodes with their ATen
// overload names and named arguments, the tensor metadata, and the graph signature. Only
// what kiln imports is kept; docs/IMPORT.md lists the rest.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/diagnostic.h"

namespace kiln::pt2 {

// The schema versions this reader understands: major 8 (PyTorch 2.15 writes 8.20).
inline constexpr int kSchemaMajor = 8;

// One dim or stride: a static size, or a symbol's name (a dynamic dim).
struct SymSize {
  std::optional<int64_t> value;
  std::string expr;        // a dynamic dim's sympy expression, readable ("s21" for a symbol)
  std::string sympy = {};  // the same as the archive writes it (srepr: "Mul(Symbol('s21', ...), ...)")
};

// TensorMeta: dtype in the archive's own numbering (serde ScalarType: 7 is float32).
struct TensorMeta {
  int dtype = 0;
  std::vector<SymSize> sizes;
  std::vector<SymSize> strides;
  SymSize storage_offset;
};

// One argument value (serde Argument, a union keyed "as_<kind>"): the kinds a node of an MLP
// or a transformer block uses. Every other kind is kept as Kind::Other with its key, so the
// mapping can name it.
struct Argument {
  enum class Kind {
    None,
    Tensor,
    Tensors,
    OptionalTensors,
    Int,
    Ints,
    Float,
    Floats,
    Bool,
    Bools,
    String,
    ScalarType,
    MemoryFormat,
    Layout,
    Device,
    Other
  };
  Kind kind = Kind::None;
  std::string key;                                // "as_int", ...: for messages
  std::vector<std::optional<std::string>> names;  // tensors: their value names (nullopt: none)
  std::vector<int64_t> ints;                      // int, ints, scalar type, memory format, layout
  std::vector<double> floats;                     // float, floats
  std::vector<bool> bools;                        // bool, bools
  std::string string;                             // string, device type
  bool symbolic = false;                          // an int that is a symbol's name (a dynamic size)
  std::vector<std::string> sym_names;             // sym int(s): each element's name, "" where static
};

struct NamedArgument {
  std::string name;  // the ATen schema's argument name
  Argument arg;
};

struct Node {
  std::string target;  // "torch.ops.aten.linear.default"
  std::vector<NamedArgument> inputs;
  std::vector<Argument> outputs;
  std::string stack_trace;  // metadata["stack_trace"], may be empty
  std::string name;
};

// The graph signature: which graph inputs are parameters, buffers, constants or user inputs,
// and which outputs the user sees.
struct InputSpec {
  enum class Kind { UserInput, Parameter, Buffer, Constant, Other };
  Kind kind = Kind::Other;
  std::string kind_key;  // "user_input", "parameter", ..., for messages
  std::string arg;       // the graph input's value name ("p_l1_weight")
  std::string target;    // the state-dict name ("l1.weight"), empty for user inputs
};
struct OutputSpec {
  std::string kind_key;  // "user_output", "buffer_mutation", ...
  std::string arg;       // the graph output's value name
};

// The range torch.export allows a dynamic dim's symbol (range_constraints); nullopt: unbounded.
struct RangeConstraint {
  std::optional<int64_t> min;
  std::optional<int64_t> max;
};

struct Program {
  int schema_major = 0;
  int schema_minor = 0;
  std::string torch_version;
  std::vector<std::string> inputs;  // graph input value names, in order
  std::vector<Argument> outputs;    // graph outputs
  std::vector<Node> nodes;
  std::map<std::string, TensorMeta> tensor_values;
  std::vector<InputSpec> input_specs;
  std::vector<OutputSpec> output_specs;
  std::map<std::string, RangeConstraint> range_constraints;  // by symbol ("s21")
};

// One entry of data/weights/model_weights_config.json (or the constants' config).
struct WeightConfig {
  std::string path_name;  // the entry under data/weights/ ("weight_0"); shared by tied weights
  bool use_pickle = false;
  TensorMeta meta;
};
using WeightsConfig = std::map<std::string, WeightConfig>;  // by state-dict name

// Parses models/model.json; `entry` names the archive entry in messages. Errors name the JSON
// path ("graph_module.graph.nodes[2].target: expected a string, got number").
Expected<Program> parse_program(std::string_view json, std::string_view entry);
Expected<WeightsConfig> parse_weights_config(std::string_view json, std::string_view entry);

}  // namespace kiln::pt2
