// The writer of one loop kernel's CUDA text (cuda_kernel.h's emit_cuda_kernel): one class whose
// members are spread over files by the kernels they write:
//  * cuda_kernel_writer.cc: text (lines, blocks), functions and their parameters, loops over
//    points, the body's ops;
//  * cuda_kernel.cc: which launch a kernel takes (write);
//  * cuda_vector_groups.cc: pointwise kernels a group of vector accesses at a time;
//  * cuda_held_row_writer.cc: fused kernels whose row is held in registers;
//  * cuda_held_quotient.cc: their quotients by a statistic of the row, as products;
//  * cuda_block_reduce.cc: a block's reduction (fold, warp shuffles, shared slots), fused parts
//    in memory;
//  * cuda_row_walk.cc: a fused part's row in memory walked with vectors from its first boundary;
//  * cuda_two_pass_m2.cc: a fused row's welford_m2 in two passes (held or in memory);
//  * cuda_split_reduce.cc: reductions in two passes (split rows, column partials, their finish).
// Private to src/codegen/cuda.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "codegen/cuda/cuda_held_row.h"
#include "codegen/cuda/cuda_index_width.h"
#include "codegen/cuda/cuda_kernel.h"
#include "codegen/cuda/cuda_launch.h"
#include "codegen/cuda/cuda_reduce.h"
#include "codegen/cuda/cuda_reduce_strategy.h"
#include "codegen/cuda/cuda_row_vectors.h"
#include "codegen/cuda/cuda_vector_access.h"

namespace kiln::cuda {

inline constexpr int kWarpThreads = 32;

// Points of loops [first, last) of `loops` (INT64_MAX past it).
int64_t points(const std::vector<int64_t>& loops, size_t first, size_t last);

// The loops of `k` that are not reduced: a reduction's outer loops, every loop otherwise.
int outer_loops(const LoopKernel& k);

// Whether `k` (or a part of it) checks an indirect index: its functions take the error slot.
bool has_index_checks(const LoopKernel& k);

// "[4, 8]": the extents of loops [first, last).
std::string extents_text(const std::vector<int64_t>& loops, size_t first, size_t last);

// "loops [4] reduce [8]" or "loops [4, 8]".
std::string loops_text(const LoopKernel& k);

class KernelWriter {
 public:
  KernelWriter(const LoopProgram& p, const LoopKernel& original, const LoopKernel& k, const CudaTarget& target)
      : p_(p), original_(original), k_(k), target_(target), checks_(has_index_checks(k)) {}

  // The kernel's functions and launches, each function's symbol starting with `symbol`.
  CudaKernel write(const std::string& symbol);

 private:
  void line(const std::string& text);
  void open_block(const std::string& text);
  void close_block();

  // 32-bit index arithmetic when the bounds allow it with grid-stride steps of `stride`.
  void narrow(int64_t stride) { index_ = fits_int32(k_, stride) ? "int" : "int64_t"; }
  // The thread's and block's numbers and counts in the kernel's index type.
  std::string grid_thread() const;
  std::string grid_threads() const;
  std::string block_index() const { return "(" + index_ + ")blockIdx.x"; }
  std::string grid_blocks() const { return "(" + index_ + ")gridDim.x"; }
  // While lanes_ (a warp per row): the thread's lane and the warp's lanes instead.
  std::string thread_index() const { return "(" + index_ + ")" + (lanes_ ? "(threadIdx.x % 32)" : "threadIdx.x"); }
  std::string block_threads() const { return lanes_ ? "32" : "(" + index_ + ")blockDim.x"; }

  // One __global__ function `symbol` launched as `shape`: the comment saying how it spreads the
  // work, the signature (the scratch workspace last when `scratch`), `body`, the error slot.
  void function(const std::string& symbol, const LaunchShape& shape, const std::string& how, bool scratch,
                const std::function<void()>& body);

  std::string kind_name() const;

  // `const float* __restrict__ b0_x, float* __restrict__ b3_out0, int* kiln_error`: the buffers
  // used, in buffer order (written ones not const), then the error slot; `args` the same.
  std::string parameters(std::vector<CudaArg>& args) const;

