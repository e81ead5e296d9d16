// Lowering of max_pool2d, avg_pool2d and adaptive_avg_pool2d to reduction kernels over windows,
// as Inductor lowers them: the outer loops run over the output ([N,] C, OH, OW), the reduce
// loops over a window's points (kh, kw), each output point reducing its window. A window point
// outside the input (padding, ceil_mode's last window, adaptive bins shorter than the longest)
// is masked: its load reads a point inside (the coordinate mod the extent, so every access is
// provably in range) and `where` replaces the value by the fold's identity (-inf, INT64_MIN or
// 0), as the reference kernels skip it. avg_pool2d divides by the window's count as the
// reference kernel computes it (count_include_pad, divisor_override), a constant where every
// window has the same, else index arithmetic on the output coordinates.
#include "lower/lowering.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "ops/op_call.h"
#include "ops/type_rules_util.h"

namespace kiln::lowering {

namespace {

// One spatial dim of the windows: output extent `out`, input extent `size`, and the input
// coordinate of window point i of output point o: stride * o - pad + dilation * i, or an
// adaptive bin's start + i.
struct WindowDim {
  int64_t out = 0, size = 0, window = 0;  // window: the reduce loop's extent
  int64_t stride = 1, pad = 0, dilation = 1;
  bool adaptive = false;

