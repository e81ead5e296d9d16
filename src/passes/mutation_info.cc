#include "passes/mutation_info.h"

#include <algorithm>
#include <sstream>

namespace kiln {

std::string_view mutation_kind_name(MutationKind k) {
  switch (k) {
    case MutationKind::None: return "none";
    case MutationKind::Data: return "data";
    case MutationKind::Metadata: return "metadata";
  }
  return "?";
}

std::string_view output_alias_kind_name(OutputAliasKind k) {
  switch (k) {
    case OutputAliasKind::NonAlias: return "non_alias";
    case OutputAliasKind::IsInput: return "is_input";
    case OutputAliasKind::AliasOfInput: return "alias_of_input";
    case OutputAliasKind::AliasOfOutput: return "alias_of_output";
    case OutputAliasKind::AliasOfIntermediate: return "alias_of_intermediate";
  }
  return "?";
}

Expected<AliasedInput> packed_aliased_input(const Graph& g, int input_index, int64_t storage_offset) {
  if (input_index < 0 || input_index >= g.num_inputs())
    return make_error("aliased input ", input_index, " out of range: @", g.name(), " has ", g.num_inputs(), " inputs");
  const Value* in = g.input(input_index);
  const Shape& shape = in->type().shape;
  if (!shape.is_static())
    return make_error("aliased input %", in->name(), " has symbolic shape ", shape.to_string(),
                      "; its place in the common storage needs static sizes");
  if (storage_offset < 0)
    return make_error("aliased input %", in->name(), ": negative storage offset ", storage_offset);
  AliasedInput a;
  a.input_index = input_index;
  a.sizes = shape.sizes();
  a.strides.assign(a.sizes.size(), 1);
  for (size_t d = a.sizes.size(); d-- > 1;) a.strides[d - 1] = a.strides[d] * std::max<int64_t>(a.sizes[d], 1);
  a.storage_offset = storage_offset;
  return a;
}

std::string print_mutation_info(const ViewAndMutationInfo& info, const Graph& g) {
  std::ostringstream out;
  auto input_name = [&](int i) { return "%" + g.input(i)->name(); };
  out << "mutation info of @" << g.name() << ":\n";
  for (size_t i = 0; i < info.inputs.size(); ++i) {
    const InputMutation& m = info.inputs[i];
    out << "  input " << input_name(static_cast<int>(i)) << ": ";
    if (m.kind == MutationKind::None)
      out << "not mutated";
    else
      out << mutation_kind_name(m.kind) << (m.written_through_view ? " (through a view)" : "");
    out << "\n";
  }
  for (size_t j = 0; j < info.outputs.size(); ++j) {
    const OutputAlias& a = info.outputs[j];
    out << "  output " << j << ": " << output_alias_kind_name(a.kind);
    if (a.kind == OutputAliasKind::IsInput || a.kind == OutputAliasKind::AliasOfInput)
      out << " " << input_name(a.base_index);
    else if (a.kind == OutputAliasKind::AliasOfOutput)
      out << " " << a.base_index;
    out << "\n";
  }
  out << "  write-backs:";
  if (info.write_back_inputs.empty()) out << " none";
  for (size_t k = 0; k < info.write_back_inputs.size(); ++k)
    out << (k ? ", " : " ") << input_name(info.write_back_inputs[k]);
  if (!info.write_back_inputs.empty()) out << (info.keep_input_mutations ? " (trailing copy_)" : " (extra outputs)");
  out << "\n";
  return out.str();
}

}  // namespace kiln
