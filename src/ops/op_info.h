// The op table instantiated from ops.def: schema, traits and hooks per OpKind.
#pragma once

#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "core/shape.h"
#include "core/tensor.h"
#include "ops/op_kind.h"
#include "ops/schema.h"
#include "support/diagnostic.h"

namespace kiln {

struct TypeCall;
struct KernelCall;

using ShapeRule = Expected<std::vector<Shape>> (*)(const TypeCall&);
using DTypeRule = Expected<std::vector<DType>> (*)(const TypeCall&);
using Kernel = Expected<std::vector<Tensor>> (*)(const KernelCall&);

struct OpInfo {
  OpKind kind;
  std::string_view enum_name;  // "AddInplace"
  OpSchema schema;
  Traits traits;
  ShapeRule shape_rule;
  DTypeRule dtype_rule;
  Kernel kernel;

  std::string_view name() const { return schema.name; }  // "add_"
  bool has(Traits t) const { return (traits & t) != 0; }
  // Pure ops may be removed when unused and merged when identical.
  bool is_pure() const { return !has(kRandom | kSideEffect | kInplace); }
};

const OpInfo& op_info(OpKind kind);
std::optional<OpKind> op_from_name(std::string_view name);
std::span<const OpInfo> all_ops();

// "elementwise|inplace"; "-" for none.
std::string traits_to_string(Traits t);

}  // namespace kiln
