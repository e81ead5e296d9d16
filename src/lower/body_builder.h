// BodyBuilder: appends ops to the body of a pointwise or reduction kernel, making identical
// ops (same kind, dtype, operands, buffer and index, or constant) once, so that producers
// inlined into several consumers of one kernel, or kernels merged by the scheduler, compute
// each common subexpression once. The merging restarts after the Reduce op, whose epilogue
// runs outside the reduce loops. Load and store indices are simplified for the kernel's loop
// extents (IndexExpr::simplified), so the kernel's loops must be set first.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "lower/loop_ir.h"

namespace kiln {

class BodyBuilder {
 public:
  // Appends to `k`'s body; ops already there (after its Reduce op, if any) are reused.
  explicit BodyBuilder(LoopKernel& k);

  int add(BodyOp op);  // the op's body index (an existing identical op's, or the new one's)
  DType dtype(int v) const { return k_.body[static_cast<size_t>(v)].dtype; }
  const std::vector<int64_t>& loops() const { return k_.loops; }
  // Terms coeff * value of an index (`value` the result of indirect()).
  using IndirectTerms = std::vector<std::pair<int, int64_t>>;

  // Masked by mask() when one is set: where it is false, the load gives `other` instead.
  int load(int buffer, DType dt, IndexExpr index, Scalar other = Scalar(int64_t{0}), const IndirectTerms& terms = {});
  // Integer `value` checked as an index into a dim of `size` (BodyOp::Kind::Indirect).
  int indirect(int value, int64_t size, bool wrap, OpKind op, int dim, std::string where);
  int constant(Scalar v, DType dt);  // bool literals become 0/1
  int index(IndexExpr e);            // the value of `e` (i64)
  int cast(int v, DType dt);         // v itself when it has dtype dt
  int compute(OpKind kind, std::vector<int> args, DType dt, AttrMap attrs = {});
  // A draw (loop_ir.h, RandomDraw) at i64 value `counter`, under the i64 values `state`
  // (none, or an rng_state's seed and offset).
  int random(RandomDraw draw, int counter, std::vector<int> state, DType dt);
  void store(int buffer, IndexExpr index, int v, const IndirectTerms& terms = {}, bool unique = false);

  // The bool value that masks every load made while it is set (-1: none): the operands of a
  // padded value are read only where the coordinates are inside them (constant_pad_nd).
  int mask() const { return mask_; }
  void set_mask(int m) { mask_ = m; }

 private:
  static std::string key_of(const BodyOp& op);

  LoopKernel& k_;
  std::map<std::string, int> seen_;
  int mask_ = -1;
};

}  // namespace kiln
