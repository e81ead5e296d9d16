// The loop IR: a program of buffers and kernels, the level between the graph IR and code
// generation (DESIGN.md section 2, "lower"). docs/LOWERING.md describes it in full.
//
// Text form (loop_text.h prints and parses it; print -> parse -> print is identical):
//
//   loops @f(%x: f32[4,8], %y: f32[8]) -> (%out0, %out1) {
//     buffer %out0 : f32[4,8] strides [8,1]          // output buffers, then temporaries
//     buffer %t0 : f32[4] strides [1] temp
//     kernel @k0 pointwise {                         // one loop nest
//       for i0 in range(4) {
//         for i1 in range(8) {
//           %0 = load %x[8*i0 + i1]                   // SSA body over index expressions
//           %1 = load %y[i1]
//           %2 = const 2.0 : f32
//           %3 = mul %1, %2 : f32                    // an elementwise op of ops.def, by name
//           %4 = add %0, %3 : f32
//           %5 = index i1 - i0                        // an index expression's value, as i64
//           %6 = ge %5, %c0 : bool
//           %7 = load %y[i1 - i0] if %6 else 0.0       // masked: no load where %6 is false
//           %8 = load %i[i0]                            // an index tensor's element
//           %9 = indirect %8, size 8, wrap, index dim 0 at "%2 = index(%y, %i) : f32[4]"
//           %10 = load %y[%9]                           // the element at the checked index
//           store %out0[%9], %10 unique                 // distinct points, distinct elements
//           %11 = div %4, %1 {rounding_mode="floor"} : f32  // div's rounding_mode: the one attribute
//           store %out0[8*i0 + i1], %4
//         }
//       }
//     }
//     kernel @k1 reduction {                         // innermost loops marked `reduce`
//       for i0 in range(4) {
//         for i1 in range(8) reduce {
//           %0 = load %x[8*i0 + i1]                   // per reduced element
//         }
//         %1 = reduce sum %0 : f32                   // the accumulated value (sum|prod|max|min;
//                                                    // argmax|argmin %value, %index;
//                                                    // welford_mean|welford_m2: see ReduceKind)
//         store %t0[i0], %1                           // after the reduce loops
//       }
//     }
//     kernel @k2 extern matmul(%x, %t0 as [4,1] strides [1,0] offset 0) {} -> (%out1)
//     kernel @k4 cond %p {                           // control flow (loop_control.h): runs one
//       then { kernel @k5 ... }                      // region of nested kernels, by the bool %p
//       else { kernel @k6 ... }
//     }
//     kernel @k7 while carry (%c) next (%n) {        // runs `cond` (it stores %q), stops when %q
//       cond %q { kernel @k8 ... }                   // is false, runs `body` (it reads %c and
//       body { kernel @k9 ... }                      // stores %n), exchanges %c and %n, repeats
//     }
//     kernel @k3 fused {                             // parts share outer loops
//       for i0 in range(4) {
//         part reduction {                           // a pointwise or reduction kernel whose
//           for i1 in range(8) reduce { ... }        // loops continue the shared ones
//           %1 = reduce max %0 : f32
//           store %t1[i0], %1
//         }
//         part pointwise {                           // runs after the first part, for the same i0
//           for i1 in range(8) { ... }
//         }
//       }
//     }
//   }
//
// A kernel's loop variables are named i0, i1, ... outermost first. Body values are computed
// in double (floating dtypes) or int64 (other dtypes); floating values are rounded to a dtype
// only by `cast`, `const` and `store` (as the reference kernels compute one op), integer
// results wrap to their dtype at each op (as each reference kernel stores). An extern kernel runs one
// graph op (its attributes in graph-IR syntax) with the op's reference kernel; an operand
// may view its buffer through explicit sizes, strides and offset. A fused kernel runs its parts
// one after another at each point of its shared loops (the scheduler groups kernels that read
// the same rows, so each row is brought from memory once); parts have their own value names.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.h"
#include "core/scalar.h"
#include "lower/compute_op.h"
#include "lower/index_expr.h"
#include "ops/attr.h"
#include "ops/op_kind.h"

namespace kiln {

enum class BufferKind : uint8_t { Input, Output, Temp };

struct Buffer {
  std::string name;  // without '%'
  BufferKind kind = BufferKind::Temp;
  DType dtype = DType::F32;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;