  // The loop variables i<first>..i<last-1> of `k` from flat point `flat` (row-major).
  void unflatten(const LoopKernel& k, const std::string& flat, int first, int last);
  void unflatten(const std::vector<int64_t>& loops, const std::string& flat, int first, int last);

  // `for (<index> var = start; var < N; var += stride)` over the points of loops [first, last)
  // of `k`, the loop variables taken from the flat point, then `body`. Nothing where N is 0;
  // `body` once in a block, `var` 0, where there are no loops (N is 1).
  void for_points(const LoopKernel& k, const std::string& var, int first, int last, const std::string& start,
                  const std::string& stride, const std::function<void()>& body);

  // Pointwise kernel k_ `v.width` points at a time: a thread per group of consecutive points of
  // the innermost loop, grid-stride; the group's vector loads, its points (unrolled lanes), its
  // vector stores. The innermost loop variable is the lane's (where an index op reads it); i<n>,
  // past the loops', is the group's first point. Then, for a kernel of one loop, its last
  // points one a thread.
  void vector_groups(const PointwiseVectors& v);
  // `union { kiln_v16 v[2]; float e[8]; } l3`: `width` elements of dtype `t` as vector pieces
  // (bf16: also as 32-bit words `w`, two elements each).
  static std::string vector_union(const std::string& name, int width, DType t);
  // Element `j` of vector_union `name` as a loaded value is read: bf16 as the low or high half
  // of its word, so that its conversion to float is one shift or one mask (SASS: SHF or LOP3,
  // where the upper 16-bit element costs a PRMT and a shift); others `name.e[j]`.
  static std::string vector_element(const std::string& name, const std::string& j, int width, DType t);
  // The pieces of union `name` loaded from (`load`) or stored to op's elements at the group's
  // first point (its index with `to_start` substituted).
  void vector_copy(const std::string& name, int width, DType t, const BodyOp& op,
                   const std::vector<IndexExpr>& to_start, bool load);

  void open_loop(const LoopKernel& k, int d);

  void ops(const LoopKernel& k, size_t from, size_t to);

  // Held row h_ (cuda_held_row.h): part held_part_'s op `i`, reading and writing the thread's
  // registers where the plan holds its element; a held store that memory needs too goes there
  // as well (a row's vector pieces after the group's points instead, in held_points).
  void held_op(const LoopKernel& part, int i);
  // Op `i`'s statement as body_op_text writes it, or a by_reciprocal division's product with
  // its divisor's reciprocal (row_reciprocals).
  std::string held_op_text(const LoopKernel& part, int i) const;
  // Before part held_part_'s points: each by_reciprocal divisor's value, scale and reciprocal,
  // once a row (`v5_row`, `v5_k`, `v5_r`).
  void row_reciprocals(const LoopKernel& part);
  std::string held_element(int v) const;
  // `union { kiln_v16 v[1]; uint16_t e[8]; } name` (the row's width a group) or `uint16_t name`
  // (one point a group): a held array of dtype `t`'s storage type.
  std::string held_array(const std::string& name, DType t) const;
  // The dtype whose storage type holds computed value `hv` exactly: its value type's.
  DType computed_dtype(const HeldValue& hv) const;

  // A fused kernel's parts over a row held in registers (plan `h`): the held values declared
  // (a statistic loaded first from memory here), then each part over the thread's groups, a
  // reduction part's state combined so that every thread has the row's result. No barrier
  // between parts: a part reads only registers, and statistics every thread computed.
  void held_parts(const HeldRow& h);
  const BodyOp& first_access(int v) const;

  // `body` at each of the thread's points of the row (groups threadIdx.x + j * block, each
  // `width` points, unrolled), the row's loop variables set; before a group's points, the
  // values `part` loads first from memory (`loaded` marks them); after them, the vector pieces
  // of its held stores that memory needs.
  void held_points(const HeldRow& h, const LoopKernel& part, std::vector<bool>& loaded,
                   const std::function<void()>& body);

  // A fused kernel's parts, in order, for the row; a barrier after each, so a part reads what
  // an earlier part stored. A part walks its row with vectors where row_vectors allows.
  void parts();

