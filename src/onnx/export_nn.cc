// Exporters of the nn ops: softmax and log_softmax, the normalizations, the losses, conv2d,
// the 2-D poolings, dropout and scaled_dot_product_attention. Where ONNX's op differs from
// PyTorch's semantics the exporter writes PyTorch's out of smaller ops: batch_norm in
// training mode normalizes with batch statistics (ReduceMean), nll_loss/cross_entropy follow
// ATen's divisors (weights, ignore_index, label smoothing), max_pool2d propagates NaN and
// pads with -inf before pooling (so ceil_mode is PyTorch's, whose last window must start
// inside the input), avg_pool2d divides window sums by ATen's divisors, adaptive_avg_pool2d
// is two averaging matmuls, upsample_bilinear2d is Resize (linear, half_pixel or
// align_corners), and attention gives fully masked rows zero weights.
#include <cmath>
#include <limits>

#include "onnx/export_util.h"
#include "ops/type_rules_util.h"

namespace kiln::onnx {

namespace {

using Names = std::vector<std::string>;

constexpr double kInf = std::numeric_limits<double>::infinity();

std::vector<int64_t> range(int64_t from, int64_t to) {
  std::vector<int64_t> r;
  for (int64_t i = from; i < to; ++i) r.push_back(i);
  return r;
}

// The sum of every element of x (rank `rank`) as a 0-d value.
std::string sum_all(ExportContext& cx, const std::string& x, int rank) {
  return rank == 0 ? x : reduce_op(cx, "ReduceSum", x, range(0, rank), false);
}

// The element count of x as a 0-d value of dtype d.
std::string numel(ExportContext& cx, const std::string& x, DType d) {
  return cx.b.cast(cx.b.op("Size", {x}), DType::I64, d);
}

// Dim `dim` of operand i as a 0-d value of dtype d (a constant when static).
std::string dim_value(ExportContext& cx, int i, int dim, DType d) {
  const Dim& s = cx.type(i).shape[dim];
  if (s.is_static()) return cx.b.scalar(static_cast<double>(s.value()), d);
  const std::string shape = cx.b.op("Shape", {cx.inputs[static_cast<size_t>(i)]});
  return cx.b.cast(cx.b.op("Gather", {shape, cx.b.int_scalar(dim)}, {{"axis", int64_t{0}}}), DType::I64, d);
}

// A per-channel vector [C] shaped to broadcast against [N, C, d1, ...] of rank `rank`.
std::string per_channel(OnnxBuilder& b, const std::string& v, int rank) {
  if (rank <= 2) return v;
  std::vector<int64_t> shape{-1};
  shape.resize(static_cast<size_t>(rank - 1), 1);
  return b.op("Reshape", {v, b.ints(shape)});
}

// ---- softmax ----

// softmax, log_softmax: the input cast to the result dtype first (PyTorch's `dtype`); a 0-d
// input goes through [1].
OpExporter softmax(const std::string& op) {
  return [op](ExportContext& cx) -> Expected<Names> {
    const DType out = cx.result_type().dtype, c = compute_dtype(out);
    std::string x = cx.operand_as(0, c);
    const int rank = cx.rank(0);
    if (rank == 0) x = cx.b.op("Reshape", {x, cx.b.ints({1})});
    const int64_t dim = cx.call.attr_int("dim");
    const int64_t axis = rank == 0 ? 0 : (dim < 0 ? dim + rank : dim);
    std::string y = cx.b.op(op, {x}, {{"axis", axis}});
    if (rank == 0) y = cx.b.op("Reshape", {y, cx.b.ints({})});
    return Names{cx.b.cast(y, c, out)};
  };
}

// ---- normalizations ----

// (x - mean) / sqrt(var + eps) over `axes` (biased variance), kept for broadcasting.
std::string normalize(ExportContext& cx, const std::string& x, const std::vector<int64_t>& axes, double eps, DType c) {
  const std::string mean = reduce_op(cx, "ReduceMean", x, axes, true);
  const std::string dev = cx.b.op("Sub", {x, mean});
  const std::string var = reduce_op(cx, "ReduceMean", cx.b.op("Mul", {dev, dev}), axes, true);
  return cx.b.op("Div", {dev, cx.b.op("Sqrt", {cx.b.op("Add", {var, cx.b.scalar(eps, c)})})});
}

// x * weight + bias for optional operands wi, bi (already shaped by `shape`).
std::string affine(ExportContext& cx, std::string y, int wi, int bi, DType c,
                   const std::function<std::string(const std::string&)>& shape) {
  if (!cx.is_none(wi)) y = cx.b.op("Mul", {y, shape(cx.operand_as(wi, c))});
  if (!cx.is_none(bi)) y = cx.b.op("Add", {y, shape(cx.operand_as(bi, c))});
  return y;
}

// ONNX LayerNormalization (opset 17) over the trailing normalized_shape dims; its scale is
// required, so a missing weight is ones.
Expected<Names> layer_norm(ExportContext& cx) {
  const DType out = cx.result_type().dtype, c = compute_dtype(out);
  const std::vector<int64_t>& ns = cx.call.attr_ints("normalized_shape");
  const int64_t axis = cx.rank(0) - static_cast<int64_t>(ns.size());
  const std::string w = cx.is_none(1) ? cx.b.constant(Tensor::full(ns, Scalar(int64_t{1}), c)) : cx.operand_as(1, c);
  Names in{cx.operand_as(0, c), w};
  if (!cx.is_none(2)) in.push_back(cx.operand_as(2, c));
  const std::string y = cx.b.op("LayerNormalization", in, {{"axis", axis}, {"epsilon", cx.call.attr_float("eps")}});
  return Names{cx.b.cast(y, c, out)};
}

// x / sqrt(mean(x^2) + eps) * weight; eps defaults to the input dtype's epsilon (PyTorch).
Expected<Names> rms_norm(ExportContext& cx) {
  const DType out = cx.result_type().dtype, c = compute_dtype(out);
  const double eps = cx.call.attr_opt_float("eps").value_or(dtype_epsilon(cx.dtype(0)));
  const int64_t n = static_cast<int64_t>(cx.call.attr_ints("normalized_shape").size());
  const std::string x = cx.operand_as(0, c);
  const std::string ms = reduce_op(cx, "ReduceMean", cx.b.op("Mul", {x, x}), range(cx.rank(0) - n, cx.rank(0)), true);
  std::string y = cx.b.op("Div", {x, cx.b.op("Sqrt", {cx.b.op("Add", {ms, cx.b.scalar(eps, c)})})});
  if (!cx.is_none(1)) y = cx.b.op("Mul", {y, cx.operand_as(1, c)});
  return Names{cx.b.cast(y, c, out)};
}

// training=true normalizes with the batch's statistics (over every dim but 1, biased
// variance) and, as kiln's op returns only the output, updates no running stats;
// training=false uses running_mean and running_var.
Expected<Names> batch_norm(ExportContext& cx) {
  const DType out = cx.result_type().dtype, c = compute_dtype(out);
  const int rank = cx.rank(0);
  const double eps = cx.call.attr_float("eps");
  const std::string x = cx.operand_as(0, c);
  auto shape = [&](const std::string& v) { return per_channel(cx.b, v, rank); };
  std::string y;
  if (cx.call.attr_bool("training")) {
    std::vector<int64_t> axes{0};
    for (int64_t i = 2; i < rank; ++i) axes.push_back(i);
    y = normalize(cx, x, axes, eps, c);
  } else {
    if (cx.is_none(3) || cx.is_none(4))
      return make_error("batch_norm: running_mean and running_var must be defined in evaluation mode");
    const std::string var = cx.b.op("Add", {shape(cx.operand_as(4, c)), cx.b.scalar(eps, c)});
    y = cx.b.op("Div", {cx.b.op("Sub", {x, shape(cx.operand_as(3, c))}), cx.b.op("Sqrt", {var})});
  }
  return Names{cx.b.cast(affine(cx, y, 1, 2, c, shape), c, out)};
}

// x [N, C, ...] viewed as [N, G, -1], normalized over the last dim, viewed back.
Expected<Names> group_norm(ExportContext& cx) {
  const DType out = cx.result_type().dtype, c = compute_dtype(out);
  const int rank = cx.rank(0);
  const std::string x = cx.operand_as(0, c);
  // [N, G, C/G * spatial], the group size written out: -1 beside a batch of 0 is ambiguous,
  // which ONNX's shape inference refuses.
  const int64_t groups = cx.call.attr_int("num_groups");
  const std::string dims = cx.b.op("Shape", {x});
  const std::string batch = cx.b.op("Slice", {dims, cx.b.ints({0}), cx.b.ints({1})});
  const std::string per_item =
      reduce_op(cx, "ReduceProd", cx.b.op("Slice", {dims, cx.b.ints({1}), cx.b.ints({rank})}), {0}, true);
  const std::string group_size = cx.b.op("Div", {per_item, cx.b.ints({groups})});
  const std::string grouped_shape = cx.b.op("Concat", {batch, cx.b.ints({groups}), group_size}, {{"axis", int64_t{0}}});
  const std::string grouped = cx.b.op("Reshape", {x, grouped_shape});
  const std::string normed = normalize(cx, grouped, {2}, cx.call.attr_float("eps"), c);
  const std::string y = cx.b.op("Reshape", {normed, cx.b.op("Shape", {x})});
  auto shape = [&](const std::string& v) { return per_channel(cx.b, v, rank); };
  return Names{cx.b.cast(affine(cx, y, 1, 2, c, shape), c, out)};
}

// ---- losses ----

// The per-item negative log-likelihood of class-index targets, with ATen's weighting.
struct NllTerms {
  std::string nll;     // -w[t] * logp[t], 0 where ignored; the target's shape
  std::string weight;  // w[t], 0 where ignored
  std::string keep;    // target != ignore_index (bool)
  int rank = 0;        // of the target
  int class_axis = 0;
};

NllTerms nll_terms(ExportContext& cx, const std::string& logp, DType c) {
  OnnxBuilder& b = cx.b;
  NllTerms t;
  t.class_axis = cx.rank(0) == 1 ? 0 : 1;
  t.rank = cx.rank(1);
  const std::string target = cx.operand_as(1, DType::I64);
  t.keep = b.op("Not", {b.op("Equal", {target, b.int_scalar(cx.call.attr_int("ignore_index"))})});
  // An ignored target may lie outside [0, C): gather class 0 there and zero its weight.
  const std::string safe = where(b, t.keep, target, b.int_scalar(0));
  const std::string axis = b.ints({t.class_axis});
  const std::string picked =
      b.op("Squeeze",
           {b.op("GatherElements", {logp, b.op("Unsqueeze", {safe, axis})}, {{"axis", int64_t{t.class_axis}}}), axis});
  const std::string w =
      cx.is_none(2) ? b.scalar(1, c) : b.op("Gather", {cx.operand_as(2, c), safe}, {{"axis", int64_t{0}}});
  t.weight = where(b, t.keep, w, b.scalar(0, c));
  t.nll = b.op("Neg", {b.op("Mul", {picked, t.weight})});
  return t;
}

// reduction none: the items; sum: their sum; mean: their sum / `total`.
std::string reduce_loss(ExportContext& cx, const std::string& items, int rank, const std::string& total) {
  const std::string& r = cx.call.attr_str("reduction");
  if (r == "none") return items;
  const std::string s = sum_all(cx, items, rank);
  return r == "sum" ? s : cx.b.op("Div", {s, total});
}

Expected<Names> nll_loss(ExportContext& cx) {
  const DType out = cx.result_type().dtype, c = compute_dtype(out);
  const NllTerms t = nll_terms(cx, cx.operand_as(0, c), c);
  const std::string y = reduce_loss(cx, t.nll, t.rank, sum_all(cx, t.weight, t.rank));
  return Names{cx.b.cast(y, c, out)};
}

// Class weights shaped to broadcast along the class axis of the input.
std::string class_weights(ExportContext& cx, DType c) {
  const std::string w = cx.operand_as(2, c);
  return cx.rank(0) == 1 ? w : per_channel(cx.b, w, cx.rank(0));
}

// Probability targets: -sum_c(w_c * logp_c * p_c) per item (p smoothed toward uniform); mean
// divides by the item count.
std::string cross_entropy_probs(ExportContext& cx, const std::string& logp, int class_axis, double ls, DType c) {
  OnnxBuilder& b = cx.b;
  std::string p = cx.operand_as(1, c);
  const std::string n_classes = dim_value(cx, 0, class_axis, c);
  if (ls > 0) p = b.op("Add", {b.op("Mul", {p, b.scalar(1 - ls, c)}), b.op("Div", {b.scalar(ls, c), n_classes})});
  std::string term = b.op("Mul", {logp, p});
  if (!cx.is_none(2)) term = b.op("Mul", {term, class_weights(cx, c)});
  const std::string items = b.op("Neg", {reduce_op(cx, "ReduceSum", term, {class_axis}, false)});
  const int rank = cx.rank(0) - 1;
  return reduce_loss(cx, items, rank, numel(cx, items, c));
}

// Class-index targets: (1 - ls) * nll + ls / C * smooth, where smooth = -sum_c(w_c * logp_c),
// each reduced with ATen's divisor (the weight total; the unweighted smooth term the count
// of kept items).
Expected<Names> cross_entropy(ExportContext& cx) {
  OnnxBuilder& b = cx.b;
  const DType out = cx.result_type().dtype, c = compute_dtype(out);
  const int class_axis = cx.rank(0) == 1 ? 0 : 1;
  const double ls = cx.call.attr_float("label_smoothing");
  const std::string logp = b.op("LogSoftmax", {cx.operand_as(0, c)}, {{"axis", int64_t{class_axis}}});
  if (is_floating(cx.dtype(1))) return Names{b.cast(cross_entropy_probs(cx, logp, class_axis, ls, c), c, out)};
  const NllTerms t = nll_terms(cx, logp, c);
  const std::string weight_total = sum_all(cx, t.weight, t.rank);
  std::string y = reduce_loss(cx, t.nll, t.rank, weight_total);
  if (ls > 0) {
    std::string term = logp;
    if (!cx.is_none(2)) term = b.op("Mul", {term, class_weights(cx, c)});
    std::string smooth = b.op("Neg", {reduce_op(cx, "ReduceSum", term, {class_axis}, false)});
    smooth = where(b, t.keep, smooth, b.scalar(0, c));
    const std::string kept = cx.is_none(2) ? sum_all(cx, b.cast(t.keep, DType::Bool, c), t.rank) : weight_total;
    const std::string s = reduce_loss(cx, smooth, t.rank, kept);
    const std::string scale = b.op("Div", {b.scalar(ls, c), dim_value(cx, 0, class_axis, c)});
    y = b.op("Add", {b.op("Mul", {y, b.scalar(1 - ls, c)}), b.op("Mul", {s, scale})});
  }
  return Names{b.cast(y, c, out)};
}

Expected<Names> mse_loss(ExportContext& cx) {
  const DType out = cx.result_type().dtype, c = compute_dtype(out);
  const std::string d = cx.b.op("Sub", {cx.operand_as(0, c), cx.operand_as(1, c)});
  const std::string sq = cx.b.op("Mul", {d, d});
  const int rank = std::max(cx.rank(0), cx.rank(1));
  return Names{cx.b.cast(reduce_loss(cx, sq, rank, numel(cx, sq, c)), c, out)};
}

// ---- convolution and pooling ----

// An unbatched [C, H, W] operand gets a batch dim for ONNX's Conv and pools, dropped after.
std::string batched(OnnxBuilder& b, const std::string& x, int rank) {
  return rank == 3 ? b.op("Unsqueeze", {x, b.ints({0})}) : x;
}
std::string unbatched(OnnxBuilder& b, const std::string& y, int rank) {
  return rank == 3 ? b.op("Squeeze", {y, b.ints({0})}) : y;
}

// conv2d: ONNX Conv, which ONNX Runtime's CPU provider has for f32 only (other dtypes go
// through f32).
Expected<Names> conv2d(ExportContext& cx) {
  const DType out = cx.result_type().dtype, c = DType::F32;
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> stride, pair_attr(cx.call, "stride", {1, 1}));
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> pad, pair_attr(cx.call, "padding", {0, 0}));
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> dil, pair_attr(cx.call, "dilation", {1, 1}));
  const int rank = cx.rank(0);
  Names in{batched(cx.b, cx.operand_as(0, c), rank), cx.operand_as(1, c)};
  if (!cx.is_none(2)) in.push_back(cx.operand_as(2, c));
  const std::string y = cx.b.op("Conv", in,
                                {{"strides", stride},
                                 {"pads", std::vector<int64_t>{pad[0], pad[1], pad[0], pad[1]}},
                                 {"dilations", dil},
                                 {"group", cx.call.attr_int("groups")}});
  return Names{cx.b.cast(unbatched(cx.b, y, rank), c, out)};
}