  // Elements of storage the layout spans: 1 + sum((size-1)*stride), 0 when a size is 0.
  int64_t storage_size() const;
};

// Argmax and Argmin take two operands, a value and an index (any integer value, usually the
// point's row-major position in the reduce loops): the result is the smallest index among the
// points where the value is the largest (smallest), a NaN counting as the largest (smallest);
// -1 when the reduce loops have no point. WelfordMean and WelfordM2 are the mean (the sum over
// the count, an infinity or NaN propagating as in a sum) and Welford's sum of squared
// deviations from it (m2; the variance is m2 / (count - correction); NaN when a point is not
// finite), computed in one pass: NaN and 0 over no point. Their count is the number of points of the
// reduce loops (a reduction visits them all), a constant. The others take one operand.
enum class ReduceKind : uint8_t { Sum, Prod, Max, Min, Argmax, Argmin, WelfordMean, WelfordM2 };
inline constexpr int kNumReduceKinds = 8;
std::string_view reduce_kind_name(ReduceKind k);  // "sum"
int reduce_arity(ReduceKind k);                   // operands: 2 for argmax/argmin, else 1
// Sum, prod, max or min: one operand folded into one state of its own type, by one associative
// operation (no index, count or second moment beside it).
bool is_plain_fold(ReduceKind k);

// A Random op's draw (core/random.h) of element `counter` (its first operand, an i64 value) of
// the stream of `seed`: Philox key `seed` and counter high half 0 when it has no other
// operand; with two more (i64 values: an rng_state's seed and offset, ops.def "Random ops"),
// stream_from_state(state seed, state offset, seed). Uniform: uniform_double with the result
// dtype's bits (uniform_bits); Normal: normal_double; Int: random_u64, reduced modulo `modulus`
// (unsigned) unless it is 0, as an i64 of the same bits.
enum class RandomKind : uint8_t { Uniform, Normal, Int };
std::string_view random_kind_name(RandomKind k);  // "uniform"

struct RandomDraw {
  RandomKind kind = RandomKind::Uniform;
  uint64_t seed = 0;
  uint64_t modulus = 0;  // Int
};

struct BodyOp {
  // Indirect: an integer value (args[0]) checked as an index into a dim of `size` elements:
  // a negative one counts from the back when `wrap`; outside [0, size) it is an error naming
  // the indexing op (`op`, its `dim` and the node text `where`, in IR syntax). Its result, in
  // [0, size), is what a load or store index may add as a term (`indirect`).
  enum class Kind : uint8_t { Load, Const, Compute, Cast, Reduce, Store, Index, Random, Indirect };
  Kind kind = Kind::Const;
  DType dtype = DType::F32;             // the result's dtype (Load: the buffer's; Store: unused)
  OpKind op = OpKind::Add;              // Compute: a compute op (compute_ops.def); Indirect: the indexing op
  AttrMap attrs;                        // Compute: its attributes in graph-IR syntax (only div's rounding_mode)
  std::vector<int> args;                // body indices of operand values (Store: the stored value)
  int buffer = -1;                      // Load, Store
  IndexExpr index;                      // Load, Store; Index: the expression whose value (i64) it is
  Scalar value;                         // Const; a masked Load: its value where the mask is false
  ReduceKind reduce = ReduceKind::Sum;  // Reduce
  RandomDraw random;                    // Random (args: the counter, then the state's seed and offset, if any)
  // Load: the last arg is a bool mask; where it is false nothing is loaded (the index need not
  // be in range) and the value is `value` rounded to the buffer's dtype (constant_pad_nd).
  bool masked = false;
  // Load, Store: the element is at index + sum(indirect[j] * value j), the values the results
  // of Indirect ops: a load's first args, a store's args after the stored value (gather, scatter).
  std::vector<int64_t> indirect;
  // Store: distinct points of the kernel store to distinct elements (an op's unique_indices
  // promise), so they may run in parallel, each reading (at the same index) and writing its own.
  bool unique = false;
  // Indirect (above).
  int64_t size = 0;
  bool wrap = false;
  int dim = 0;
  std::string where;

