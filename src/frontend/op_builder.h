// Internal to the functional API: builds an op's operands and attributes and runs it through
// dispatch, throwing kiln::Error on failure (error.h).
#pragma once

#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "frontend/functional.h"
#include "ops/attr.h"
#include "ops/op_call.h"

namespace kiln::detail {

class OpBuilder {
 public:
  // `loc` is the user's call of the functional API, recorded on the node (dispatch.h).
  OpBuilder(OpKind op, CallSite loc) : op_(op), loc_(loc) {}

  // A tensor operand; an undefined tensor is `none` (optional tensors).
  OpBuilder& operand(const Tensor& t) {
    KernelOperand k;
    k.tensor = t;
    operands_.push_back(std::move(k));
    return *this;
  }
  OpBuilder& operand(const TensorOrScalar& v) {
    if (v.is_tensor()) return operand(v.tensor());
    KernelOperand k;
    k.literal = v.scalar();
    operands_.push_back(std::move(k));
    return *this;
  }
  OpBuilder& operands(const std::vector<Tensor>& ts) {
    for (const Tensor& t : ts) operand(t);
    return *this;
  }
  // One overload per attribute kind, so integer, float and Scalar arguments never compete.
  OpBuilder& attr(std::string_view name, AttrValue v) {
    attrs_.set(name, std::move(v));
    return *this;
  }
  OpBuilder& attr(std::string_view name, int v) { return attr(name, AttrValue(v)); }
  OpBuilder& attr(std::string_view name, int64_t v) { return attr(name, AttrValue(v)); }
  OpBuilder& attr(std::string_view name, double v) { return attr(name, AttrValue(v)); }
  OpBuilder& attr(std::string_view name, bool v) { return attr(name, AttrValue(v)); }
  OpBuilder& attr(std::string_view name, const std::string& v) { return attr(name, AttrValue(v)); }
  OpBuilder& attr(std::string_view name, const char* v) { return attr(name, AttrValue(v)); }
  OpBuilder& attr(std::string_view name, const IntList& v) { return attr(name, AttrValue(v)); }
  OpBuilder& attr(std::string_view name, DType v) { return attr(name, AttrValue(v)); }
  OpBuilder& attr(std::string_view name, Scalar s) { return attr(name, AttrValue::from_scalar(s)); }
  // Optional attributes: absent means the schema default (none).
  template <typename T>
  OpBuilder& attr(std::string_view name, const std::optional<T>& v) {
    if (v) attr(name, AttrValue(*v));
    return *this;
  }
  // For `int[]? dim=None` where an empty list means "every dim".
  OpBuilder& dims(std::string_view name, const IntList& dim) {
    if (!dim.empty()) attr(name, AttrValue(dim));
    return *this;
  }

  Tensor one();
  std::vector<Tensor> many();

 private:
  OpKind op_;
  CallSite loc_;
  std::vector<KernelOperand> operands_;
  AttrMap attrs_;
};

}  // namespace kiln::detail
