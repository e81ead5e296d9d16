// The per-thread accumulator of one reduce op in a CUDA reduction, and its deterministic
// combination: each thread folds its points in order; states are saved into arrays by slot
// (shared memory for a block's tree, the scratch workspace for partials) and combined slot
// into slot in an order the kernel fixes (no atomics), so the same inputs give bitwise the same
// result run after run. Floating sums and
// products accumulate in double (the evaluator's type); max/min in the value's type, keeping a
// NaN; argmax/argmin as (value, index), the smallest index among the extreme values;
// welford_mean as a double sum over the count, welford_m2 as Welford's (count, mean, m2)
// per thread joined by Chan's formula (a fused row's welford_m2 is two sums instead:
// KernelWriter::two_pass_m2).
#pragma once

#include <string>
#include <vector>

#include "core/dtype.h"
#include "lower/loop_ir.h"

namespace kiln::cuda {

// Whether `part` is a reduction with a welford_m2 op.
bool has_welford_m2(const LoopKernel& part);

class BlockAccumulator {
 public:
  // Reduce op `rop` (its operands of dtypes `value`, and `index` for argmax/argmin), its
  // state named `name` ("a0"), over `count` points in all.
  BlockAccumulator(const BodyOp& rop, DType value, std::string name, int64_t count);

  // One field of the state: its type and the suffix of its name (a0, a0_i, a0_n, ...).
  struct Field {
    std::string type, suffix;
  };
  std::vector<Field> fields() const;
  const std::string& name() const { return name_; }

  // The thread's state, started at the fold's identity.
  std::string declare() const;
  // Folds the point's value `v` (and index `ix` for argmax/argmin) into the state.
  std::string update(const std::string& v, const std::string& ix) const;
  // A state of one field (sum, prod, max, min) held in slot `at` of array `<prefix><name>`
  // (a thread's states of several columns): started at the fold's identity, or folding `v`.
  std::string start_at(const std::string& prefix, const std::string& at) const;
  std::string update_at(const std::string& prefix, const std::string& at, const std::string& v) const;
  // States by slot live in arrays `<prefix><name><suffix>` ("s_a0[...]"); `at`, `into` and
  // `from` are slot expressions. An empty slot names the thread's own state (prefix "" and
  // slot "": the registers a0, a0_n, ...).
  // The thread's state into slot `at`.
  std::string save(const std::string& prefix, const std::string& at) const;
  // Slot `at` of arrays `prefix` into the thread's state.
  std::string restore(const std::string& prefix, const std::string& at) const;
  // Slot `from` of arrays `from_prefix` copied into slot `at` of arrays `prefix`.
  std::string copy(const std::string& prefix, const std::string& at, const std::string& from_prefix,
                   const std::string& from) const;
  // The thread's state joins slot `at` of arrays `prefix` (which folded later points).
  std::string join_from(const std::string& prefix, const std::string& at) const;
  // Slot `into` joins slot `from` (which folded later points, or any for argmax/argmin).
  std::string combine(const std::string& prefix, const std::string& into, const std::string& from) const;
  // The thread's state joins that of the lane `offset` above it in its warp (which folded later
  // points), read by a shuffle: every lane of the warp runs it.
  std::string shuffle_join(const std::string& offset) const;
  // Whether joining divides in double (Chan's formula): a call on the GPU whose saved registers
  // ptxas counts as spills when the states being joined are live in registers around it.
  bool joins_by_division() const { return kind_ == ReduceKind::WelfordM2; }
  // The thread's state replaced by lane 0's: every lane of the warp runs it.
  std::string broadcast_lane_zero() const;
  // The reduce op's value of dtype `out` from slot `at`.
  std::string result(const std::string& prefix, const std::string& at, DType out) const;

 private:
  std::string slot(const std::string& prefix, const std::string& field, const std::string& at) const;
  std::string identity() const;  // a one-field state's start
  // `state` (one field) folding value `x` of the state's type.
  std::string fold(const std::string& state, const std::string& x) const;
  // `into` joins `from`, each a function from a field's suffix to its expression.
  template <typename Into, typename From>
  std::string join(const Into& into, const From& from) const;

  ReduceKind kind_;
  std::string name_;
  int64_t count_;
  std::string type_;  // the state's type ("double", "float", "int64_t", "uint64_t")
  DType held_;        // the dtype whose value type `type_` is (I64 for uint64_t)
};

}  // namespace kiln::cuda
