#include "lower/integer_divisors.h"

#include <string>

#include "core/element.h"
#include "ops/op_info.h"

namespace kiln {

namespace {

// The value of const op `c` in its dtype, as the evaluator and generated code hold it.
bool nonzero_const(const BodyOp& c) {
  if (c.kind != BodyOp::Kind::Const) return false;
  alignas(8) std::byte scratch[8] = {};
  if (c.value.is_float())
    store_double(scratch, c.dtype, 0, c.value.to_double());
  else
    store_int(scratch, c.dtype, 0, c.value.to_int());
  return is_floating(c.dtype) ? load_double(scratch, c.dtype, 0) != 0 : load_int(scratch, c.dtype, 0) != 0;
}

Status check_part(const LoopProgram& p, const LoopKernel& kernel, const LoopKernel& part) {
  for (size_t i = 0; i < part.body.size(); ++i) {
    const BodyOp& op = part.body[i];
    if (op.kind != BodyOp::Kind::Compute || !compute_divides(op.op, op.attrs)) continue;
    bool floating = compute_domain(op.op, op.attrs) == ComputeDomain::Float;
    for (int a : op.args) floating = floating || is_floating(part.body[static_cast<size_t>(a)].dtype);
    if (floating || nonzero_const(part.body[static_cast<size_t>(op.args.at(1))])) continue;
    return make_error("integer ", op_info(op.op).name(), " (body op ", i, " of kernel @", kernel.name, " of loops @",
                      p.name,
                      ") divides by a value that is not a nonzero const: compiled code cannot report a "
                      "division by zero (the evaluator and an extern kernel do)");
  }
  return Status::ok();
}

}  // namespace

Status check_integer_divisors(const LoopProgram& p) {
  for (const LoopKernel& k : p.kernels)
    for (const LoopKernel* part : loop_kernel_parts(k)) KILN_TRY(check_part(p, k, *part));
  return Status::ok();
}

}  // namespace kiln
