// Op schemas in ATen's notation, parsed from the strings in ops.def:
//   "sum(Tensor self, int[]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor"
// The schema decides which arguments are operands, attributes or subgraphs (see ops.def).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ops/attr.h"
#include "support/diagnostic.h"

namespace kiln {

enum class ArgType {
  Tensor,              // Tensor
  OptionalTensor,      // Tensor?
  TensorList,          // Tensor[]
  OptionalTensorList,  // Tensor?[]
  TensorOrScalar,      // Tensor|Scalar
  TensorOrScalarList,  // Tensor|Scalar[]: tensors and inline literals (a user kernel's arguments)
  Scalar,              // Scalar
  OptionalScalar,      // Scalar?
  Int,                 // int
  OptionalInt,         // int?
  Ints,                // int[]
  OptionalInts,        // int[]?
  SymInts,             // SymInt[]: an int[] whose elements may be symbolic dim expressions
  SymScalar,           // SymScalar: a Scalar, or a symbolic integer (ATen's Scalar may hold a SymInt)
  Float,               // float
  OptionalFloat,       // float?
  Bool,                // bool
  Str,                 // str
  OptionalStr,         // str?
  OptionalDType,       // ScalarType?
  Graph,               // Graph (a subgraph)
};

std::string_view arg_type_name(ArgType t);
bool arg_type_is_operand(ArgType t);  // Tensor, Tensor?, Tensor[], Tensor?[], Tensor|Scalar
bool arg_type_is_optional(ArgType t);

struct ArgSchema {
  std::string name;
  ArgType type;
  bool kwarg_only = false;
  std::optional<AttrValue> default_value;  // nullopt: required

  bool is_operand() const { return arg_type_is_operand(type) && !kwarg_only; }
  bool is_subgraph() const { return type == ArgType::Graph; }
  bool is_attr() const { return !is_operand() && !is_subgraph(); }
  bool is_variadic() const {
    return type == ArgType::TensorList || type == ArgType::OptionalTensorList || type == ArgType::TensorOrScalarList;
  }
};

struct OpSchema {
  std::string name;
  std::vector<ArgSchema> args;
  int num_results = 1;            // fixed result count
  bool variadic_results = false;  // "-> Tensor[]": the count comes from the rules

  std::vector<const ArgSchema*> operand_args() const;
  std::vector<const ArgSchema*> attr_args() const;
  std::vector<const ArgSchema*> subgraph_args() const;
  const ArgSchema* find_arg(std::string_view name) const;
  bool has_variadic_operand() const;
  int min_operands() const;  // operands with a variadic group empty

  // For a node with `num_operands` flat operands: [begin, end) of each operand argument.
  // Fails when the count does not fit the schema.
  Expected<std::vector<std::pair<int, int>>> operand_ranges(int num_operands) const;

  std::string to_string() const;  // the schema in ATen notation
};

Expected<OpSchema> parse_schema(std::string_view text);

}  // namespace kiln