struct PoolWindow {
  std::vector<int64_t> k, stride, pad, dil, extra;  // extra: right padding ceil_mode's last window needs
};

// The window attributes. With ceil_mode, the last window may run past the right padding
// (PyTorch's output size keeps it when it starts inside the input or left padding): the
// input is padded further on the right, and ONNX's floor-mode output size then agrees.
Expected<PoolWindow> pool_window(ExportContext& cx, bool is_max) {
  PoolWindow w;
  KILN_ASSIGN_OR_RETURN(w.k, pair_attr(cx.call, "kernel_size", {}));
  KILN_ASSIGN_OR_RETURN(w.stride, pair_attr(cx.call, "stride", w.k));
  KILN_ASSIGN_OR_RETURN(w.pad, pair_attr(cx.call, "padding", {0, 0}));
  w.dil = {1, 1};
  if (is_max) {
    KILN_ASSIGN_OR_RETURN(w.dil, pair_attr(cx.call, "dilation", {1, 1}));
  }
  w.extra = {0, 0};
  const Shape& in = cx.type(0).shape;
  const Shape& res = cx.result_type().shape;
  for (int i = 0; i < 2; ++i) {
    const Dim& h = in[in.rank() - 2 + i];
    const Dim& o = res[res.rank() - 2 + i];
    if (!h.is_static() || !o.is_static()) continue;  // kiln allows symbolic dims without ceil_mode only
    const int64_t span = (o.value() - 1) * w.stride[i] + (w.k[i] - 1) * w.dil[i] + 1;
    w.extra[i] = std::max<int64_t>(0, span - (h.value() + 2 * w.pad[i]));
  }
  return w;
}

