// Wide memory accesses for pointwise kernels: each thread handles `width` consecutive points of
// the (collapsed) innermost loop, loading and storing them with 16-byte (or 8/4/2-byte) vector
// accesses, so a bf16 kernel moves 16 bytes per access instead of 2.
//
// The width is the one at which the narrowest access that moves with the innermost loop moves
// 16 bytes (8 bf16, 4 f32), halved while the widest would move more than 64 bytes. A kernel takes it only when every
// access allows it, else every point keeps the scalar path (`scalar_reason` says why):
// - no indirect or masked access, stores that never repeat an element;
// - the innermost extent a multiple of the width (a kernel of one loop runs its last
//   extent % width points on the scalar path instead);
// - each store, and each load that moves with the innermost loop, at unit stride in it, its
//   group's first element a multiple of the width: the constant and every other term's
//   coefficient multiples of it (every buffer starts on a 256-byte boundary,
//   cuda_program_source.h, so such an element is aligned to the vector's bytes);
// - a load that does not move with the innermost loop (stride 0, a broadcast) is loaded once
//   per group.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lower/loop_ir.h"

namespace kiln::cuda {

enum class VectorAccess : uint8_t {
  None,        // not a load or store
  Contiguous,  // the group's `width` elements with vector accesses
  Broadcast,   // one element for the whole group (a load)
};

struct PointwiseVectors {
  int width = 1;                     // points per thread; 1: the scalar path
  std::vector<VectorAccess> access;  // per body op (width > 1)
  int64_t groups = 0;                // points / width, run `width` at a time
  int64_t tail = 0;                  // points after the groups, on the scalar path
  std::string scalar_reason;         // width 1: what kept the kernel scalar
};

// The vector plan of pointwise kernel `k` (its loops collapsed) of program `p`.
PointwiseVectors pointwise_vectors(const LoopProgram& p, const LoopKernel& k);

// Column reduction `k` (lower/loop_ir.h's is_column_reduction, its loops collapsed) of program
// `p`: the adjacent columns each thread takes, the width at which its narrowest load that walks
// the columns (the last outer loop) moves 16 bytes a row, under the conditions above with the
// column loop as the innermost (its extent a multiple of the width); and per body op before the
// reduce op how it loads (Contiguous: one vector a row, Broadcast: one value a row). Width 1
// where an access or the extent forbids it.
struct ColumnVectors {
  int width = 1;
  std::vector<VectorAccess> access;  // per body op (width > 1)
};
ColumnVectors column_vectors(const LoopProgram& p, const LoopKernel& k);
// The points a thread takes at once in innermost loop `inner` of `kernels` (a fused kernel's
// parts share it): the narrowest access moving with it moves 16 bytes, the widest at most 64.
int vector_group_width(const LoopProgram& p, const std::vector<const LoopKernel*>& kernels, int inner);

// How access `op` may run `width` points at a time in innermost loop `inner`: None, with the
// reason in `why`, where it cannot.
VectorAccess vector_access(const LoopProgram& p, const BodyOp& op, int inner, int width, std::string& why);
// The same without the alignment of a group's first element (Contiguous: direct, at unit stride
// in `inner`), for a walk that finds its first aligned group at run time (cuda_row_vectors.h).
VectorAccess unaligned_vector_access(const LoopProgram& p, const BodyOp& op, int inner, std::string& why);

// One vector access of `width` elements of `t`: `count` pieces of `bytes` (at most 16) each.
struct VectorPieces {
  int bytes = 0;
  int count = 0;
};
VectorPieces vector_pieces(int width, DType t);

}  // namespace kiln::cuda
