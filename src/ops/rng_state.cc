#include "ops/rng_state.h"

#include "support/check.h"

namespace kiln {

namespace {

constexpr std::string_view kRngState = "rng_state";

// The operand at `index` when the call has it (trailing optional operands may be left out).
template <typename Operands>
auto* rng_operand(const Operands& operands, int index) {
  return index >= 0 && static_cast<size_t>(index) < operands.size() ? &operands[static_cast<size_t>(index)] : nullptr;
}

}  // namespace

int rng_state_operand_index(OpKind op) {
  const std::vector<const ArgSchema*> args = op_info(op).schema.operand_args();
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i]->name != kRngState) continue;
    // With no variadic operand before it, the argument's position is its flat operand index.
    for (size_t j = 0; j < i; ++j)
      KILN_CHECK(!args[j]->is_variadic()) << op_info(op).name() << ": rng_state after a list";
    return static_cast<int>(i);
  }
  return -1;
}

bool is_rng_state_type(const TensorType& t) { return t.dtype == DType::I64 && t.shape.rank() == 1 && t.shape[0] == 2; }

bool draws_random_numbers(const OpCallBase& call) {
  switch (call.op()) {
    case OpKind::Dropout: return call.attr_bool("train");
    case OpKind::ScaledDotProductAttention: return call.attr_float("dropout_p") > 0;
    default: return call.info().has(kRandom);
  }
}

Status check_rng_state(const TypeCall& call) {
  const TypeOperand* o = rng_operand(call.operands, rng_state_operand_index(call.op()));
  if (o == nullptr || o->is_none()) return Status::ok();
  const TensorType& t = *o->type;  // check_fits_schema admits only a tensor or none here
  if (!is_rng_state_type(t))
    return make_error(call.name(), ": rng_state must be i64[2] (seed, offset), got ", t.to_string());
  return Status::ok();
}

RandomStream random_stream(const KernelCall& call) {
  const uint64_t node_seed = static_cast<uint64_t>(call.attr_int("seed"));
  const KernelOperand* o = rng_operand(call.operands, rng_state_operand_index(call.op()));
  if (o == nullptr || o->is_none()) return {node_seed, 0};
  const Tensor& state = o->tensor;
  return stream_from_state(static_cast<uint64_t>(state.item_int(0)), static_cast<uint64_t>(state.item_int(1)),
                           node_seed);
}

Tensor make_rng_state(uint64_t seed, int64_t offset) {
  return Tensor::from_ints({static_cast<int64_t>(seed), offset}, {2}, DType::I64);
}

}  // namespace kiln