// x [N, C, H, W] padded with `value` by the window's padding (and ceil_mode's extra).
std::string pad_input(ExportContext& cx, const std::string& x, const PoolWindow& w, const std::string& value) {
  if (w.pad[0] == 0 && w.pad[1] == 0 && w.extra[0] == 0 && w.extra[1] == 0) return x;
  const std::vector<int64_t> pads{0, 0, w.pad[0], w.pad[1], 0, 0, w.pad[0] + w.extra[0], w.pad[1] + w.extra[1]};
  return cx.b.op("Pad", {x, cx.b.ints(pads), value});
}

// max_pool2d: the input padded with -inf, then MaxPool without padding; a window holding a
// NaN gives NaN (ONNX Runtime's MaxPool skips NaN). Integers through f64 (exact to 2^53).
Expected<Names> max_pool2d(ExportContext& cx) {
  const DType out = cx.result_type().dtype;
  const DType c = is_floating(out) ? compute_dtype(out) : DType::F64;
  KILN_ASSIGN_OR_RETURN(PoolWindow w, pool_window(cx, true));
  const int rank = cx.rank(0);
  const std::string x = pad_input(cx, batched(cx.b, cx.operand_as(0, c), rank), w, cx.b.scalar(-kInf, c));
  const std::vector<OnnxAttr> attrs{{"kernel_shape", w.k}, {"strides", w.stride}, {"dilations", w.dil}};
  std::string y = cx.b.op("MaxPool", {x}, attrs);
  if (is_floating(cx.dtype(0))) {
    const std::string nan = cx.b.op("MaxPool", {cx.b.cast(is_nan(cx.b, x), DType::Bool, c)}, attrs);
    y = where(cx.b, cx.b.op("Greater", {nan, cx.b.scalar(0, c)}), cx.b.scalar(std::nan(""), c), y);
  }
  return Names{cx.b.cast(unbatched(cx.b, y, rank), c, out)};
}

