// The lowering of one graph to the loop IR (lower.h), shared by the files that lower each op
// family: lower.cc (the driver, pending values and their inlining, extern kernels),
// lower_pointwise.cc, lower_reduce.cc (and lower_arg_reduce.cc, lower_welford.cc),
// lower_cumsum.cc, lower_pool.cc, lower_layout.cc (chunk, split, as_strided, cat, stack),
// lower_remap.cc (flip, roll, repeat, clone, select_scatter, ...), lower_gather.cc and
// lower_scatter.cc (loads and stores through index tensors), lower_higher_order.cc (map, scan),
// lower_control_flow.cc (cond, while_loop), lower_write.cc (copy_ and in-place writes) and
// lower_random.cc (rand, randn, randint, dropout).
// Internal to src/lower: nothing outside includes it.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/printer.h"
#include "lower/body_builder.h"
#include "lower/index_expr.h"
#include "lower/loop_ir.h"
#include "lower/lower.h"
#include "lower/reduce_nest.h"
#include "support/diagnostic.h"

namespace kiln::lowering {

// How a graph value is read: element at coordinates (i0, i1, ...) is buffer[map].
struct Access {
  int buffer = -1;
  IndexExpr map;
  std::vector<int64_t> sizes;
};

// sum(strides[k] * coords[k]) + offset.
IndexExpr strided(const std::vector<int64_t>& strides, const std::vector<IndexExpr>& coords, int64_t offset = 0);

// The coordinates of a loop nest over `sizes`: i0, i1, ..., and 0 where the extent is 1 (so
// that equal accesses print equal whatever size-1 dims they pass through).
std::vector<IndexExpr> loop_coords(const std::vector<int64_t>& sizes);

// The loop variables i<first>, ..., i<first + count - 1>.
std::vector<IndexExpr> vars(int first, int count);

// The coordinates at which an operand of sizes `sizes` is read by a result whose coordinates are
// `coords` (broadcasting: missing leading dims are dropped, size-1 dims read coordinate 0).
std::vector<IndexExpr> broadcast_coords(const std::vector<int64_t>& sizes, const std::vector<IndexExpr>& coords);

int64_t numel_of(const std::vector<int64_t>& sizes);

// i64 or i32: the dtypes an index tensor may have.
bool is_index_dtype(DType t);
// The index tensors of `index`/`index_put` node `n`: operands 1 .. end-1, null for `none`.
std::vector<const Value*> advanced_indices(const Node& n, int end);
// The shape of advanced indexing of a tensor of sizes `self` by `idx` (shape_rule_index):
// the index tensors broadcast together, in place of the indexed dims when those are adjacent,
// else leading.
std::vector<int64_t> advanced_index_sizes(const std::vector<int64_t>& self, const std::vector<const Value*>& idx);
inline std::vector<int64_t> sizes_of(const Value* v) { return v->type().shape.sizes(); }

class Lowering {
 public:
  Lowering(const Graph& g, const LowerOptions& options) : g_(g), options_(options) {}

  Expected<LoopProgram> run();

  // Whether an elementwise node has simple scalar semantics here (else it is an extern kernel).
  static bool lowers_as_pointwise(const Node& n);

 private:
  int add_buffer(std::string name, BufferKind kind, DType dt, const std::vector<int64_t>& sizes);

  // Kernels are built apart and appended when complete, so that producers realized while a
  // consumer is prepared come before it.
  static LoopKernel make_kernel(KernelKind kind) {
    LoopKernel k;
    k.kind = kind;
    return k;
  }
  void append(LoopKernel k);

  // The buffer a node result is written to: the graph output it is (first unclaimed), else a temporary.
  int result_buffer(const Value* v, const std::vector<int64_t>& sizes);
  int claim_buffer(const Value* v, const std::vector<int64_t>& sizes);

  void copy_kernel(const Access& a, DType dt, int out);

  const Buffer& buffer(int b) const { return p_.buffers[static_cast<size_t>(b)]; }