  bool has_result() const { return kind != Kind::Store; }
  int mask() const { return kind == Kind::Load && masked ? args.back() : -1; }
  // The body value of indirect term j of a Load or Store.
  int indirect_arg(size_t j) const { return args[(kind == Kind::Store ? 1 : 0) + j]; }
};

// Scan: a pointwise kernel whose innermost loop (at least one loop) is sequential: its steps
// run in order at each point of the outer loops, and a step may load what an earlier step
// stored (the carries of `scan`, kept in buffers indexed by the outer loops only). The
// scheduler never joins it with another kernel; code generation runs it serially.
//
// Cond and While: control flow over nested kernel lists (regions) of the same program, whose
// buffers they share (loop_control.h has the semantics). Cond reads element 0 of the bool
// buffer `predicate` and runs regions[0] (then) when it is true, regions[1] (else) otherwise.
// While repeats: run regions[0] (cond), which stores the bool `predicate`; stop when it is
// false; run regions[1] (body); then each `carried` buffer exchanges its contents with its
// `next` buffer (the body reads the carried values and stores the next ones).
enum class KernelKind : uint8_t { Pointwise, Reduction, Extern, Fused, Scan, Cond, While };
inline constexpr size_t kNumKernelKinds = 7;  // tables indexed by KernelKind

// An operand of an extern kernel: a buffer viewed with explicit layout, or an inline literal.
struct ExternOperand {
  int buffer = -1;  // -1: literal
  Scalar literal;
  std::vector<int64_t> sizes, strides;
  int64_t offset = 0;
};

struct LoopKernel {
  std::string name;  // without '@'
  KernelKind kind = KernelKind::Pointwise;
  std::vector<int64_t> loops;  // extents, outermost first; variable i<k> runs over loops[k]
                               // (Fused: the shared loops)
  int num_reduce_loops = 0;    // Reduction: the innermost loops that are reduced (>= 1)
  std::vector<BodyOp> body;    // Reduction: ops before `reduce_op` run inside the reduce loops
  // Reduction: index of the first Reduce op. The Reduce ops follow one another from there and
  // fold over the same points in one pass; the epilogue after them uses only their results
  // and its own values.
  int reduce_op = -1;
  // Extern:
  OpKind op = OpKind::Matmul;
  AttrMap attrs;
  std::vector<ExternOperand> operands;
  std::vector<int> results;  // buffers written, one per result of the op
  // Fused: pointwise and reduction kernels whose loops start with this kernel's `loops`; at
  // each point of those, every part runs its remaining loops, in order. Parts have no name.
  std::vector<LoopKernel> parts;
  // Cond, While (see KernelKind):
  int predicate = -1;                            // a bool buffer; its element 0 is read
  std::vector<int> carried, next;                // While: exchanged pairwise after each body
  std::vector<std::vector<LoopKernel>> regions;  // Cond: then, else; While: cond, body

  int num_outer_loops() const { return static_cast<int>(loops.size()) - num_reduce_loops; }
};

struct LoopProgram {
  std::string name;
  std::vector<Buffer> buffers;      // inputs first (in order), then outputs and temporaries
  std::vector<int> inputs;          // buffer indices
  std::vector<int> outputs;         // buffer indices, one per graph output
  std::vector<LoopKernel> kernels;  // in execution order

  int find_buffer(std::string_view name) const;  // -1 if none
};

// The index one past the last reduce op of reduction `k` (its reduce ops run from reduce_op).
size_t reduce_ops_end(const LoopKernel& k);

// The pointwise and reduction kernels that make up `k`: a fused kernel's parts, else `k`.
std::vector<const LoopKernel*> loop_kernel_parts(const LoopKernel& k);

// Buffers kernel `k` reads (loads, extern operands) and writes (stores, extern results, the
// first operand of an in-place extern op); a control kernel (Cond, While) also those of every
// kernel in its regions, its predicate (read) and its carried and next buffers (both). A
// program input that some kernel writes is mutated in place: after a run the caller's tensor
// holds what the program wrote, as the graph's in-place op (copy_, functionalization's
// write-back) leaves it.
std::set<int> kernel_buffers_read(const LoopKernel& k);
std::set<int> kernel_buffers_written(const LoopKernel& k);

// Whether reduction kernel `k` reduces columns: its last outer loop walks memory with unit
// stride in the reduced loads (coefficient 1), while its innermost reduce loop does not in
// those loads (loads that do not depend on the column may be anything affine). Such a
// kernel runs fastest with the loops interchanged (many columns accumulated at once while the
// rows stream by), which code generation does; the scheduler keeps it out of fused kernels.
// Only kernels whose reduce ops are all sum, prod, max or min qualify (several of them: each
// keeps its own accumulator per column).
bool is_column_reduction(const LoopKernel& k);

}  // namespace kiln