// ATen's avg_pool2d divisor of each output position of one spatial plane: the window
// clipped to the padded input (count_include_pad) or to the input.
Tensor avg_divisors(int64_t h, int64_t wd, int64_t oh, int64_t ow, const PoolWindow& w, bool count_pad, DType c) {
  std::vector<double> div;
  for (int64_t i = 0; i < oh; ++i)
    for (int64_t j = 0; j < ow; ++j) {
      int64_t h0 = i * w.stride[0] - w.pad[0], w0 = j * w.stride[1] - w.pad[1];
      int64_t h1 = std::min(h0 + w.k[0], h + w.pad[0]), w1 = std::min(w0 + w.k[1], wd + w.pad[1]);
      const int64_t pool_size = (h1 - h0) * (w1 - w0);
      h0 = std::max<int64_t>(h0, 0), w0 = std::max<int64_t>(w0, 0);
      h1 = std::min(h1, h), w1 = std::min(w1, wd);
      const int64_t inside = h0 < h1 && w0 < w1 ? (h1 - h0) * (w1 - w0) : 1;  // an empty window sums to 0
      div.push_back(static_cast<double>(count_pad ? pool_size : inside));
    }
  return Tensor::from_doubles(div, {oh, ow}, c);
}

// avg_pool2d: window sums (AveragePool over the zero-padded input, times the window size)
// divided by divisor_override or ATen's divisors; with symbolic spatial dims (no ceil_mode
// then) ONNX's AveragePool with count_include_pad is the same thing.
Expected<Names> avg_pool2d(ExportContext& cx) {
  OnnxBuilder& b = cx.b;
  const DType out = cx.result_type().dtype, c = compute_dtype(out);
  KILN_ASSIGN_OR_RETURN(PoolWindow w, pool_window(cx, false));
  const int rank = cx.rank(0);
  const bool count_pad = cx.call.attr_bool("count_include_pad");
  const std::optional<int64_t> override_div = cx.call.attr_opt_int("divisor_override");
  const std::string x = batched(b, cx.operand_as(0, c), rank);
  const Shape& in = cx.type(0).shape;
  const Shape& res = cx.result_type().shape;
  const Dim &h = in[rank - 2], &wd = in[rank - 1], &oh = res[rank - 2], &ow = res[rank - 1];
  const bool is_static = h.is_static() && wd.is_static() && oh.is_static() && ow.is_static();
  std::string y;
  if (!is_static && !override_div) {
    y = b.op("AveragePool", {x},
             {{"kernel_shape", w.k},
              {"strides", w.stride},
              {"pads", std::vector<int64_t>{w.pad[0], w.pad[1], w.pad[0], w.pad[1]}},
              {"count_include_pad", int64_t{count_pad ? 1 : 0}}});
  } else {
    const std::string mean =
        b.op("AveragePool", {pad_input(cx, x, w, b.scalar(0, c))}, {{"kernel_shape", w.k}, {"strides", w.stride}});
    const std::string sum = b.op("Mul", {mean, b.scalar(static_cast<double>(w.k[0] * w.k[1]), c)});
    const std::string div =
        override_div ? b.scalar(static_cast<double>(*override_div), c)
                     : b.constant(avg_divisors(h.value(), wd.value(), oh.value(), ow.value(), w, count_pad, c));
    y = b.op("Div", {sum, div});
  }
  return Names{b.cast(unbatched(b, y, rank), c, out)};
}