  // The adaptive bin of output point o: [floor(o * size / out), ceil((o + 1) * size / out)).
  int64_t bin_start(int64_t o) const { return o * size / out; }
  int64_t bin_end(int64_t o) const { return ((o + 1) * size + out - 1) / out; }
  IndexExpr start(const IndexExpr& o) const {
    if (adaptive) return IndexExpr::floor_div(o.scaled(size), out);
    return o.scaled(stride).plus(IndexExpr::constant_of(-pad));
  }
  IndexExpr coord(const IndexExpr& o, const IndexExpr& i) const { return start(o).plus(i.scaled(dilation)); }
  // Whether some point of some window lies outside the input (or past its bin).
  bool masked() const {
    if (out == 0) return false;
    if (adaptive) {
      for (int64_t o = 0; o < out; ++o)
        if (bin_end(o) - bin_start(o) != window) return true;
      return false;
    }
    return pad > 0 || stride * (out - 1) + dilation * (window - 1) - pad > size - 1;
  }
};

bool is_integer_dtype(DType t) { return !is_floating(t) && t != DType::Bool; }

// The count avg_pool2d and adaptive_avg_pool2d divide a window's sum by, as the reference
// kernels compute it: divisor_override; else, per dim, an adaptive bin's length, or the
// window's length clipped to the padded input (count_include_pad) or to the input (then at
// least 1 overall: an empty window's sum, 0, stays 0). A constant of dtype `r` when every
// output point has the same, else i64 values of the output coordinates.
int window_count(BodyBuilder& b, const WindowDim (&dims)[2], const std::vector<IndexExpr>& out_coords, DType r,
                 std::optional<int64_t> divisor, bool count_pad) {
  if (divisor) return exact_constant(b, Scalar(*divisor), r);
  const size_t rank = out_coords.size();
  int64_t uniform = 1;
  bool same = true;
  for (const WindowDim& d : dims) {
    std::function<int64_t(int64_t)> len = [&](int64_t o) {
      if (d.adaptive) return d.bin_end(o) - d.bin_start(o);
      const int64_t h0 = d.stride * o - d.pad;
      if (count_pad) return std::min(h0 + d.window, d.size + d.pad) - h0;
      return std::min(h0 + d.window, d.size) - std::max<int64_t>(h0, 0);
    };
    for (int64_t o = 1; o < d.out; ++o) same = same && len(o) == len(0);
    uniform *= d.out > 0 ? len(0) : 1;
  }
  if (same) return exact_constant(b, Scalar(uniform), r);
  int count = -1;
  for (int a = 0; a < 2; ++a) {
    const WindowDim& d = dims[a];
    const IndexExpr o = out_coords[rank - 2 + static_cast<size_t>(a)];
    const IndexExpr start = d.start(o);
    int len;
    if (d.adaptive) {
      const IndexExpr end =
          IndexExpr::floor_div(o.scaled(d.size).plus(IndexExpr::constant_of(d.size + d.out - 1)), d.out);
      len = b.index(end.plus(start.scaled(-1)));
    } else {
      const int h0 = b.index(start), h1 = b.index(start.plus(IndexExpr::constant_of(d.window)));
      const int hi = b.compute(OpKind::Minimum, {h1, b.constant(Scalar(d.size + (count_pad ? d.pad : 0)), DType::I64)},
                               DType::I64);
      const int lo =
          count_pad ? h0 : b.compute(OpKind::Maximum, {h0, b.constant(Scalar(int64_t{0}), DType::I64)}, DType::I64);
      len = b.compute(OpKind::Sub, {hi, lo}, DType::I64);
    }
    count = count < 0 ? len : b.compute(OpKind::Mul, {count, len}, DType::I64);
  }
  if (!count_pad && !dims[0].adaptive)
    count = b.compute(OpKind::Maximum, {count, b.constant(Scalar(int64_t{1}), DType::I64)}, DType::I64);
  return count;
}

}  // namespace

Expected<bool> Lowering::pool(const Node& n) {
  if (!n.operand(0).is_value()) return false;
  const Value* input = n.operand(0).value;
  const std::vector<int64_t> in_sizes = sizes_of(input), out_sizes = sizes_of(n.result());
  const int rank = static_cast<int>(in_sizes.size());
  const OpCallBase call(n.op(), n.attrs());
  const DType in_dt = input->type().dtype, r = n.result()->type().dtype;
  WindowDim dims[2];
  for (int a = 0; a < 2; ++a) {
    dims[a].out = out_sizes[static_cast<size_t>(rank - 2 + a)];
    dims[a].size = in_sizes[static_cast<size_t>(rank - 2 + a)];
  }
  std::optional<int64_t> divisor;
  bool count_pad = false;
  if (n.op() == OpKind::AdaptiveAvgPool2d) {
    for (WindowDim& d : dims) {
      d.adaptive = true;
      for (int64_t o = 0; o < d.out; ++o) d.window = std::max(d.window, d.bin_end(o) - d.bin_start(o));
    }
  } else {
    KILN_ASSIGN_OR_RETURN(std::vector<int64_t> k, pair_attr(call, "kernel_size", {}));
    KILN_ASSIGN_OR_RETURN(std::vector<int64_t> s, pair_attr(call, "stride", k));
    KILN_ASSIGN_OR_RETURN(std::vector<int64_t> p, pair_attr(call, "padding", {0, 0}));
    std::vector<int64_t> dil = {1, 1};
    if (n.op() == OpKind::MaxPool2d) {
      KILN_ASSIGN_OR_RETURN(dil, pair_attr(call, "dilation", {1, 1}));
    }
    for (int a = 0; a < 2; ++a) {
      dims[a].window = k[static_cast<size_t>(a)];
      dims[a].stride = s[static_cast<size_t>(a)];
      dims[a].pad = p[static_cast<size_t>(a)];
      dims[a].dilation = dil[static_cast<size_t>(a)];
    }
    if (n.op() == OpKind::AvgPool2d) {
      divisor = call.attr_opt_int("divisor_override");
      if (divisor && *divisor == 0) return false;  // the reference kernel reports it
      count_pad = call.attr_bool("count_include_pad");
    }
  }
  for (const WindowDim& d : dims)
    if (d.masked() && d.size == 0) return false;  // no point to read instead (never a valid shape)

  prepare(input, numel_of(out_sizes) * dims[0].window * dims[1].window);
  LoopKernel k = make_kernel(KernelKind::Reduction);
  k.loops = out_sizes;
  k.loops.push_back(dims[0].window);
  k.loops.push_back(dims[1].window);
  k.num_reduce_loops = 2;
  const std::vector<IndexExpr> out_coords = loop_coords(out_sizes);
  BodyBuilder b{k};
  std::vector<IndexExpr> in_coords(out_coords.begin(), out_coords.end() - 2);
  int valid = -1;  // bool: the window point lies in the input (-1: every point does)
  auto both = [&](int v) { valid = valid < 0 ? v : b.compute(OpKind::LogicalAnd, {valid, v}, DType::Bool); };
  for (int a = 0; a < 2; ++a) {
    const WindowDim& d = dims[a];
    const IndexExpr o = out_coords[static_cast<size_t>(rank - 2 + a)];
    const IndexExpr i = d.window == 1 ? IndexExpr() : IndexExpr::var(rank + a);
    const IndexExpr c = d.coord(o, i);
    if (!d.masked()) {
      in_coords.push_back(c);
      continue;
    }
    in_coords.push_back(IndexExpr::mod(c, d.size));
    if (d.adaptive) {  // i < the bin's length
      const IndexExpr end =
          IndexExpr::floor_div(o.scaled(d.size).plus(IndexExpr::constant_of(d.size + d.out - 1)), d.out);
      both(b.compute(OpKind::Lt, {b.index(c), b.index(end)}, DType::Bool));
      continue;
    }
    const int at = b.index(c);
    both(b.compute(OpKind::Ge, {at, b.constant(Scalar(int64_t{0}), DType::I64)}, DType::Bool));
    both(b.compute(OpKind::Lt, {at, b.constant(Scalar(d.size), DType::I64)}, DType::Bool));
  }
  const bool max = n.op() == OpKind::MaxPool2d;
  // The fold's type: max of integers in i64 from INT64_MIN (as the reference kernel, which then
  // wraps to the dtype), of floats in their dtype from -inf; the sums in the result dtype.
  const DType fold = max ? (is_integer_dtype(in_dt) ? DType::I64 : in_dt) : r;
  int v = b.cast(value_at(b, input, in_coords), fold);
  if (valid >= 0) {
    const Scalar identity = !max                 ? Scalar(0.0)
                            : fold == DType::I64 ? Scalar(std::numeric_limits<int64_t>::min())
                                                 : Scalar(-std::numeric_limits<double>::infinity());
    v = b.compute(OpKind::Where, {valid, v, b.constant(identity, fold)}, fold);
  }
  BodyOp rop;
  rop.kind = BodyOp::Kind::Reduce;
  rop.reduce = max ? ReduceKind::Max : ReduceKind::Sum;
  rop.args = {v};
  rop.dtype = fold;
  v = b.add(std::move(rop));
  k.reduce_op = v;
  if (!max) v = b.compute(OpKind::Div, {v, window_count(b, dims, out_coords, r, divisor, count_pad)}, r);
  const int out = result_buffer(n.result(), out_sizes);
  b.store(out, strided(buffer(out).strides, out_coords), b.cast(v, r));
  append(std::move(k));
  return true;
}

}  // namespace kiln::lowering