  Diagnostic node_error(const Node& n, const std::string& why) const {
    return make_error("lower: ", why).with_loc(n.loc()).add_context("while lowering " + print_node(n));
  }

  Status node(const Node& n);

  // ---- Pending (not yet stored) elementwise values ----
  // Whether a pending node reads its operands' values (creation ops like ones_like do not; rand
  // reads its rng_state).
  static bool reads_operands(const Node& n) { return !n.info().has(kCreation) || n.info().has(kRandom); }

  // Distinct pending nodes the body of pending `v` inlines (a map counts its body's nodes),
  // counting stops past `cap`.
  int inline_cost(const Value* v, int cap) const;

  bool must_realize(const Value* v, int64_t points) const;

  // Before a kernel of `points` points reads `v`: realizes what it must not recompute.
  void prepare(const Value* v, int64_t points);

  // Makes node `n`'s results pending; first realizes its pending operands at the end of chains
  // as long as inlining may grow (kMaxInlineDepth in lower.cc).
  void make_pending(const Node& n);

  // Gives pending `v` a buffer and a kernel that computes it; nothing when it has one.
  void realize(const Value* v);

  // Value `v` at its coordinates `coords`: a load, or its pending body inlined.
  int value_at(BodyBuilder& b, const Value* v, const std::vector<IndexExpr>& coords);

  // Operand i as a body value of dtype `dt` (a load or an inlined body, or a literal).
  int operand(BodyBuilder& b, const Node& n, int i, DType dt, const std::vector<IndexExpr>& coords);

  // ---- Higher-order ops (subgraph.h) ----
  // map with a pointwise body_fn: no kernel; each result stays pending, and a reader computes
  // body_fn's body inlined at its coordinates (the mapped dim is the leading coordinate).
  // scan with a pointwise combine_fn: a scan kernel (scan_kernel); a body that is not
  // pointwise is refused. cond and while_loop: control kernels (cond, while_loop below).
  Status higher_order(const Node& n);

  // Pending `v`, the result of `n` (an elementwise node or a map), at coordinates `c`.
  int emit_pending(BodyBuilder& b, const Node& n, const Value* v, const std::vector<IndexExpr>& c);

  // A value of map or scan `n`'s body at its coordinates: a body node inlined, or a body
  // input: a map's extra operand as it is, a mapped or scanned operand at the current mapped
  // or scan coordinate, a scan's carry loaded from its buffer (the previous step's store).
  int body_value_at(BodyBuilder& b, const Node& n, const Value* v, const std::vector<IndexExpr>& coords);

  // scan over `dim` with carries: the carries' buffers (the final-carry results) get the
  // initial values (a copy kernel each), then one scan kernel loops over the points of
  // combine_fn's outputs and, innermost and in order, over the scanned dim: it loads the
  // carries, computes the combine_fn body inlined (slices broadcast as its ops say), and stores
  // the new carries and the step's outputs. Lowered when all outputs (so all carries) have one
  // shape; each point then owns its carries.
  Status scan_kernel(const Node& n);

  // The body of elementwise node `n` at result coordinates `c`; returns its value.
  int emit_pointwise(BodyBuilder& b, const Node& n, const std::vector<IndexExpr>& c);

  // ---- Random ops (lower_random.cc) ----
  // Whether random node `n` is a pending value of `random` draws (rand, randn, randint,
  // dropout); randperm, and the ones whose reference kernel reports an error, are not.
  static bool lowers_as_random(const Node& n);

  // The body of random node `n` at result coordinates `c`: element i (row-major) draws at
  // counter i, as the reference kernel; returns its value.
  int emit_random(BodyBuilder& b, const Node& n, const std::vector<IndexExpr>& c);

  // lower_compute.cc: an elementwise node whose op is compute op `op` of the loop IR
  // (compute_ops.def), computing in dtype `r` (an in-place node's functional form): whether it
  // has a loop body, and its body at result coordinates `c`.
  static bool lowers_as_compute(const Node& n, ComputeOp op, DType r);
  int emit_compute(BodyBuilder& b, const Node& n, ComputeOp op, DType r, const std::vector<IndexExpr>& c);

