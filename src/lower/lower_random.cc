// Lowering of random ops (ops.def, "Random ops") to `random` draws in loop bodies. rand, randn,
// randint and dropout stay pending like elementwise ops: each kernel that reads one computes
// element i's draw at counter i (row-major over the result, as the reference kernels number
// them) in its own body, so a dropout's mask and scale live inside the kernels around it and
// no mask buffer exists. randperm is a shuffle, not pointwise, and stays an extern kernel.
#include "lower/lowering.h"

#include "core/tensor.h"
#include "ops/op_call.h"
#include "ops/rng_state.h"

namespace kiln::lowering {

namespace {

// The node's rng_state operand, when it has one (a value: check_rng_state made it i64[2]).
const Value* rng_state_of(const Node& n) {
  const int i = rng_state_operand_index(n.op());
  return i >= 0 && i < n.num_operands() && n.operand(i).is_value() ? n.operand(i).value : nullptr;
}

}  // namespace

bool Lowering::lowers_as_random(const Node& n) {
  const OpCallBase call(n.op(), n.attrs());
  switch (n.op()) {
    case OpKind::Rand:
    case OpKind::Randn: return true;
    case OpKind::Randint:  // low >= high: the reference kernel reports it
      return call.attr_int("low") < call.attr_int("high");
    case OpKind::Dropout: {  // p outside [0, 1]: likewise
      const double p = call.attr_float("p");
      return p >= 0 && p <= 1 && n.operand(0).is_value();
    }
    default: return false;
  }
}

int Lowering::emit_random(BodyBuilder& b, const Node& n, const std::vector<IndexExpr>& c) {
  const OpCallBase call(n.op(), n.attrs());
  const DType r = n.result()->type().dtype;
  const double p = n.op() == OpKind::Dropout ? call.attr_float("p") : 0;
  // Dropout that draws nothing: the identity outside training and at p = 0 (every element is
  // kept and scaled by 1), zeros at p = 1 (none is kept), as the reference kernel computes.
  if (n.op() == OpKind::Dropout && (!call.attr_bool("train") || p == 0)) return operand(b, n, 0, r, c);
  if (n.op() == OpKind::Dropout && p == 1) return b.constant(Scalar(0.0), r);

  RandomDraw draw;
  draw.seed = static_cast<uint64_t>(call.attr_int("seed"));
  const int counter = b.index(strided(contiguous_strides(sizes_of(n.result())), c));
  std::vector<int> state;
  if (const Value* s = rng_state_of(n))
    for (int64_t word : {0, 1}) state.push_back(value_at(b, s, {IndexExpr::constant_of(word)}));
  switch (n.op()) {
    case OpKind::Rand: draw.kind = RandomKind::Uniform; return b.random(draw, counter, state, r);
    case OpKind::Randn: draw.kind = RandomKind::Normal; return b.random(draw, counter, state, r);
    case OpKind::Randint: {
      // low + (u64 mod (high - low)), in wrapping int64 arithmetic, then the result dtype.
      const int64_t low = call.attr_int("low"), high = call.attr_int("high");
      draw.kind = RandomKind::Int;
      draw.modulus = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
      const int v = b.random(draw, counter, state, DType::I64);
      return b.cast(b.compute(OpKind::Add, {v, b.constant(Scalar(low), DType::I64)}, DType::I64), r);
    }
    default: {
      // Dropout: keep x * (1 / (1 - p)) where the 53-bit uniform draw is below 1 - p, else 0;
      // in double, as the reference kernel computes it, so the values are its bits.
      draw.kind = RandomKind::Uniform;
      const int u = b.random(draw, counter, state, DType::F64);
      const int keep = b.compute(OpKind::Lt, {u, b.constant(Scalar(1 - p), DType::F64)}, DType::Bool);
      const int x = operand(b, n, 0, DType::F64, c);
      const int scaled = b.compute(OpKind::Mul, {x, b.constant(Scalar(1 / (1 - p)), DType::F64)}, DType::F64);
      return b.cast(b.compute(OpKind::Where, {keep, scaled, b.constant(Scalar(0.0), DType::F64)}, DType::F64), r);
    }
  }
}

}  // namespace kiln::lowering
