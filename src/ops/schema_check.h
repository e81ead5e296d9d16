// Checks of one op application against its op's schema: attribute names and types, required
// attributes, and which operands may be inline literals. Shared by the parser (which reports
// a failure at the offending token), the verifier (at the node) and run_op (eager calls).
#pragma once

#include <string_view>
#include <vector>

#include "ops/schema.h"
#include "support/diagnostic.h"

namespace kiln {

// "bool", "int", "int[]", "str", "ScalarType", "none": the kind of an attribute value.
std::string_view attr_kind_name(const AttrValue& v);

// The value an attribute `name` of `op` stores for `v`: `v` itself, or a double for an
// integer given to a float argument. Fails for a name the schema has no attribute for
// ("op 'sum' has no attribute 'dims'") and for a value of the wrong kind
// ("attribute 'keepdim' of sum expects bool, got int").
Expected<AttrValue> fit_attr(const OpSchema& op, std::string_view name, const AttrValue& v);

// Fails naming the first required attribute (no schema default) that `attrs` lacks.
Status check_required_attrs(const OpSchema& op, const AttrMap& attrs);

// For `num_operands` flat operands: the schema argument each one belongs to. Fails when the
// count does not fit ("add expects 2 operands, got 3").
Expected<std::vector<const ArgSchema*>> operand_args_of(const OpSchema& op, int num_operands);

// Whether an operand may stand for schema argument `arg`: tensors always; bool, int and float
// literals only for Tensor|Scalar; `none` only for Tensor? and Tensor?[].
Status check_operand_kind(const OpSchema& op, const ArgSchema& arg, bool is_tensor, const Scalar& literal);

// Every attribute fits the schema and every required one is there.
Status check_attrs(const OpSchema& op, const AttrMap& attrs);

}  // namespace kiln
