// Reference kernels of the losses: nll_loss, cross_entropy (class indices with weight,
// ignore_index and label smoothing, or class probabilities) and mse_loss, following
// ATen's formulas (LossNLL.cpp) so reductions divide by the same totals.
#include <cmath>

#include "ops/kernel_index_util.h"
#include "ops/kernel_util.h"
#include "ops/kernels.h"
#include "ops/softmax_line.h"

namespace kiln {

namespace {

Expected<std::vector<Tensor>> single(Tensor t) { return std::vector<Tensor>{std::move(t)}; }

// Input viewed as [N, C, K] (K = product of trailing dims) with log-probabilities read in double.
struct ClassView {
  int64_t n = 1, c = 0, k = 1;
  std::vector<double> logp;  // contiguous [N, C, K]
  double at(int64_t i, int64_t cls, int64_t j) const { return logp[static_cast<size_t>((i * c + cls) * k + j)]; }
};

ClassView class_view(const Tensor& in, bool log_softmax) {
  ClassView v;
  const Tensor x = in.contiguous();
  if (in.dim() == 1) {
    v.c = in.sizes()[0];
  } else {
    v.n = in.sizes()[0];
    v.c = in.sizes()[1];
    v.k = numel_of(in.sizes(), 2);
  }
  v.logp.resize(static_cast<size_t>(x.numel()));
  const ElementAccess ex(x);
  for (int64_t i = 0; i < x.numel(); ++i) v.logp[static_cast<size_t>(i)] = ex.get(i);
  if (!log_softmax) return v;
  std::vector<double> line(static_cast<size_t>(v.c));
  for (int64_t i = 0; i < v.n; ++i)
    for (int64_t j = 0; j < v.k; ++j) {
      for (int64_t cls = 0; cls < v.c; ++cls) line[static_cast<size_t>(cls)] = v.at(i, cls, j);
      const SoftmaxLine s = softmax_line(line);
      const double lse = s.max + std::log(s.sum);
      for (int64_t cls = 0; cls < v.c; ++cls) v.logp[static_cast<size_t>((i * v.c + cls) * v.k + j)] -= lse;
    }
  return v;
}

std::vector<double> class_weights(const KernelCall& call, int64_t c) {
  std::vector<double> w(static_cast<size_t>(c), 1.0);
  if (call.operands.size() > 2 && call.operands[2].is_tensor())
    for (int64_t i = 0; i < c; ++i) w[static_cast<size_t>(i)] = call.operands[2].tensor.item_double(i);
  return w;
}

// Writes per-item losses (reduction none) or their reduction: mean divides by `total`.
Tensor reduce(const KernelCall& call, const std::vector<double>& losses, double total) {
  Tensor out = new_result(call);
  const std::string& r = call.attr_str("reduction");
  const ElementAccess eo(out);
  if (r == "none") {
    for (size_t i = 0; i < losses.size(); ++i) eo.set(static_cast<int64_t>(i), losses[i]);
    return out;
  }
  double sum = 0;
  for (double l : losses) sum += l;
  eo.set(0, r == "sum" ? sum : sum / total);
  return out;
}

struct NllParts {
  std::vector<double> nll;     // per item, weighted, 0 when ignored
  std::vector<double> smooth;  // per item -sum_c w_c logp_c, 0 when ignored
  double weight_total = 0;     // sum of w[target] over items not ignored
  double kept = 0;             // items not ignored
};

Expected<NllParts> nll_parts(const KernelCall& call, const ClassView& v) {
  const Tensor& target = call.operands[1].tensor;
  const int64_t ignore = call.attr_int("ignore_index");
  const std::vector<double> w = class_weights(call, v.c);
  const Tensor t = target.contiguous();
  NllParts p;
  for (int64_t i = 0; i < v.n; ++i)
    for (int64_t j = 0; j < v.k; ++j) {
      const int64_t cls = t.item_int(i * v.k + j);
      double nll = 0, smooth = 0;
      if (cls != ignore) {
        if (cls < 0 || cls >= v.c)
          return make_error(call.name(), ": target ", cls, " is out of bounds for ", v.c, " classes");
        const double wt = w[static_cast<size_t>(cls)];
        nll = -wt * v.at(i, cls, j);
        for (int64_t c = 0; c < v.c; ++c) smooth -= w[static_cast<size_t>(c)] * v.at(i, c, j);
        p.weight_total += wt;
        p.kept += 1;
      }
      p.nll.push_back(nll);
      p.smooth.push_back(smooth);
    }
  return p;
}

// Cross entropy against class probabilities of the input's shape.
Expected<std::vector<Tensor>> cross_entropy_probs(const KernelCall& call, const ClassView& v) {
  const Tensor target = call.operands[1].tensor.contiguous();
  const double ls = call.attr_float("label_smoothing");
  const std::vector<double> w = class_weights(call, v.c);
  std::vector<double> losses;
  for (int64_t i = 0; i < v.n; ++i)
    for (int64_t j = 0; j < v.k; ++j) {
      double l = 0;
      for (int64_t c = 0; c < v.c; ++c) {
        double p = target.item_double((i * v.c + c) * v.k + j);
        if (ls > 0) p = p * (1 - ls) + ls / static_cast<double>(v.c);
        l -= w[static_cast<size_t>(c)] * v.at(i, c, j) * p;
      }
      losses.push_back(l);
    }
  return single(reduce(call, losses, static_cast<double>(v.n * v.k)));
}

}  // namespace

Expected<std::vector<Tensor>> kernel_nll_loss(const KernelCall& call) {
  const ClassView v = class_view(call.operands[0].tensor, false);
  KILN_ASSIGN_OR_RETURN(NllParts p, nll_parts(call, v));
  return single(reduce(call, p.nll, p.weight_total));
}

Expected<std::vector<Tensor>> kernel_cross_entropy(const KernelCall& call) {
  const double ls = call.attr_float("label_smoothing");
  if (ls < 0 || ls > 1) return make_error("cross_entropy: label_smoothing must be between 0.0 and 1.0, got ", ls);
  const ClassView v = class_view(call.operands[0].tensor, true);
  if (is_floating(call.operands[1].tensor.dtype())) return cross_entropy_probs(call, v);
  KILN_ASSIGN_OR_RETURN(NllParts p, nll_parts(call, v));
  if (ls == 0) return single(reduce(call, p.nll, p.weight_total));
  // (1 - ls) * nll + ls / C * smooth, each reduced with its own divisor (ATen's formula:
  // the weighted smooth term divides by the same weight total, the unweighted one by the count).
  const bool weighted = call.operands.size() > 2 && call.operands[2].is_tensor();
  const std::string& r = call.attr_str("reduction");
  const double c = static_cast<double>(v.c);
  if (r == "none") {
    std::vector<double> l(p.nll.size());
    for (size_t i = 0; i < l.size(); ++i) l[i] = (1 - ls) * p.nll[i] + ls / c * p.smooth[i];
    return single(reduce(call, l, 1));
  }
  double nll = 0, smooth = 0;
  for (size_t i = 0; i < p.nll.size(); ++i) {
    nll += p.nll[i];
    smooth += p.smooth[i];
  }
  if (r == "mean") {
    nll /= p.weight_total;
    smooth /= weighted ? p.weight_total : p.kept;
  }
  return single(reduce(call, {(1 - ls) * nll + ls / c * smooth}, 1));
}

Expected<std::vector<Tensor>> kernel_mse_loss(const KernelCall& call) {
  const Tensor& a = call.operands[0].tensor;
  const Tensor& b = call.operands[1].tensor;
  // Broadcast shape of the operands (the result's shape only when reduction is none).
  std::vector<int64_t> sizes(static_cast<size_t>(std::max(a.dim(), b.dim())), 1);
  for (size_t i = 0; i < sizes.size(); ++i) {
    const size_t back = sizes.size() - 1 - i;
    const int64_t x = back < a.sizes().size() ? a.sizes()[a.sizes().size() - 1 - back] : 1;
    const int64_t y = back < b.sizes().size() ? b.sizes()[b.sizes().size() - 1 - back] : 1;
    sizes[i] = x == 1 ? y : x;
  }
  std::vector<double> losses;
  const ElementAccess ea(a), eb(b);
  for_each_index(sizes, {broadcast_strides(a, sizes), broadcast_strides(b, sizes)}, [&](int64_t, const int64_t* off) {
    const double d = ea.get(off[0]) - eb.get(off[1]);
    losses.push_back(d * d);
  });
  return single(reduce(call, losses, static_cast<double>(losses.size())));
}

}  // namespace kiln
