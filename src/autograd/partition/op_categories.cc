#include "autograd/partition/op_categories.h"

#include "ops/rng_state.h"

namespace kiln::partitioning {

bool is_view(const Node& n) { return n.info().has(kView); }

namespace {

// Whether `n` draws from a runtime generator state, so that running it again replays its draws.
bool replays_draws(const Node& n) {
  const int state = rng_state_operand_index(n.op());
  return state >= 0 && state < n.num_operands() && n.operand(state).is_value();
}

}  // namespace

bool is_recomputable(const Node& n) {
  const OpInfo& info = n.info();
  if (info.has(kInplace | kSideEffect | kHigherOrder)) return false;
  if (info.has(kRandom)) return replays_draws(n);
  if (info.has(kElementwise | kView)) return true;
  switch (n.op()) {
    case OpKind::Sum:
    case OpKind::Mean:
    case OpKind::Amax:
    case OpKind::Var:
    case OpKind::Std:
    case OpKind::Argmax:
    case OpKind::Any:
    case OpKind::Clone:
    case OpKind::Contiguous:
    case OpKind::Triu:
    case OpKind::Gather:
    case OpKind::Index:
    case OpKind::Full:
    case OpKind::Zeros:
    case OpKind::Ones:
    case OpKind::Empty:
    case OpKind::Arange:
    case OpKind::FullLike:
    case OpKind::ZerosLike:
    case OpKind::OnesLike: return true;
    default: return false;
  }
}

bool is_compute_intensive(const Node& n) {
  return n.info().has(kMatmul) || n.op() == OpKind::Conv2d || n.op() == OpKind::ScaledDotProductAttention;
}

bool is_random(const Node& n) { return n.info().has(kRandom) && !replays_draws(n); }

bool must_stay_in_place(const Node& n) { return n.info().has(kInplace | kSideEffect); }

bool is_fusible(const Node& a, const Node& b) {
  if (b.op() == OpKind::Cat) return true;
  const auto fusible = [](const Node& n) { return is_recomputable(n) || is_random(n); };
  return fusible(a) && fusible(b);
}

}  // namespace kiln::partitioning
