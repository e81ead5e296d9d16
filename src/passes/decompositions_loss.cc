// Decompositions of the losses into gather, index, where and reductions, dividing by the
// totals the kernels use (kernels_loss.cc, after ATen's LossNLL.cpp): nll_loss's mean divides
// by the summed weight of the targets not ignored; cross_entropy with label smoothing adds the
// smoothing term with its own divisor.
#include "passes/decompositions.h"

namespace kiln::decomp {

namespace {

// The per-item pieces of nll_loss over log-probabilities `logp` [N, C, *] or [C].
struct NllItems {
  Value* kept;    // bool, target != ignore_index
  Value* weight;  // w[target] where kept, else 0 (null without a weight: kept as 0/1)
  Value* nll;     // -w[target] * logp[target] where kept, else 0
};

int class_dim(const Value* logp) { return logp->type().shape.rank() == 1 ? 0 : 1; }

NllItems nll_items(GraphBuilder& b, Value* logp, Value* target, Value* w, int64_t ignore_index) {
  const int cd = class_dim(logp);
  Value* t = b.cast(target, DType::I64);  // compare as int64: a u8 target must not wrap ignore_index
  Value* kept = b.apply1(OpKind::Ne, {t, Scalar(ignore_index)});
  Value* safe = where(b, kept, t, Scalar(int64_t{0}));
  Value* index = b.apply1(OpKind::Unsqueeze, {safe}, {{"dim", int64_t{cd}}});
  Value* picked = b.apply1(OpKind::Squeeze, {b.apply1(OpKind::Gather, {logp, index}, {{"dim", int64_t{cd}}})},
                           {{"dim", AttrValue::Ints{cd}}});
  NllItems items{kept, nullptr, nullptr};
  if (w != nullptr) {
    items.weight = where(b, kept, b.apply1(OpKind::Index, {w, safe}), Scalar(0.0));
    picked = mul(b, picked, items.weight);
  }
  items.nll = where(b, kept, unary(b, OpKind::Neg, picked), Scalar(0.0));
  return items;
}

// The summed weight of the kept items (their count without a weight), in `like`'s dtype.
Value* weight_total(GraphBuilder& b, const NllItems& items, Value* like) {
  Value* per_item = items.weight != nullptr ? items.weight : b.cast(items.kept, like->type().dtype);
  return reduce(b, OpKind::Sum, per_item, {}, false);
}

// A reduction attribute the type rule accepted: "none", "sum" or "mean".
Value* reduce_items(GraphBuilder& b, Value* per_item, const std::string& reduction, Value* mean_divisor) {
  if (reduction == "none") return per_item;
  Value* sum = reduce(b, OpKind::Sum, per_item, {}, false);
  return reduction == "sum" ? sum : div(b, sum, mean_divisor);
}

Replacement nll_loss(Node& n, GraphBuilder& b) {
  const OpCallBase a = attrs_of(n);
  Value* logp = n.operand(0).value;
  const NllItems items = nll_items(b, logp, n.operand(1).value, optional_operand(n, 2), a.attr_int("ignore_index"));
  const std::string& reduction = a.attr_str("reduction");
  Value* total = reduction == "mean" ? weight_total(b, items, logp) : nullptr;
  return result(b, n, reduce_items(b, items.nll, reduction, total));
}

// Class probabilities: -sum_c w_c logp_c p_c per item (p smoothed toward 1/C), mean over items.
Value* cross_entropy_probs(GraphBuilder& b, Value* logp, Value* target, Value* w, double ls, const std::string& r) {
  const int cd = class_dim(logp);
  const int64_t c = logp->type().shape[cd].value();
  Value* p = target;
  if (ls > 0) p = add(b, mul(b, p, Scalar(1 - ls)), Scalar(ls / static_cast<double>(c)));
  Value* wl = w != nullptr ? mul(b, logp, per_channel(b, w, logp->type().shape.rank())) : logp;
  Value* per_item = unary(b, OpKind::Neg, reduce(b, OpKind::Sum, mul(b, wl, p), {cd}, false));
  if (r == "mean") return reduce(b, OpKind::Mean, per_item, {}, false);
  return reduce_items(b, per_item, r, nullptr);
}

// log_softmax then nll_loss; with label smoothing, (1 - ls) nll + ls / C smooth where smooth is
// -sum_c w_c logp_c per kept item; both means divide by the weight total (weighted) or the
// kept count (unweighted), as the kernel does. Declined for label_smoothing outside [0, 1] (the kernel rejects it) and
// for a symbolic class count when it is needed as a literal.
Replacement cross_entropy(Node& n, GraphBuilder& b) {
  const OpCallBase a = attrs_of(n);
  Value *x = n.operand(0).value, *target = n.operand(1).value, *w = optional_operand(n, 2);
  const double ls = a.attr_float("label_smoothing");
  const std::string& reduction = a.attr_str("reduction");
  if (!(ls >= 0 && ls <= 1)) return std::nullopt;
  const int cd = class_dim(x);
  const bool probabilities = is_floating(target->type().dtype);
  if ((probabilities || ls > 0) && !x->type().shape[cd].is_static()) return std::nullopt;
  Value* logp = b.apply1(OpKind::LogSoftmax, {x}, {{"dim", int64_t{cd}}});
  if (probabilities) return result(b, n, cross_entropy_probs(b, logp, target, w, ls, reduction));
  const int64_t ignore = a.attr_int("ignore_index");
  if (ls == 0) {
    AttrMap nll_attrs{{"reduction", reduction}, {"ignore_index", ignore}};
    return result(b, n, b.apply1(OpKind::NllLoss, {logp, target, w != nullptr ? Operand(w) : Operand()}, nll_attrs));
  }
  const NllItems items = nll_items(b, logp, target, w, ignore);
  Value* total = reduction == "mean" ? weight_total(b, items, logp) : nullptr;
  Value* nll = reduce_items(b, items.nll, reduction, total);
  Value* wl = w != nullptr ? mul(b, logp, per_channel(b, w, x->type().shape.rank())) : logp;
  Value* smooth = unary(b, OpKind::Neg, reduce(b, OpKind::Sum, wl, {cd}, false));
  smooth = where(b, items.kept, smooth, Scalar(0.0));
  // Unweighted, the weight total is the kept count.
  smooth = reduce_items(b, smooth, reduction, total);
  const double c = static_cast<double>(x->type().shape[cd].value());
  return result(b, n, add(b, mul(b, nll, Scalar(1 - ls)), mul(b, smooth, Scalar(ls / c))));
}

// (a - b)^2, broadcast, then reduced.
Replacement mse_loss(Node& n, GraphBuilder& b) {
  Value* d = sub(b, n.operand(0).value, n.operand(1).value);
  Value* sq = mul(b, d, d);
  const std::string& reduction = attrs_of(n).attr_str("reduction");
  if (reduction == "mean") return result(b, n, reduce(b, OpKind::Mean, sq, {}, false));
  return result(b, n, reduce_items(b, sq, reduction, nullptr));
}

}  // namespace

std::vector<RewriteRule> loss_rules() {
  return {
      {"nll_loss", {OpKind::NllLoss}, nll_loss},
      {"cross_entropy", {OpKind::CrossEntropy}, cross_entropy},
      {"mse_loss", {OpKind::MseLoss}, mse_loss},
  };
}

}  // namespace kiln::decomp
