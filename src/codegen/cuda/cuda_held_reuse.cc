// Computed values a held row keeps in registers (cuda_held_row.h's hold_recomputed): each
// row part's ops before its reduce ops get a key naming what they compute from what (interned:
// an op's key names its operands' keys), so two ops of different parts with the same key
// compute the same value at the same point. A load's key is the held value it reads and how
// many stores to it came before; a read-only load's, its buffer and index.
#include <map>
#include <optional>

#include "codegen/cpp/cpp_lane_reduce.h"
#include "codegen/cuda/cuda_held_row.h"
#include "lower/compute_op.h"

namespace kiln::cuda {

bool worth_holding(OpKind op) {
  const std::optional<ComputeOp> c = find_compute_op(op);
  return c && compute_op_cost(*c) == ComputeCost::Costly;
}

namespace {

constexpr int kNoKey = -1;  // an op whose value another part cannot be shown to repeat

class Keys {
 public:
  int of(const std::string& text) { return keys_.try_emplace(text, static_cast<int>(keys_.size())).first->second; }

 private:
  std::map<std::string, int> keys_;
};

// The key of each op of `part` before `stop` (kNoKey past it); `stores` counts each held
// value's stores so far (parts before this one included) and is advanced by this part's.
std::vector<int> part_keys(const LoopKernel& part, size_t stop, const std::vector<int>& of, Keys& keys,
                           std::vector<int>& stores) {
  std::vector<int> key(part.body.size(), kNoKey);
  const auto args_text = [&](const BodyOp& op) {
    std::string t;
    for (int a : op.args) {
      if (key[static_cast<size_t>(a)] == kNoKey) return std::string("?");
      t += " #" + std::to_string(key[static_cast<size_t>(a)]);
    }
    return t;
  };
  for (size_t i = 0; i < part.body.size(); ++i) {
    const BodyOp& op = part.body[i];
    const int v = of[i];
    if (op.kind == BodyOp::Kind::Store && v >= 0) ++stores[static_cast<size_t>(v)];
    if (i >= stop) continue;
    std::string text;
    switch (op.kind) {
      case BodyOp::Kind::Load:
        text = v >= 0 ? "held " + std::to_string(v) + " after " + std::to_string(stores[static_cast<size_t>(v)])
                      : "read " + std::to_string(op.buffer) + "@" + op.index.to_string();
        break;
      case BodyOp::Kind::Const: text = "const " + op.value.to_string(); break;
      case BodyOp::Kind::Index: text = "index " + op.index.to_string(); break;
      case BodyOp::Kind::Cast: text = "cast" + args_text(op); break;
      case BodyOp::Kind::Compute:
        text = std::to_string(static_cast<int>(op.op)) + op.attrs.to_string() + args_text(op);
        break;
      default: continue;  // a draw, an index check, a reduce: not repeated
    }
    if (text.find('?') != std::string::npos) continue;
    key[i] = keys.of(std::to_string(static_cast<int>(op.dtype)) + " " + text);
  }
  return key;
}

}  // namespace

void hold_recomputed(const LoopKernel& k, HeldRow& h) {
  const size_t n = k.loops.size();
  const int64_t per_array = int64_t{h.launch.groups_per_thread} * h.width;
  int64_t held = 0;
  for (const HeldValue& hv : h.values) held += hv.row ? per_array : 0;
  Keys keys;
  std::vector<int> stores(h.values.size(), 0);
  std::map<int, std::pair<int, int>> first;  // key -> (part, op) computing it first
  std::map<int, int> value_of_key;           // key -> the computed HeldValue holding it
  for (size_t j = 0; j < k.parts.size(); ++j) {
    const LoopKernel& part = k.parts[j];
    const bool row_part = !is_scalar_part(part, n);
    const size_t stop = !row_part                            ? 0
                        : part.kind == KernelKind::Reduction ? static_cast<size_t>(part.reduce_op)
                                                             : part.body.size();
    const std::vector<int> key = part_keys(part, stop, h.value_of[j], keys, stores);
    for (size_t i = 0; i < stop; ++i) {
      const BodyOp& op = part.body[i];
      if (key[i] == kNoKey) continue;
      const auto [it, fresh] = first.try_emplace(key[i], static_cast<int>(j), static_cast<int>(i));
      if (fresh || it->second.first == static_cast<int>(j) || op.kind != BodyOp::Kind::Compute ||
          !worth_holding(op.op) || !is_floating(op.dtype))
        continue;
      auto held_at = value_of_key.find(key[i]);
      if (held_at == value_of_key.end()) {
        if (held + per_array > kMostHeldValues) continue;
        held += per_array;
        const auto [producer, producer_op] = it->second;
        held_at = value_of_key.emplace(key[i], static_cast<int>(h.values.size())).first;
        h.values.push_back({.part = producer, .op = producer_op, .row = true});
        h.value_of[static_cast<size_t>(producer)][static_cast<size_t>(producer_op)] = held_at->second;
      }
      h.value_of[j][i] = held_at->second;
    }
  }
}

}  // namespace kiln::cuda
