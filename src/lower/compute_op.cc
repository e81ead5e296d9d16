#include "lower/compute_op.h"

#include <array>

#include "support/check.h"

namespace kiln {

namespace {

struct ComputeOpInfo {
  OpKind kind;
  int arity;
  ComputeForm form;
  ComputeCost cost;
  double ulps;
};

constexpr std::array<ComputeOpInfo, kNumComputeOps> kComputeOps = {{
#define KILN_COMPUTE_OP(Name, arity, form, cost, ulps) \
  {OpKind::Name, arity, ComputeForm::form, ComputeCost::cost, ulps},
#include "lower/compute_ops.def"
#undef KILN_COMPUTE_OP
}};

const ComputeOpInfo& info(ComputeOp op) { return kComputeOps[static_cast<size_t>(op)]; }

}  // namespace

std::optional<ComputeOp> find_compute_op(OpKind op) {
  switch (op) {
#define KILN_COMPUTE_OP(Name, arity, form, cost, ulps) \
  case OpKind::Name:                                   \
    return ComputeOp::Name;
#include "lower/compute_ops.def"
#undef KILN_COMPUTE_OP
    default: return std::nullopt;
  }
}

ComputeOp compute_op(OpKind op) {
  const std::optional<ComputeOp> c = find_compute_op(op);
  KILN_CHECK(c.has_value()) << "op " << static_cast<int>(op) << " is not a compute op of the loop IR";
  return *c;
}

OpKind compute_op_kind(ComputeOp op) { return info(op).kind; }
int compute_op_arity(ComputeOp op) { return info(op).arity; }
ComputeForm compute_op_form(ComputeOp op) { return info(op).form; }
ComputeCost compute_op_cost(ComputeOp op) { return info(op).cost; }
double compute_op_ulps(ComputeOp op) { return info(op).ulps; }

int compute_arity(OpKind op) {
  const std::optional<ComputeOp> c = find_compute_op(op);
  return c ? compute_op_arity(*c) : 0;
}

bool compute_returns_bool(OpKind op) {
  const std::optional<ComputeOp> c = find_compute_op(op);
  if (!c) return false;
  const ComputeForm f = compute_op_form(*c);
  return f == ComputeForm::Truth || f == ComputeForm::Test || f == ComputeForm::Compare;
}

ComputeDomain compute_domain(OpKind op, const AttrMap& attrs) {
  if (op == OpKind::Div && attrs.find("rounding_mode")) return ComputeDomain::Any;
  switch (compute_op_form(compute_op(op))) {
    case ComputeForm::Float: return ComputeDomain::Float;
    case ComputeForm::Int: return ComputeDomain::Int;
    case ComputeForm::Any:
    case ComputeForm::Truth:
    case ComputeForm::Test:
    case ComputeForm::Compare:
    case ComputeForm::Select: return ComputeDomain::Any;
  }
  KILN_UNREACHABLE("bad compute form");
}

bool compute_divides(OpKind op, const AttrMap& attrs) {
  return op == OpKind::Remainder || op == OpKind::Fmod || (op == OpKind::Div && attrs.find("rounding_mode"));
}

}  // namespace kiln
