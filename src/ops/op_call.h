// What shape rules, dtype rules and kernels see of one op application: the op, its
// attributes (explicit or schema default) and its operands, either as types (TypeCall) or as
// concrete tensors (KernelCall). Nodes and eager calls both build these, so the rules and
// kernels are shared by capture, the verifier, the interpreter and eager execution.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/tensor.h"
#include "core/tensor_type.h"
#include "ops/attr.h"
#include "ops/op_info.h"

namespace kiln {

class OpCallBase {
 public:
  OpCallBase(OpKind op, const AttrMap& attrs) : op_(op), attrs_(&attrs) {}

  OpKind op() const { return op_; }
  const OpInfo& info() const { return op_info(op_); }
  std::string_view name() const { return info().name(); }
  const AttrMap& explicit_attrs() const { return *attrs_; }

  // The attribute's value: explicit, else the schema default. Asking for a name the schema
  // lacks, or for a required attribute that is missing, is an internal error.
  const AttrValue& attr(std::string_view name) const;
  int64_t attr_int(std::string_view name) const { return attr(name).as_int(); }
  double attr_float(std::string_view name) const { return attr(name).as_float(); }
  bool attr_bool(std::string_view name) const { return attr(name).as_bool(); }
  const std::string& attr_str(std::string_view name) const { return attr(name).as_string(); }
  const std::vector<int64_t>& attr_ints(std::string_view name) const { return attr(name).as_ints(); }
  Scalar attr_scalar(std::string_view name) const { return attr(name).as_scalar(); }  // none if none
  std::optional<int64_t> attr_opt_int(std::string_view name) const;
  std::optional<double> attr_opt_float(std::string_view name) const;
  std::optional<std::vector<int64_t>> attr_opt_ints(std::string_view name) const;
  std::optional<std::string> attr_opt_str(std::string_view name) const;
  std::optional<DType> attr_dtype(std::string_view name) const;
  // A SymInt[] attribute's elements, static ones as constants.
  std::vector<SymExpr> attr_sym_ints(std::string_view name) const { return attr(name).to_sym_ints(); }

 private:
  OpKind op_;
  const AttrMap* attrs_;
};

// An operand as the type rules see it: a tensor type, or an inline literal (none included).
struct TypeOperand {
  std::optional<TensorType> type;
  Scalar literal;

  bool is_tensor() const { return type.has_value(); }
  bool is_none() const { return !type && literal.is_none(); }
};

// Input and output types of a subgraph, for the rules of higher-order ops.
struct SubgraphSignature {
  std::vector<TensorType> inputs;
  std::vector<TensorType> outputs;
};

struct TypeCall : OpCallBase {
  TypeCall(OpKind op, const AttrMap& attrs, std::span<const TypeOperand> operands,
           std::span<const SubgraphSignature> subgraphs = {})
      : OpCallBase(op, attrs), operands(operands), subgraphs(subgraphs) {}

  std::span<const TypeOperand> operands;
  std::span<const SubgraphSignature> subgraphs;  // in schema order
  // Where the rules record the assumptions on symbolic dims they make (ShapeGuard); null
  // when the caller does not collect them (the verifier, eager calls with static shapes).
  std::vector<ShapeGuard>* guards = nullptr;

  void assume(ShapeGuard g) const {
    if (guards) guards->push_back(std::move(g));
  }

  // The node's recorded result types, when a node is checked or re-inferred (empty for eager
  // calls). Where cond's branches disagree on a dim, the rule keeps a recorded bare symbol
  // that neither branch has, or asks `fresh` (propagate-shapes) for a new one.
  std::span<const TensorType> recorded = {};
  const std::function<Dim()>* fresh = nullptr;
};

// An operand as kernels see it: a concrete tensor, or an inline literal (none included).
struct KernelOperand {
  Tensor tensor;  // undefined for literals
  Scalar literal;

  bool is_tensor() const { return tensor.defined(); }
  bool is_none() const { return !tensor.defined() && literal.is_none(); }
};

struct KernelCall : OpCallBase {
  KernelCall(OpKind op, const AttrMap& attrs, std::span<const KernelOperand> operands,
             std::span<const TensorType> result_types)
      : OpCallBase(op, attrs), operands(operands), result_types(result_types) {}

  std::span<const KernelOperand> operands;
  std::span<const TensorType> result_types;  // static shapes, from the type rules
};

// Checks what the rules may assume of a call: attribute kinds and required attributes,
// operand count, literals only where the schema allows them, the number of subgraphs.
// Nodes from the parser satisfy it already; calls built in C++ may not.
Status check_fits_schema(const TypeCall& call);

// Runs check_fits_schema, then the op's shape and dtype rules, and pairs their results. Errors name the op and the
// operand ("add: operand 1 has shape [3,5], not broadcastable to [4,5]"); callers add where.
Expected<std::vector<TensorType>> infer_types(const TypeCall& call);

// Types of concrete operands, for eager calls and the interpreter.
std::vector<TypeOperand> operand_types(std::span<const KernelOperand> operands);

// Eager application of an op to concrete operands: infers result types, then runs the
// reference kernel. Higher-order ops are rejected here (the interpreter runs them), and so is an
// operand on a device (the reference kernels read host memory).
Expected<std::vector<Tensor>> run_op(OpKind op, const AttrMap& attrs, std::span<const KernelOperand> operands);

}  // namespace kiln
