#include "codegen/cpp/cpp_row_scratch.h"

#include <optional>
#include <set>

#include "codegen/cpp/cpp_scalar.h"
#include "lower/compute_op.h"
#include "ops/op_info.h"

namespace kiln::cpp {

namespace {

// Worth saving in a scratch array rather than computing again (compute_ops.def's cost).
bool costly(OpKind op) { return compute_op_cost(compute_op(op)) == ComputeCost::Costly; }

// Per body op of one part: a text that is equal for two ops exactly when they compute the
// same value at the same loop point (loads at the same index of the same buffer, the same
// constants and ops), whether it varies along loop `inner`, whether it holds a costly op,
// and the buffers it reads.
struct Values {
  std::vector<std::string> key;
  std::vector<bool> varies, worth;
  std::vector<std::set<int>> reads;
};

Values values_of(const LoopKernel& part, int inner) {
  const size_t n = part.body.size();
  Values v{std::vector<std::string>(n), std::vector<bool>(n, false), std::vector<bool>(n, false),
           std::vector<std::set<int>>(n)};
  for (size_t i = 0; i < n; ++i) {
    const BodyOp& op = part.body[i];
    const std::string type = std::string(value_type(op.dtype));
    switch (op.kind) {
      case BodyOp::Kind::Load:
        if (!op.args.empty()) break;  // masked: not matched (no key)
        v.key[i] = "load " + std::to_string(op.buffer) + "[" + op.index.to_string() + "]:" + type;
        v.varies[i] = op.index.coeff_of(inner) != 0;
        v.reads[i] = {op.buffer};
        break;
      case BodyOp::Kind::Index:
        v.key[i] = "index " + op.index.to_string();
        v.varies[i] = op.index.coeff_of(inner) != 0;
        break;
      case BodyOp::Kind::Const: v.key[i] = "const " + const_literal(op.value, op.dtype); break;
      case BodyOp::Kind::Cast:
      case BodyOp::Kind::Compute:
      case BodyOp::Kind::Random: {
        std::string k =
            op.kind == BodyOp::Kind::Cast ? "cast" : std::string(op_info(op.op).name()) + op.attrs.to_string();
        if (op.kind == BodyOp::Kind::Random)  // a draw is a function of its operands; Philox is costly
          k = "random " + std::string(random_kind_name(op.random.kind)) + " " + std::to_string(op.random.seed) + " " +
              std::to_string(op.random.modulus);
        k += ":" + type + "(";
        v.worth[i] = op.kind == BodyOp::Kind::Random || (op.kind == BodyOp::Kind::Compute && costly(op.op));
        for (int a : op.args) {
          const size_t ai = static_cast<size_t>(a);
          if (v.key[ai].empty()) {  // an operand that is not a plain value (a reduce's result)
            k.clear();
            break;
          }
          k += v.key[ai] + ",";
          v.varies[i] = v.varies[i] || v.varies[ai];
          v.worth[i] = v.worth[i] || v.worth[ai];
          v.reads[i].insert(v.reads[ai].begin(), v.reads[ai].end());
        }
        v.key[i] = k.empty() ? std::string() : k + ")";
        break;
      }
      case BodyOp::Kind::Reduce:
      case BodyOp::Kind::Indirect:  // a check: not matched (no key), nor what reads it
      case BodyOp::Kind::Store: break;
    }
  }
  return v;
}

// The body ops that run inside a part's inner loop: all of a pointwise part's, a reduction's
// up to its reduce op.
size_t inner_ops(const LoopKernel& part) {
  return part.kind == KernelKind::Reduction ? static_cast<size_t>(part.reduce_op) : part.body.size();
}

std::set<int> stored_by(const LoopKernel& part) {
  std::set<int> out;
  for (const BodyOp& op : part.body)
    if (op.kind == BodyOp::Kind::Store) out.insert(op.buffer);
  return out;
}

// The array that holds op `from.second` of part `from.first` for the row: the one that part
// loads it from when it reuses it itself (it is not computed there, so not stored either: a
// value of part 0 reused by parts 1 and 2, expm1 under a softmax beside exp of it, left part 2
// reading an array nothing wrote; --grad long run, seed 4003082), else an array that part stores it into.
int array_holding(RowScratch& plan, std::map<std::pair<size_t, int>, int>& saved, std::pair<size_t, int> from,
                  DType dtype, int64_t extent) {
  if (auto r = plan.reuse[from.first].find(from.second); r != plan.reuse[from.first].end()) return r->second;
  auto it = saved.find(from);
  if (it == saved.end()) {
    plan.arrays.push_back({dtype, extent});
    it = saved.emplace(from, static_cast<int>(plan.arrays.size()) - 1).first;
    plan.save[from.first][from.second] = it->second;
  }
  return it->second;
}

}  // namespace

RowScratch plan_row_scratch(const LoopKernel& k, int rows) {
  RowScratch plan;
  const size_t parts = k.parts.size();
  plan.save.resize(parts);
  plan.reuse.resize(parts);
  // Parts with exactly one loop inside the rows, not too long for the stack.
  std::vector<bool> eligible(parts, false);
  std::vector<Values> values(parts);
  std::vector<std::set<int>> stores(parts);
  for (size_t p = 0; p < parts; ++p) {
    const LoopKernel& part = k.parts[p];
    stores[p] = stored_by(part);
    if (part.kind == KernelKind::Scan || static_cast<int>(part.loops.size()) != rows + 1) continue;
    if (part.kind == KernelKind::Reduction && (part.reduce_op < 0 || part.num_outer_loops() != rows)) continue;
    if (part.loops.back() > kMaxScratchElements || part.loops.back() < 2) continue;
    eligible[p] = true;
    values[p] = values_of(part, rows);
  }
  std::map<std::pair<size_t, int>, int> saved;  // (part, op) -> array
  for (size_t j = 1; j < parts; ++j) {
    if (!eligible[j]) continue;
    const Values& vj = values[j];
    const size_t nj = inner_ops(k.parts[j]);
    std::vector<bool> covered(nj, false);
    for (size_t m = nj; m-- > 0;) {
      if (covered[m] || vj.key[m].empty() || !vj.varies[m] || !vj.worth[m]) continue;
      // The nearest earlier part computing the same value in its inner loop, with no part
      // from there to j writing what the value reads.
      std::optional<std::pair<size_t, int>> from;
      for (size_t i = j; i-- > 0 && !from;) {
        bool clobbered = false;
        for (int b : vj.reads[m]) clobbered = clobbered || stores[i].count(b) || stores[j].count(b);
        if (clobbered) break;
        if (!eligible[i] || k.parts[i].loops.back() != k.parts[j].loops.back()) continue;
        const Values& vi = values[i];
        for (size_t o = 0; o < inner_ops(k.parts[i]); ++o)
          if (vi.key[o] == vj.key[m]) {
            from = std::pair<size_t, int>{i, static_cast<int>(o)};
            break;
          }
      }
      if (!from) continue;
      plan.reuse[j][static_cast<int>(m)] =
          array_holding(plan, saved, *from, k.parts[j].body[m].dtype, k.parts[j].loops.back());
      // The value's own operands need not be matched again.
      std::vector<int> stack = {static_cast<int>(m)};
      while (!stack.empty()) {
        const int x = stack.back();
        stack.pop_back();
        covered[static_cast<size_t>(x)] = true;
        for (int a : k.parts[j].body[static_cast<size_t>(x)].args) stack.push_back(a);
      }
    }
  }
  return plan;
}

}  // namespace kiln::cpp