// The [out, in] matrix averaging adaptive_avg_pool2d's bins [floor(o*in/out), ceil((o+1)*in/out)).
Tensor bin_matrix(int64_t in, int64_t out, DType c) {
  std::vector<double> m(static_cast<size_t>(in * out), 0.0);
  for (int64_t o = 0; o < out; ++o) {
    const int64_t lo = o * in / out, hi = ((o + 1) * in + out - 1) / out;
    for (int64_t i = lo; i < hi; ++i) m[static_cast<size_t>(o * in + i)] = 1.0 / static_cast<double>(hi - lo);
  }
  return Tensor::from_doubles(m, {out, in}, c);
}

// adaptive_avg_pool2d: rows @ x @ cols^T with averaging matrices (static spatial sizes).
Expected<Names> adaptive_avg_pool2d(ExportContext& cx) {
  OnnxBuilder& b = cx.b;
  const DType out = cx.result_type().dtype, c = compute_dtype(out);
  const int rank = cx.rank(0);
  const Shape& in = cx.type(0).shape;
  const Shape& res = cx.result_type().shape;
  for (int i = rank - 2; i < rank; ++i)
    if (!in[i].is_static() || !res[i].is_static())
      return make_error(
          "adaptive_avg_pool2d with symbolic spatial sizes has no ONNX mapping (its bins depend on them)");
  const std::string rows = b.constant(bin_matrix(in[rank - 2].value(), res[rank - 2].value(), c));
  const std::string cols = b.constant(bin_matrix(in[rank - 1].value(), res[rank - 1].value(), c));
  const std::string cols_t = b.op("Transpose", {cols}, {{"perm", std::vector<int64_t>{1, 0}}});
  const std::string y = b.op("MatMul", {b.op("MatMul", {rows, cx.operand_as(0, c)}), cols_t});
  return Names{b.cast(y, c, out)};
}