  // What runs at one of a thread's points of a row, op i's element `element[i]` where given
  // (as row_walk gives them; empty: each op's own).
  using PointFold = std::function<void(const std::vector<std::string>& element)>;
  // Runs `at_point` at each of the thread's points of a row: a held row's, a row in memory.
  using PointWalk = std::function<void(const PointFold& at_point)>;

  // `body` at each of the block's thread's points of `part`'s row (its one own loop i<rows>)
  // by plan `v` (cuda_row_vectors.h): the head and the tail a point a thread, between them a
  // group of v.width points a thread, its Contiguous loads as vector pieces before the lanes,
  // its Contiguous stores after them. `element[i]` names op i's element in a lane ("": its
  // buffer's at the point).
  void row_walk(const LoopKernel& part, int rows, const RowVectors& v, const PointFold& body);
  // The same over the row's points [begin, end) only (expressions; `end` at most the row's
  // extent): a split row's chunk. The head is the range's points before its first multiple of
  // the width, at most the range.
  void row_walk(const LoopKernel& part, int rows, const RowVectors& v, const PointFold& body, const std::string& begin,
                const std::string& end);

  // The walk of the block's thread's points of reduction part `part`'s row in memory: by
  // row_walk where row_vectors gives a vector width, else a point a thread (threadIdx.x, +
  // blockDim.x, ...) over its reduce points.
  PointWalk row_points(const LoopKernel& part, int rows);

  // Reduction `k`'s ops before its reduce ops at one point (op i's element `element[i]` where
  // given, as body_op_text takes it), then its accumulators' updates.
  void fold_point(const LoopKernel& k, const std::vector<std::string>& element);
  // Ops [0, to) of `k` at one point, op i's element `element[i]` where given (empty: each
  // op's own, or the held row's).
  void row_ops(const LoopKernel& k, size_t to, const std::vector<std::string>& element);

  // The accumulators of reduction `k`'s reduce ops (accs_), declared, and the thread's fold of
  // its reduce points: `first`, + `stride`, ... over all of them, or with `chunk` nonempty over
  // points [start + first, start + chunk) ("" start: 0) of the row only.
  void fold(const LoopKernel& k, const std::string& first, const std::string& stride, const std::string& start,
            const std::string& chunk);

  // The accumulators of reduction k_ (a block per output point, `outer` loops not reduced)
  // declared, and the thread's fold of the row: by row_walk with vectors where fold_vectors
  // gives a width (one reduce loop, unit-stride loads, no welford_m2), else fold's point a thread.
  void fold_row(int outer);
  // The vector walk fold_row and fold_chunk take: row_vectors', width 1 for a welford_m2.
  RowVectors fold_vectors(int outer) const;
  // The same over chunk `s` (an expression) of `chunk` points of the row only: a split row's.
  void fold_chunk(int outer, const std::string& s, int64_t chunk);

  // Where block_reduce leaves the block's state for its `result` callback: `prefix` and slot
  // `at` of BlockAccumulator's arrays ("" and "": the thread's registers).
  using AtResult = std::function<void(const std::string& prefix, const std::string& at)>;
  // Who runs block_reduce's `result`: thread 0 (a barrier after it when `then_barrier`, so
  // the block sees what it stored), or every thread.
  enum class ResultFor : uint8_t { ThreadZero, ThreadZeroThenBarrier, EveryThread };

  // The block's states combined in a fixed order (no atomics: the same bits run after run):
  // in each warp by shuffles, lane l joining lane l + d for d = 16, 8, ..., 1, so lane 0 holds
  // the warp's state; then lane 0 of each warp into a shared slot, and warp 0 joins those
  // slots the same way into slot <warps>. Then `result` runs with the block's state.
  void block_reduce(ResultFor who, const AtResult& result);
  // block_reduce for states whose join divides (Chan's): the states meet in shared memory and
  // combine over halving strides (a fixed tree, a barrier a step), so no state is live in
  // registers around the division's call; the result in slot 0.
  void shared_tree(ResultFor who, const AtResult& result);
  // Each lane's state joins the lane `step` above it for step = lanes / 2, ..., 1: lane 0 then holds
  // the join of lanes [0, lanes) in a fixed tree.
  void warp_join(int lanes);

