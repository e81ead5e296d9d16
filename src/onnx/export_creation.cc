// Exporters of the creation ops: full, zeros, ones, empty (kiln zero-fills it) and their
// *_like forms are a 0-d constant of the result dtype expanded to the shape; arange is
// start + i * step over Range(0, n) with kiln's element count n (from the result type), in
// int64 or double as kiln's kernel. The random ops draw from kiln's counter-based Philox
// stream, which ONNX's RandomUniform/RandomNormal cannot reproduce: not exportable.
#include "onnx/export_util.h"

namespace kiln::onnx {

namespace {

using Names = std::vector<std::string>;

// `value` (converted to the result dtype as kiln's kernel converts it) expanded to `shape`.
// Expanded in the compute dtype: ONNX Runtime's Expand lacks bf16.
std::string filled(ExportContext& cx, const Scalar& value, const std::string& shape) {
  const DType out = cx.result_type().dtype, c = compute_dtype(out);
  const std::string v = cx.b.cast(cx.b.constant(Tensor::full({}, value, out)), out, c);
  return cx.b.cast(cx.b.op("Expand", {v, shape}), c, out);
}

OpExporter fill(std::optional<Scalar> fixed) {
  return [fixed](ExportContext& cx) -> Expected<Names> {
    KILN_ASSIGN_OR_RETURN(std::string shape, cx.shape_tensor(cx.result_type().shape));
    return Names{filled(cx, fixed ? *fixed : cx.call.attr_scalar("fill_value"), shape)};
  };
}

OpExporter fill_like(std::optional<Scalar> fixed) {
  return [fixed](ExportContext& cx) -> Expected<Names> {
    const std::string shape = cx.b.op("Shape", {cx.inputs[0]});
    return Names{filled(cx, fixed ? *fixed : cx.call.attr_scalar("fill_value"), shape)};
  };
}

// Element i is start + i * step: in wrapping int64 when the result and both bounds are
// integers, else in double, then cast (as kiln's kernel stores).
Expected<Names> arange(ExportContext& cx) {
  const TensorType& rt = cx.result_type();
  if (cx.call.attr("start").is_sym_int() || cx.call.attr("step").is_sym_int())
    return make_error("arange: a symbolic start or step is not exportable (only end may be symbolic)");
  // A symbolic count (`end=(T)`) is computed from the inputs' dims (Shape, Gather).
  std::string n;
  if (rt.shape[0].is_static()) {
    n = cx.b.int_scalar(rt.shape[0].value());
  } else {
    KILN_ASSIGN_OR_RETURN(n, cx.dim_value(rt.shape[0].expr()));
  }
  const Scalar start = cx.call.attr_scalar("start"), step = cx.call.attr_scalar("step");
  const std::string i = cx.b.op("Range", {cx.b.int_scalar(0), n, cx.b.int_scalar(1)});
  const bool int_path = !is_floating(rt.dtype) && !start.is_float() && !step.is_float();
  const DType c = int_path ? DType::I64 : DType::F64;
  const std::string start_c = cx.b.constant(Tensor::full({}, start, c)),
                    step_c = cx.b.constant(Tensor::full({}, step, c));
  const std::string y = cx.b.op("Add", {start_c, cx.b.op("Mul", {cx.b.cast(i, DType::I64, c), step_c})});
  return Names{cx.b.cast(y, c, rt.dtype)};
}

// A draw of zero elements is deterministic (an empty tensor); any other is not exportable.
Expected<Names> random(ExportContext& cx) {
  const Shape& shape = cx.result_type().shape;
  if (shape.is_static() && shape.numel() == 0) return Names{filled(cx, Scalar(int64_t{0}), cx.b.ints(shape.sizes()))};
  return make_error(cx.call.name(),
                    " is not exportable to ONNX: its numbers come from kiln's counter-based Philox stream, which "
                    "ONNX's random ops (RandomUniform, RandomNormal, Multinomial) cannot reproduce");
}

}  // namespace

std::vector<OpExporterEntry> creation_exporters() {
  return {
      {OpKind::Full, fill(std::nullopt)},
      {OpKind::Zeros, fill(Scalar(int64_t{0}))},
      {OpKind::Empty, fill(Scalar(int64_t{0}))},  // kiln zero-fills empty tensors
      {OpKind::Ones, fill(Scalar(int64_t{1}))},
      {OpKind::FullLike, fill_like(std::nullopt)},
      {OpKind::ZerosLike, fill_like(Scalar(int64_t{0}))},
      {OpKind::OnesLike, fill_like(Scalar(int64_t{1}))},
      {OpKind::Arange, arange},
      {OpKind::Rand, random},
      {OpKind::Randn, random},
      {OpKind::Randint, random},
      {OpKind::Randperm, random},
  };
}

}  // namespace kiln::onnx