// upsample_bilinear2d: Resize in linear mode. PyTorch's source index (o + 0.5) * in / out - 0.5,
// clamped at 0, is ONNX's half_pixel (not pytorch_half_pixel, which maps a size-1 output to 0);
// align_corners is ONNX's align_corners, which reads the sizes alone (as PyTorch's). Without
// align_corners, a node given scales and no output_size passes its scales (PyTorch's source
// index then uses 1 / scale, as ONNX's); otherwise the sizes.
Expected<Names> upsample_bilinear2d(ExportContext& cx) {
  OnnxBuilder& b = cx.b;
  const DType out = cx.result_type().dtype, c = compute_dtype(out);
  const Shape& res = cx.result_type().shape;
  const bool corners = cx.call.attr_bool("align_corners");
  const std::optional<double> sh = cx.call.attr_opt_float("scales_h"), sw = cx.call.attr_opt_float("scales_w");
  const bool scaled = !corners && ((sh && *sh > 0) || (sw && *sw > 0));
  const bool by_scales = scaled && !cx.call.attr_opt_ints("output_size") && sh && sw;
  const std::vector<OnnxAttr> attrs = {
      {"mode", std::string("linear")},
      {"coordinate_transformation_mode", std::string(corners ? "align_corners" : "half_pixel")}};
  std::string y;
  if (by_scales) {
    const std::string scales = b.constant(Tensor::from_doubles({1.0, 1.0, *sh, *sw}, {4}, DType::F32));
    y = b.op("Resize", {cx.operand_as(0, c), "", scales}, attrs);
  } else {
    if (scaled)
      return make_error(
          "upsample_bilinear2d with both output_size and scales has no ONNX mapping (Resize takes sizes or scales, "
          "and PyTorch's source index then uses the scales)");
    const std::string batch_channels = b.op("Shape", {cx.inputs[0]}, {{"start", int64_t{0}}, {"end", int64_t{2}}});
    const std::string sizes =
        b.op("Concat", {batch_channels, b.ints({res[2].value(), res[3].value()})}, {{"axis", int64_t{0}}});
    y = b.op("Resize", {cx.operand_as(0, c), "", "", sizes}, attrs);
  }
  return Names{b.cast(y, c, out)};
}

