#include "lower/reuse_row_values.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kiln {

namespace {

bool transcendental(OpKind op) {
  switch (op) {
    case OpKind::Exp:
    case OpKind::Log:
    case OpKind::Log1p:
    case OpKind::Expm1:
    case OpKind::Sin:
    case OpKind::Cos:
    case OpKind::Tan:
    case OpKind::Atan:
    case OpKind::Tanh:
    case OpKind::Sigmoid:
    case OpKind::Erf:
    case OpKind::Pow: return true;
    default: return false;
  }
}

// Per body op of `k` (the first `end`): a text that is equal for two ops exactly when they
// compute the same value at the same loop point (loads of one buffer at one index, the same
// ops over the same operands), whether each holds a transcendental op, and its size.
struct Keys {
  std::vector<std::string> text;
  std::vector<bool> expensive;
  std::vector<int> size;
};

Keys keys_of(const LoopKernel& k, size_t end) {
  Keys out{std::vector<std::string>(end), std::vector<bool>(end, false), std::vector<int>(end, 1)};
  for (size_t i = 0; i < end; ++i) {
    const BodyOp& op = k.body[i];
    std::string s = std::string(dtype_name(op.dtype)) + " ";
    switch (op.kind) {
      case BodyOp::Kind::Load: s += "load " + std::to_string(op.buffer) + "[" + op.index.to_string() + "]"; break;
      case BodyOp::Kind::Index: s += "index " + op.index.to_string(); break;
      case BodyOp::Kind::Const: s += "const " + op.value.to_string(); break;
      case BodyOp::Kind::Cast: s += "cast"; break;
      case BodyOp::Kind::Compute:
        s += std::to_string(static_cast<int>(op.op));
        out.expensive[i] = transcendental(op.op);
        break;
      case BodyOp::Kind::Reduce:
      case BodyOp::Kind::Store: s += "#" + std::to_string(i); break;  // never equal to another
    }
    if (op.kind == BodyOp::Kind::Cast || op.kind == BodyOp::Kind::Compute) {
      s += "(";
      for (int a : op.args) {
        const size_t j = static_cast<size_t>(a);
        s += out.text[j] + ",";
        out.expensive[i] = out.expensive[i] || out.expensive[j];
        out.size[i] += out.size[j];
      }
      s += ")";
    }
    out.text[i] = std::move(s);
  }
  return out;
}

// Whether `index` gives each point of `loops` its own element: affine, every variable of
// extent > 1 used, strides that do not overlap (mixed radix).
bool one_element_per_point(const IndexExpr& index, const std::vector<int64_t>& loops) {
  if (!index.is_affine()) return false;
  std::vector<std::pair<int64_t, int64_t>> strides;  // |coeff|, extent
  for (size_t v = 0; v < loops.size(); ++v) {
    if (loops[v] <= 1) continue;
    const int64_t c = index.coeff_of(static_cast<int>(v));
    if (c == 0) return false;
    strides.emplace_back(c < 0 ? -c : c, loops[v]);
  }
  std::sort(strides.begin(), strides.end());
  int64_t span = 0;  // the largest offset the smaller strides reach
  for (const auto& [stride, extent] : strides) {
    if (stride <= span) return false;
    span += stride * (extent - 1);
  }
  return true;
}

bool touches(const LoopKernel& k, int buffer) {
  for (const BodyOp& op : k.body)
    if ((op.kind == BodyOp::Kind::Load || op.kind == BodyOp::Kind::Store) && op.buffer == buffer) return true;
  return false;
}

bool loads(const LoopKernel& k, int buffer) {
  for (const BodyOp& op : k.body)
    if (op.kind == BodyOp::Kind::Load && op.buffer == buffer) return true;
  return false;
}

// Stores value `value` of reduction part `r` at buffer[index] inside its reduce loops.
void add_store(LoopKernel& r, int value, int buffer, const IndexExpr& index) {
  const int at = r.reduce_op;
  for (BodyOp& op : r.body)
    for (int& a : op.args)
      if (a >= at) ++a;
  BodyOp store;
  store.kind = BodyOp::Kind::Store;
  store.args = {value};
  store.buffer = buffer;
  store.index = index;
  r.body.insert(r.body.begin() + at, std::move(store));
  ++r.reduce_op;
}

// One reuse between reduction part `r` and a later pointwise part `pw` of `fused`; false when
// none applies.
bool reuse_once(const LoopProgram& p, LoopKernel& fused, size_t r, size_t pw) {
  LoopKernel& red = fused.parts[r];
  LoopKernel& point = fused.parts[pw];
  if (red.kind != KernelKind::Reduction || point.kind != KernelKind::Pointwise || red.loops != point.loops) return false;
  const Keys rk = keys_of(red, static_cast<size_t>(red.reduce_op));
  std::map<std::string, int> in_reduction;
  for (size_t i = 0; i < rk.text.size(); ++i) in_reduction.emplace(rk.text[i], static_cast<int>(i));
  const Keys pk = keys_of(point, point.body.size());
  for (const BodyOp& store : point.body) {
    if (store.kind != BodyOp::Kind::Store) continue;
    const Buffer& out = p.buffers[static_cast<size_t>(store.buffer)];
    if (!is_floating(out.dtype) || loads(point, store.buffer) || !one_element_per_point(store.index, point.loops)) continue;
    bool clear = true;
    for (size_t j = r; j < pw && clear; ++j) clear = !touches(fused.parts[j], store.buffer);
    if (!clear) continue;
    int best = -1;
    for (size_t i = 0; i < pk.text.size(); ++i) {
      const BodyOp& op = point.body[i];
      if (op.kind != BodyOp::Kind::Compute || !pk.expensive[i] || op.dtype != out.dtype || !in_reduction.count(pk.text[i]))
        continue;
      if (best < 0 || pk.size[i] > pk.size[static_cast<size_t>(best)]) best = static_cast<int>(i);
    }
    if (best < 0) continue;
    add_store(red, in_reduction.at(pk.text[static_cast<size_t>(best)]), store.buffer, store.index);
    BodyOp load;
    load.kind = BodyOp::Kind::Load;
    load.dtype = out.dtype;
    load.buffer = store.buffer;
    load.index = store.index;
    point.body[static_cast<size_t>(best)] = std::move(load);
    return true;  // the ops the load replaced are dead: the scheduler prunes them
  }
  return false;
}

}  // namespace

int reuse_row_values(LoopProgram& p) {
  int reused = 0;
  for (LoopKernel& k : p.kernels) {
    if (k.kind != KernelKind::Fused) continue;
    for (size_t pw = 0; pw < k.parts.size(); ++pw)
      for (size_t r = 0; r < pw; ++r)
        while (reuse_once(p, k, r, pw)) ++reused;
  }
  return reused;
}

}  // namespace kiln
