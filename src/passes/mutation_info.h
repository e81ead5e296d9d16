// The typed facts functionalization reports (ViewAndMutationInfo: which inputs a graph
// mutates, what each output aliases, how the mutations are written back) and what it is told
// about inputs that share storage at run time (FunctionalizeOptions). The names follow the
// reference's ViewAndMutationMeta (SPEC.md 5.1); docs/FUNCTIONALIZE.md explains the conventions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "support/diagnostic.h"

namespace kiln {

// Metadata mutations (shape or stride changes such as resize_ or transpose_) have no op in
// ops.def today; the kind is kept so the record reads like the reference's.
enum class MutationKind { None, Data, Metadata };
std::string_view mutation_kind_name(MutationKind k);  // "none", "data", "metadata"

struct InputMutation {
  MutationKind kind = MutationKind::None;
  bool written_through_view = false;  // some write reached the input through a view of it
};

enum class OutputAliasKind { NonAlias, IsInput, AliasOfInput, AliasOfOutput, AliasOfIntermediate };
std::string_view output_alias_kind_name(OutputAliasKind k);  // "non_alias", "is_input", ...

struct OutputAlias {
  OutputAliasKind kind = OutputAliasKind::NonAlias;
  // IsInput / AliasOfInput: the input; AliasOfOutput: the output that is the base; else -1.
  int base_index = -1;
};

struct ViewAndMutationInfo {
  std::vector<InputMutation> inputs;   // one per graph input
  std::vector<OutputAlias> outputs;    // one per user output (write-back outputs not included)
  std::vector<int> write_back_inputs;  // the mutated inputs, in input order: the order of write-backs
  bool keep_input_mutations = true;    // write-backs are trailing copy_ nodes, else extra outputs
  int num_user_outputs = 0;            // graph outputs before the write-back outputs

  int num_write_backs() const { return static_cast<int>(write_back_inputs.size()); }
};

// One input of an aliased group: its place in the group's common storage, in elements.
struct AliasedInput {
  int input_index = 0;
  std::vector<int64_t> sizes, strides;
  int64_t storage_offset = 0;
};

// Inputs that share one storage at run time (the same tensor passed twice, or one input a
// strided view of another's storage).
struct InputAliasGroup {
  std::vector<AliasedInput> members;
};

struct FunctionalizeOptions {
  std::vector<InputAliasGroup> aliased_inputs;
  // true: each mutated input gets a trailing copy_(input, final value); false: the final
  // values become extra graph outputs after the user outputs, in write_back_inputs order.
  bool keep_input_mutations = true;
};

// Input `input_index` of `g` laid out packed (row-major) in the common storage from element
// `storage_offset`; an error when its shape is symbolic or the index is out of range.
Expected<AliasedInput> packed_aliased_input(const Graph& g, int input_index, int64_t storage_offset = 0);

// The info as text, one fact a line, naming inputs as in the graph:
//   mutation info of @f:
//     input %x: data (through a view)
//     output 0: alias_of_input %x
//     write-backs: %x (trailing copy_)
std::string print_mutation_info(const ViewAndMutationInfo& info, const Graph& g);

}  // namespace kiln