// ---- dropout and attention ----

// dropout: the identity when not training (train=false, or an inference export) or p = 0,
// zeros for p = 1; otherwise its mask comes from kiln's Philox stream.
Expected<Names> dropout(ExportContext& cx) {
  const double p = cx.call.attr_float("p");
  if (!cx.call.attr_bool("train") || !cx.training || p == 0) return Names{cx.b.op("Identity", {cx.inputs[0]})};
  const DType out = cx.result_type().dtype, c = compute_dtype(out);
  if (p == 1) return Names{cx.b.cast(cx.b.op("Expand", {cx.b.scalar(0, c), cx.b.op("Shape", {cx.inputs[0]})}), c, out)};
  return make_error(
      "dropout in training is not exportable to ONNX: its mask comes from kiln's counter-based Philox "
      "stream, which ONNX's Dropout and random ops cannot reproduce");
}

// softmax(q @ k^T * scale + mask) @ v; a row whose scores are all -inf gets zero weights
// (PyTorch's _safe_softmax), where ONNX's Softmax would give NaN.
Expected<Names> attention(ExportContext& cx) {
  OnnxBuilder& b = cx.b;
  if (cx.call.attr_float("dropout_p") > 0)
    return make_error(
        "scaled_dot_product_attention with dropout_p > 0 is not exportable to ONNX: its dropout mask "
        "comes from kiln's counter-based Philox stream");
  const DType out = cx.result_type().dtype, c = compute_dtype(out);
  const int rq = cx.rank(0), rk = cx.rank(1);
  const std::string scale = cx.call.attr_opt_float("scale")
                                ? b.scalar(*cx.call.attr_opt_float("scale"), c)
                                : b.op("Reciprocal", {b.op("Sqrt", {dim_value(cx, 0, rq - 1, c)})});
  std::vector<int64_t> perm = range(0, rk - 2);
  perm.push_back(rk - 1);
  perm.push_back(rk - 2);
  const std::string kt = b.op("Transpose", {cx.operand_as(1, c)}, {{"perm", perm}});
  std::string s = b.op("Mul", {b.op("MatMul", {cx.operand_as(0, c), kt}), scale});
  const std::string neg_inf = b.scalar(-kInf, c);
  if (cx.call.attr_bool("is_causal")) {
    const std::string one = b.int_scalar(1), zero = b.int_scalar(0);
    const std::string rows = b.op("Range", {zero, dim_value(cx, 0, rq - 2, DType::I64), one});
    const std::string cols = b.op("Range", {zero, dim_value(cx, 1, rk - 2, DType::I64), one});
    const std::string allowed = b.op("LessOrEqual", {cols, b.op("Unsqueeze", {rows, b.ints({1})})});
    s = where(b, allowed, s, neg_inf);
  }
  if (!cx.is_none(3)) {
    if (cx.dtype(3) == DType::Bool)
      s = where(b, cx.operand_as(3, DType::Bool), s, neg_inf);
    else
      s = b.op("Add", {s, cx.operand_as(3, c)});
  }
  const std::string m = reduce_op(cx, "ReduceMax", s, {-1}, true);
  const std::string shift = where(b, b.op("IsInf", {m}), b.scalar(0, c), m);
  const std::string e = b.op("Exp", {b.op("Sub", {s, shift})});
  std::string weights = b.op("Div", {e, reduce_op(cx, "ReduceSum", e, {-1}, true)});
  weights = where(b, b.op("Equal", {m, neg_inf}), b.scalar(0, c), weights);
  return Names{b.cast(b.op("MatMul", {weights, cx.operand_as(2, c)}), c, out)};
}

}  // namespace

std::vector<OpExporterEntry> nn_exporters() {
  return {
      {OpKind::Softmax, softmax("Softmax")},
      {OpKind::LogSoftmax, softmax("LogSoftmax")},
      {OpKind::LayerNorm, layer_norm},
      {OpKind::RmsNorm, rms_norm},
      {OpKind::BatchNorm, batch_norm},
      {OpKind::GroupNorm, group_norm},
      {OpKind::NllLoss, nll_loss},
      {OpKind::CrossEntropy, cross_entropy},
      {OpKind::MseLoss, mse_loss},
      {OpKind::Conv2d, conv2d},
      {OpKind::MaxPool2d, max_pool2d},
      {OpKind::AvgPool2d, avg_pool2d},
      {OpKind::AdaptiveAvgPool2d, adaptive_avg_pool2d},
      {OpKind::UpsampleBilinear2d, upsample_bilinear2d},
      {OpKind::Dropout, dropout},
      {OpKind::ScaledDotProductAttention, attention},
  };
}

}  // namespace kiln::onnx