  // lower_composite.cc: the elementwise ops that are compositions of compute ops (clamp,
  // hardtanh, addcmul, addcdiv, the activations), likewise; false for any other op.
  static bool lowers_as_composite(const Node& n, OpKind op, DType r);
  int emit_composite(BodyBuilder& b, const Node& n, OpKind op, DType r, const std::vector<IndexExpr>& c);

  // lower_inplace.cc: an in-place elementwise op (add_ ... masked_fill_, fill_, zero_) is its
  // functional form (pointwise_op: add_ -> add) computed in that form's dtype (pointwise_dtype)
  // and stored into operand 0, which is a whole buffer or an injective view of one: one
  // pointwise kernel, no temporary. false when it must stay an extern kernel (write_in_place
  // says why in its comment). For other nodes pointwise_op/pointwise_dtype are the node's own.
  static OpKind pointwise_op(const Node& n);
  static DType pointwise_dtype(const Node& n);
  Expected<bool> write_in_place(const Node& n);

  // The ops with the Reduction trait: sum, mean, prod, amax, amin, any, all over their dims
  // here, the others through the functions below; false when the reference kernel must run
  // it (amax/amin over an empty dim, which is an error there; logsumexp, which the CPU backend
  // decomposes).
  Expected<bool> reduction(const Node& n);
  // The loops of reduction node `n` over its operand's reduced dims (reduce_nest.h).
  Expected<ReduceNest> reduction_nest(const Node& n);
  // argmax and argmin (lower_arg_reduce.cc); false over an empty group (the reference kernel
  // reports it).
  Expected<bool> arg_reduction(const Node& n);
  // var and std, and mean when a var or std of the same values over the same dims follows
  // (lower_welford.cc): one Welford kernel computes `n`'s result and `partner`'s (may be null),
  // which is then lowered ahead of its place.
  Expected<bool> welford(const Node& n, const Node* partner);
  // The later var/std for mean `n`, or the later mean for var/std `n`, over the same operand,
  // dims and result dtype with no in-place write in between; null when there is none.
  const Node* welford_partner(const Node& n) const;

  // cumsum (lower_cumsum.cc): a scan kernel over `dim`, the running sums carried in a buffer
  // of f64 or i64 (initialized by a kernel before it); false for a bad dim (the reference
  // kernel reports it).
  Expected<bool> cumsum(const Node& n);

  // max_pool2d, avg_pool2d, adaptive_avg_pool2d (lower_pool.cc): a reduction over each output
  // point's window; false when the reference kernel must report an error (divisor_override 0).
  Expected<bool> pool(const Node& n);

  // chunk and split: each result is a slice of the input along `dim`, read through its index.
  Status split_views(const Node& n);

  // cat: one kernel per input, each storing its input into its slice of the result.
  Status cat(const Node& n);
  // stack: cat of the operands unsqueezed at `dim` (a kernel per operand).
  Status stack(const Node& n);
  // A kernel storing `v` into buffer `out` at v's coordinates with coordinate `dim` shifted by
  // `at` (cat), or with `at` inserted as coordinate `dim` (stack: new_dim).
  void place_kernel(const Value* v, int out, int dim, int64_t at, bool new_dim);
  // as_strided: a view of the buffer its operand's affine map reads (a copy when the map
  // needs div/mod); a geometry past that buffer is an error naming the node.
  Status as_strided(const Node& n);