  // Reduction part `part` whose welford_m2 ops take two passes over the row (`walk`): the reduce
  // ops' sums over the thread's points combined for the block (every thread has them), each
  // welford_m2's mean from its sum, then the squared deviations from it combined the same way;
  // `who` runs the epilogue. No division per point, no Chan join: exact two-pass statistics
  // (docs/CUDA_CODEGEN.md), a held row's (HeldRow's two_pass_m2) and a row in memory's alike.
  void two_pass_m2(const LoopKernel& part, ResultFor who, const PointWalk& walk);

  // The reduce ops' values from slot `at` of arrays `prefix`, then the epilogue (its stores).
  void epilogue(const LoopKernel& k, const std::string& prefix, const std::string& at);
  // The same, reduce op `r`'s value the expression `result_of(r)`.
  void epilogue(const LoopKernel& k, const std::function<std::string(size_t)>& result_of);

  static std::string name_of(const BlockAccumulator& a, const BlockAccumulator::Field& f);

  std::string split_text(const ReducePlan& plan, const std::string& how) const;

  // The slot of output `o`'s partial of chunk `s`: chunk-major, so neighbouring outputs
  // (columns) are neighbours.
  std::string partial_slot(const std::string& o, const std::string& s) const;
  int64_t outputs() const { return points(k_.loops, 0, static_cast<size_t>(k_.num_outer_loops())); }

  // accs_ for k_, and pointers g_<acc><field> to each field's array of partials in the scratch
  // workspace, each array 256-byte aligned.
  void scratch_arrays(const ReducePlan& plan);
  // accs_: one accumulator per reduce op of reduction `k`, a0, a1, ...
  void make_accumulators(const LoopKernel& k);

  // Over the (output, chunk) pairs `var` = chunk * outputs + output, from `start` by `stride`:
  // the output's loop variables, then `body(output, chunk)`.
  void partial_points(const std::string& var, const std::string& start, const std::string& stride,
                      const ReducePlan& plan, const std::function<void(const std::string&, const std::string&)>& body);

  // The first pass of a column reduction (cuda_reduce_strategy.h's ColumnPartials, vector plan
  // `v`): a block per (run of plan.groups column groups, chunk of rows), a thread per group of
  // plan.columns adjacent columns (states t_<acc>[j]) and row lane; each lane folds rows y, y +
  // lanes, ... of the chunk in order, its loads that walk the columns one vector a row; the lanes
  // meet in shared memory over halving strides (a fixed tree) and lane 0 stores the partials.
  void column_partials(const std::string& symbol, const ReducePlan& plan, const ColumnVectors& v);
  // `body` for lanes j = 0 .. w-1 of a thread's columns, unrolled.
  void lanes_loop(int w, const std::function<void()>& body);

  // The second pass of a column reduction: a thread per output point folds its partials in chunk
  // order in a register (the loads independent of the folds, so unrolled they overlap), then
  // stores the total in chunk 0's slot and runs the epilogue.
  void column_finish(const std::string& symbol, const ReducePlan& plan);

  // The second pass of a split reduction: a thread per output folds its partials in chunk
  // order into chunk 0's slot, then runs the epilogue.
  void finish(const std::string& symbol, const ReducePlan& plan);
  // The same by plan.warp_finish: a warp per output point, lane l folding partials l, l + 32,
  // ... in order into its registers, the lanes joined by shuffles, lane 0 the epilogue.
  void warp_finish(const std::string& symbol, const ReducePlan& plan);

  const LoopProgram& p_;
  const LoopKernel& original_;  // as the program has it; k_ with its loops collapsed
  const LoopKernel& k_;
  const CudaTarget& target_;
  const bool checks_;
  std::string index_ = "int64_t";  // "int" or "int64_t": loop variables and index arithmetic
  int block_ = 1;                  // threads of the block in the function being written
  bool lanes_ = false;             // a row's points stride over a warp's lanes, not the block's
  const HeldRow* held_ = nullptr;  // the row held in registers, while its parts are written
  int held_part_ = -1;             // the part of held_ being written
  std::vector<BlockAccumulator> accs_;
  CudaKernel out_;
  int depth_ = 0;
};

}  // namespace kiln::cuda
