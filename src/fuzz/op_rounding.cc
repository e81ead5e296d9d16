#include "fuzz/op_rounding.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "lower/compute_op.h"
#include "support/check.h"

namespace kiln::fuzz {
namespace {

int64_t numel(const Value* v) { return v ? v->type().shape.numel() : 1; }

// The elements of operand 0 that make one element of the result: the reduced count.
double reduced_count(const Node& n) {
  const Value* in = n.operand(0).value;
  return static_cast<double>(std::max<int64_t>(numel(in), 1)) /
         static_cast<double>(std::max<int64_t>(numel(n.result()), 1));
}

int64_t last_dim(const Value* v) {
  const Shape& s = v->type().shape;
  return s.rank() == 0 ? 1 : s[s.rank() - 1].value();
}

int64_t dim_size(const Node& n, const char* attr, int operand = 0) {
  const Shape& s = n.operand(operand).value->type().shape;
  if (s.rank() == 0) return 1;
  const AttrValue* a = n.attrs().find(attr);
  const int64_t dim = a && a->is_int() ? a->as_int() : 0;
  return s[*wrap_dim(dim, s.rank())].value();
}

double body_relative(const Graph& g) {
  double sum = 0;
  for (const Node* n : g.nodes()) sum += op_rounding(*n).relative;
  return sum;
}

// The epsilon of the dtype n rounds to: its result's when floating, else its first floating
// operand's (a comparison of floats is exact, but it compares rounded values); 0 when neither.
double rounded_epsilon(const Node& n) {
  if (is_floating(n.result()->type().dtype)) return dtype_epsilon(n.result()->type().dtype);
  for (const Operand& o : n.operands())
    if (o.is_value() && is_floating(o.value->type().dtype)) return dtype_epsilon(o.value->type().dtype);
  return 0;
}

// The trips a while_loop of the generator makes at most (its counter stops below 4).
constexpr double kMaxTrips = 4;

// The ulps of a node that is not higher-order: a loop-body op's are declared with it
// (lower/compute_ops.def).
double ulps(const Node& n) {
  if (const std::optional<ComputeOp> c = find_compute_op(n.op())) return compute_op_ulps(*c);
  switch (n.op()) {
    case OpKind::Addcmul:
    case OpKind::Addcdiv:
    case OpKind::AddInplace:
    case OpKind::SubInplace:
    case OpKind::MulInplace:
    case OpKind::DivInplace:
    case OpKind::ToCopy:
    case OpKind::Dropout:
    case OpKind::Rand:
    case OpKind::Randn:
    case OpKind::Arange:
    case OpKind::FullLike:
    case OpKind::Full:
    case OpKind::FillInplace: return 2;
    case OpKind::Gelu:
    case OpKind::Silu:
    case OpKind::LeakyRelu:
    case OpKind::Softplus:
    case OpKind::Elu: return 8;
    case OpKind::UpsampleBilinear2d: return 8;  // two blends of two products in the decomposition
    case OpKind::Sum:
    case OpKind::Mean:
    case OpKind::Prod: return reduced_count(n) + 2;
    case OpKind::Var:
    case OpKind::Std:
    case OpKind::Logsumexp: return 2 * reduced_count(n) + 8;
    case OpKind::Cumsum: return static_cast<double>(dim_size(n, "dim")) + 2;
    case OpKind::ScatterAdd:
    case OpKind::IndexAdd: return static_cast<double>(numel(n.operand(2).value)) + 2;
    case OpKind::IndexPut:
    case OpKind::IndexPutInplace: return static_cast<double>(numel(n.operand(n.num_operands() - 1).value)) + 2;
    case OpKind::Mm:
    case OpKind::Bmm:
    case OpKind::Matmul:
    case OpKind::Linear: return static_cast<double>(last_dim(n.operand(0).value)) + 2;
    case OpKind::Addmm:
    case OpKind::Baddbmm: return static_cast<double>(last_dim(n.operand(1).value)) + 4;
    case OpKind::Conv2d: {
      const Shape& w = n.operand(1).value->type().shape;
      return static_cast<double>(w[1].value() * w[2].value() * w[3].value()) + 4;
    }
    case OpKind::AvgPool2d:
    case OpKind::AdaptiveAvgPool2d:
      return reduced_count(n) + 9 + 4;  // windows of at most 3x3 (the recipe's) or the adaptive ones
    case OpKind::Softmax:
    case OpKind::LogSoftmax: return static_cast<double>(dim_size(n, "dim")) + 8;
    case OpKind::LayerNorm:
    case OpKind::RmsNorm:
    case OpKind::GroupNorm:
    case OpKind::BatchNorm: return 2 * static_cast<double>(numel(n.operand(0).value)) + 8;
    case OpKind::NllLoss:
    case OpKind::CrossEntropy:
    case OpKind::MseLoss: return 2 * static_cast<double>(numel(n.operand(0).value)) + 8;
    case OpKind::ScaledDotProductAttention: {
      const Value* k = n.operand(1).value;
      const Shape& ks = k->type().shape;
      return static_cast<double>(ks[ks.rank() - 2].value() * (last_dim(k) + 1)) + 16;
    }
    default:  // moves, selects, compares or creates values exactly
      return 0;
  }
}

}  // namespace

OpRounding op_rounding(const Node& n) {
  switch (n.op()) {
    case OpKind::Cond:
    case OpKind::Map:
      return {std::max(body_relative(*n.subgraph(0)), n.num_subgraphs() > 1 ? body_relative(*n.subgraph(1)) : 0.0)};
    case OpKind::WhileLoop: return {kMaxTrips * (body_relative(*n.subgraph(0)) + body_relative(*n.subgraph(1)))};
    case OpKind::Scan: {
      const int xs = static_cast<int>(n.attrs().find("num_init")->as_int());
      return {static_cast<double>(dim_size(n, "dim", xs)) * body_relative(*n.subgraph(0))};
    }
    case OpKind::Gelu: return {ulps(n) * rounded_epsilon(n), RoundingScale::OperandOrResult};
    case OpKind::Var:
    case OpKind::Std: return {ulps(n) * rounded_epsilon(n), RoundingScale::Spread};
    case OpKind::NllLoss:
    case OpKind::MseLoss: return {ulps(n) * rounded_epsilon(n), RoundingScale::ResultOrOne};
    case OpKind::LayerNorm:
    case OpKind::RmsNorm:
    case OpKind::GroupNorm:
    case OpKind::BatchNorm: return {ulps(n) * rounded_epsilon(n), RoundingScale::Normalized};
    case OpKind::Softmax:
    case OpKind::LogSoftmax:
    case OpKind::Logsumexp:
    case OpKind::CrossEntropy:
    case OpKind::ScaledDotProductAttention: return {ulps(n) * rounded_epsilon(n), RoundingScale::Exponentiated};
    default: return {ulps(n) * rounded_epsilon(n)};
  }
}

double largest_finite_magnitude(const Tensor& t) {
  const Tensor c = t.contiguous();
  double m = 0;
  for (int64_t i = 0; i < c.numel(); ++i)
    if (std::isfinite(c.item_double(i))) m = std::max(m, std::abs(c.item_double(i)));
  return m;
}

namespace {

// Attention's |scale| (its attribute, else 1 / sqrt(E)) and the largest |q.k| before it.
struct AttentionScores {
  double scale = 1, dot = 0;
};

AttentionScores attention_scores(const Node& n, std::span<const KernelOperand> operands) {
  const Tensor& q = operands[0].tensor;
  const double e = q.dim() == 0 ? 1 : static_cast<double>(q.sizes().back());
  const std::optional<double> scale = OpCallBase(n.op(), n.attrs()).attr_opt_float("scale");
  return {std::abs(scale.value_or(1 / std::sqrt(std::max(e, 1.0)))),
          largest_finite_magnitude(q) * largest_finite_magnitude(operands[1].tensor) * e};
}

}  // namespace

double exponentiated_magnitude(const Node& n, std::span<const KernelOperand> operands) {
  if (n.op() != OpKind::ScaledDotProductAttention) return largest_finite_magnitude(operands[0].tensor);
  const AttentionScores s = attention_scores(n, operands);
  return s.scale * s.dot + largest_finite_magnitude(operands[2].tensor);
}

namespace {

// The largest finite |element| of operand i, or `absent` when the op was given none there.
double operand_magnitude(std::span<const KernelOperand> operands, size_t i, double absent) {
  return i < operands.size() && operands[i].is_tensor() ? largest_finite_magnitude(operands[i].tensor) : absent;
}

// The least finite |element| of `t` (+inf when none is).
double least_finite_magnitude(const Tensor& t) {
  const Tensor c = t.contiguous();
  double m = std::numeric_limits<double>::infinity();
  for (int64_t i = 0; i < c.numel(); ++i)
    if (std::isfinite(c.item_double(i))) m = std::min(m, std::abs(c.item_double(i)));
  return m;
}

}  // namespace

double normalized_magnitude(const Node& n, std::span<const KernelOperand> operands) {
  const OpCallBase call(n.op(), n.attrs());
  const double numel = static_cast<double>(operands[0].tensor.numel());
  double xhat = 0;  // the bound on |xhat|
  switch (n.op()) {
    case OpKind::LayerNorm:
    case OpKind::RmsNorm: {
      double group = 1;
      for (int64_t d : call.attr_ints("normalized_shape")) group *= static_cast<double>(d);
      xhat = std::sqrt(group);
      break;
    }
    case OpKind::GroupNorm: {
      const double batch = operands[0].tensor.dim() == 0 ? 1 : static_cast<double>(operands[0].tensor.sizes()[0]);
      xhat = std::sqrt(numel / std::max(batch * static_cast<double>(call.attr_int("num_groups")), 1.0));
      break;
    }
    case OpKind::BatchNorm: {
      const Tensor& x = operands[0].tensor;
      if (call.attr_bool("training") || operands.size() < 5 || !operands[4].is_tensor()) {
        const double channels = x.dim() < 2 ? 1 : static_cast<double>(x.sizes()[1]);
        xhat = std::sqrt(numel / std::max(channels, 1.0));
        break;
      }
      const double var = least_finite_magnitude(operands[4].tensor) + call.attr_float("eps");
      xhat = (largest_finite_magnitude(x) + operand_magnitude(operands, 3, 0)) / std::sqrt(var);
      break;
    }
    default: KILN_CHECK(false) << "normalized_magnitude of " << n.info().name();
  }
  const bool has_bias = n.op() != OpKind::RmsNorm;
  return operand_magnitude(operands, 1, 1) * xhat + (has_bias ? operand_magnitude(operands, 2, 0) : 0);
}

double intermediate_magnitude(const Node& n, std::span<const KernelOperand> operands) {
  if (n.op() != OpKind::ScaledDotProductAttention) return largest_finite_magnitude(operands[0].tensor);
  const AttentionScores s = attention_scores(n, operands);
  return std::max(s.scale, 1.0) * s.dot;
}

}  // namespace kiln::fuzz