  // ---- Remaps (lower_remap.cc): elements of an operand at computed coordinates ----
  // flip, roll, repeat, clone, contiguous, select_scatter: pending like elementwise values;
  // false where the reference kernel reports an error (bad dims, a bad select index).
  static bool lowers_as_remap(const Node& n);
  // The body of remap `n` at result coordinates `c`.
  int emit_remap(BodyBuilder& b, const Node& n, const std::vector<IndexExpr>& c);
  int emit_pad(BodyBuilder& b, const Node& n, const std::vector<IndexExpr>& c);
  int emit_slice_scatter(BodyBuilder& b, const Node& n, const std::vector<IndexExpr>& c);
  // A bool body value: lo <= e < hi (comparisons of `index e`, which the bounds proof reads),
  // leaving out a bound the kernel's loops keep; -1 when the loops keep both.
  int masked_range(BodyBuilder& b, const IndexExpr& e, int64_t lo, int64_t hi);
  // `v` at `c` as `dt` where `mask` (and any mask already set) holds, else `other`: its loads
  // are masked (a value held in a buffer is one masked load with `other` as its value).
  int masked_value_at(BodyBuilder& b, const Value* v, const std::vector<IndexExpr>& c, int mask, DType dt,
                      const Scalar& other);

  // ---- Indirect loads (lower_gather.cc): gather, index_select, embedding, index ----
  // Whether `n` lowers to loads through checked indices (false: an extern kernel, where the
  // reference kernel must report a static error: ranks it rejects, an index dtype).
  static bool lowers_as_gather(const Node& n);
  // Records n's source (indexed_source) and leaves its result pending; index_select and
  // embedding with an empty result but indices get a kernel of the checks alone.
  Status gather(const Node& n);
  // The body of gather-like `n` at result coordinates `c`.
  int emit_gather(BodyBuilder& b, const Node& n, const std::vector<IndexExpr>& c);
  // `v` in a buffer whose map is affine in `dims` (realized, or copied when not).
  Access indexed_source(const Value* v, const std::vector<int>& dims);
  // A kernel of the checks alone, over every element of `index` (for ops whose reference
  // kernel checks every index first, where the op's own kernel has no point).
  void checks_kernel(const Node& n, const Value* index, int64_t size, bool wrap, int dim);
  // Index tensor `index` at `at`, as i64, checked against `size` (an `indirect` op).
  int checked_index(BodyBuilder& b, const Node& n, const Value* index, const std::vector<IndexExpr>& at, int64_t size,
                    bool wrap, int dim);
  // `src` at `coords`, with each dim d of `picked` (d, checked value) read at that value.
  int load_indexed(BodyBuilder& b, const Access& src, DType dt, std::vector<IndexExpr> coords,
                   const std::vector<std::pair<int, int>>& picked);
  // Advanced indexing at result coordinates `c` (advanced_index_sizes): `coords` gets self's
  // coordinates of the dims not indexed, `picked` (dim, checked value) those of the indexed
  // ones, each index tensor read at its broadcast coordinates and checked with wrap.
  void advanced_coords(BodyBuilder& b, const Node& n, const std::vector<int64_t>& self,
                       const std::vector<const Value*>& idx, const std::vector<IndexExpr>& c,
                       std::vector<IndexExpr>& coords, std::vector<std::pair<int, int>>& picked);

  // ---- Index stores (lower_scatter.cc): scatter, scatter_add, index_put, index_add, as_strided_scatter ----
  // Whether `n` lowers to a copy of its destination and a kernel storing through it (false
  // where the reference kernel reports a static error: dtypes, shapes; and for a 0-d index_add).
  static bool lowers_as_scatter(const Node& n);
  Status scatter(const Node& n);
  // index_put_: index_put's store kernel into operand 0's buffer (no copy) when operand 0 is
  // that whole buffer and the kernel reads it only at the element it stores; false otherwise
  // (an extern kernel).
  Expected<bool> index_put_in_place(const Node& n);
  // The kernel storing scatter-like `n`'s elements into buffer `out`, laid out as n's result.
  LoopKernel store_kernel(const Node& n, int out);
  // A kernel copying n's self (inlined) into n's result buffer, which it returns.
  int copy_destination(const Node& n);
  // The value a scatter-like `n` stores at point `c` of its store kernel; `at` gets the result's
  // coordinates of the element, `picked` (dim, checked index) the indexed ones.
  int scatter_element(BodyBuilder& b, const Node& n, const std::vector<IndexExpr>& c, std::vector<IndexExpr>& at,
                      std::vector<std::pair<int, int>>& picked);

  // Whether pending `v`'s inlined body checks indices (a reader must compute all its points).
  bool checks_indices(const Value* v) const;

  // A buffer operand for an extern kernel: the value's own layout when it is strided, else a copy.
  ExternOperand extern_operand(const Value* v);

  // ---- Control flow (lower_control_flow.cc, loop_control.h) ----
  // cond: one cond kernel whose regions are the branches, each lowered as a loop program of its
  // own (subprogram) that reads the operands' buffers and writes the results' buffers.
  Status cond(const Node& n);
  // while_loop: carried buffers filled from the operands, then one while kernel whose regions
  // are cond_fn (writing the predicate) and body_fn (writing the next buffers) as subprograms.
  Status while_loop(const Node& n);
  // Subgraph `index` of `n` (or `body`, a copy of it) lowered by its own Lowering with this one's
  // options, its input buffers replaced by `inputs`, its output buffers by `outputs` (of the
  // same types, contiguous) and its temporaries added to this program; returns its kernels.
  Expected<std::vector<LoopKernel>> subprogram(const Node& n, int index, const Graph& body,
                                               const std::vector<int>& inputs, const std::vector<int>& outputs);
  // Refuses (naming `n`) shapes a loop program cannot hold: cond branches that disagree on a
  // result's shape, a carried value whose shape changes across iterations, symbolic results.
  Status check_control_shapes(const Node& n);
  // A buffer holding value `v` contiguously from its element 0: v's own, or a copy.
  int contiguous_buffer(const Value* v);
  // Whether an in-place node of the graph writes the storage `v` shares (found by following
  // views and in-place results back to the value that owns it).
  bool written_in_place(const Value* v) const;
  int new_temp(DType dt, const std::vector<int64_t>& sizes);

  // ---- In-place writes (copy_, in-place ops) ----
  // Before a kernel writes buffer `buf` in place: pending values that read `buf` and that a
  // later node reads get their buffers now, so that they hold what they read before the write
  // (the graph runs in order: readers before an in-place op see the old values, readers after
  // it the new ones).
  void realize_readers_before_write(int buf, const Node& writer);

  // copy_(dst, src) where dst is a whole buffer (a program input: functionalization's
  // write-back of a mutated input; or a temporary): src is computed straight into dst's buffer,
  // with no temporary and no copy kernel; for an input, the caller's tensor is updated as the
  // graph's copy_ updates it (loop_ir.h). copy_'s result is dst's buffer. When the kernel would
  // read dst at other points than the one it writes (a transposed src), or dst is a view, it
  // returns false and copy_ stays an extern kernel.
  Expected<bool> write_back(const Node& n);

  // Whether pending `v`'s inlined body loads from buffer `buf`.
  bool pending_reads(const Value* v, int buf) const;

  Status extern_kernel(const Node& n);

  const Graph& g_;
  const LowerOptions& options_;
  LoopProgram p_;
  std::map<const Value*, Access> access_;        // values held in buffers (or views of them)
  std::map<const Value*, const Node*> pending_;  // elementwise values not stored yet
  std::map<const Value*, int> pending_depth_;    // the longest chain of pending nodes ending at each
  std::set<const Value*> emitted_;               // pending values some kernel computed
  std::map<const Value*, const Node*> body_of_;  // values of inlined map and scan bodies -> their op
  std::map<const Node*, IndexExpr> body_index_;  // while a body is inlined: the mapped or scan coordinate
  std::map<const Value*, int> readers_;          // nodes that read each value
  std::map<const Node*, int> position_;          // each node's place in graph order
  std::map<const Value*, int> last_read_;        // the last position reading each value (outputs: past the end)
  std::map<const Node*, Access> sources_;        // gather-like nodes: the buffer they index
  std::set<const Value*> outputs_;
  std::set<const Node*> lowered_ahead_;  // nodes an earlier node's kernel computed
  int temps_ = 0;
};

}  // namespace kiln::lowering
