#include "fuzz/tolerance.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

#include "core/random.h"
#include "fuzz/op_rounding.h"
#include "fuzz/tensor_values.h"
#include "interp/interpreter.h"
#include "ops/op_call.h"
#include "passes/functionalize.h"

namespace kiln::fuzz {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// The estimate is first order and samples a few directions: twice it is the tolerance.
constexpr double kSafety = 2;

// How far `moved` is from `base`, element by element: 0 for NaN and NaN or equal values, inf
// where only one is NaN.
double change(double base, double moved) {
  if (std::isnan(base) || std::isnan(moved)) return std::isnan(base) && std::isnan(moved) ? 0 : kInf;
  return base == moved ? 0 : std::abs(base - moved);
}

// x moved by delta (same element count) with signs: +1, -1, or a seeded pattern of both
// (sign 0 with `seed`). Floating x (and integer x `as_f64`) is moved in f64; integers by whole
// steps (wrapping, as their arithmetic does); bools flip where delta reaches 1/2.
Tensor moved(const Tensor& x, const ElementTolerance& delta, int sign, uint64_t seed, bool as_f64) {
  auto sign_of = [&](size_t i) { return sign != 0 ? sign : (random_u64(RandomStream{seed, 0}, i) & 1 ? 1 : -1); };
  if (is_floating(x.dtype()) || as_f64) {
    std::vector<double> v = element_values(x);
    for (size_t i = 0; i < v.size(); ++i) v[i] += sign_of(i) * delta[i];
    return Tensor::from_doubles(v, x.sizes(), DType::F64);
  }
  const Tensor c = x.contiguous();
  std::vector<int64_t> v(static_cast<size_t>(c.numel()));
  for (size_t i = 0; i < v.size(); ++i) {
    const int64_t xi = c.item_int(static_cast<int64_t>(i));
    const auto step = static_cast<int64_t>(std::round(std::min(delta[i], 1e15)));
    v[i] = x.dtype() == DType::Bool
               ? (delta[i] >= 0.5 ? 1 - xi : xi)
               : static_cast<int64_t>(static_cast<uint64_t>(xi) + static_cast<uint64_t>(sign_of(i) * step));
  }
  return Tensor::from_ints(v, x.sizes(), x.dtype());
}

// Floating x with each nonzero element within delta of 0 put at exactly 0, the one point where a
// truthiness test (a logical op, a cast to bool, where's condition) flips, which moving by
// +-delta never reaches (a layer_norm cancelling to 0 in f32 and to 7e-15 in double under
// logical_and: fuzz seed 4800064); nullopt where no element is.
std::optional<Tensor> zeroed_within(const Tensor& x, const ElementTolerance& delta) {
  if (!is_floating(x.dtype())) return std::nullopt;
  std::vector<double> v = element_values(x);
  bool any = false;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] == 0 || !(std::abs(v[i]) <= delta[i])) continue;
    v[i] = 0;
    any = true;
  }
  if (!any) return std::nullopt;
  return Tensor::from_doubles(v, x.sizes(), DType::F64);
}

// The dtype's least normal number (0 for exact dtypes): below it, results may flush to 0 or keep
// subnormals differently.
double least_normal(DType t) {
  switch (t) {
    case DType::F16: return 6.1e-5;
    case DType::BF16:
    case DType::F32: return 1.2e-38;
    case DType::F64: return 2.3e-308;
    default: return 0;
  }
}

// The dtype's largest finite number (inf for exact dtypes).
double largest_finite_of(DType t) {
  switch (t) {
    case DType::F16: return 65504;
    case DType::BF16: return 3.39e38;
    case DType::F32: return std::numeric_limits<float>::max();
    case DType::F64: return std::numeric_limits<double>::max();
    default: return kInf;
  }
}

// The element of an operand of `sizes` that element k of a result of `result_sizes` reads where
// the operand broadcasts to the result (sizes aligned at the right, each 1 or the result's);
// nullopt where it does not.
std::optional<size_t> broadcast_source(const std::vector<int64_t>& sizes, const std::vector<int64_t>& result_sizes,
                                       size_t k) {
  if (sizes.size() > result_sizes.size()) return std::nullopt;
  const size_t lead = result_sizes.size() - sizes.size();
  for (size_t d = 0; d < sizes.size(); ++d)
    if (sizes[d] != 1 && sizes[d] != result_sizes[lead + d]) return std::nullopt;
  size_t source = 0, stride = 1;
  auto rest = static_cast<int64_t>(k);
  for (size_t d = result_sizes.size(); d-- > 0;) {
    const int64_t at = rest % result_sizes[d];
    rest /= result_sizes[d];
    if (d < lead) continue;
    const int64_t size = sizes[d - lead];
    if (size != 1) source += static_cast<size_t>(at) * stride;
    stride *= static_cast<size_t>(size);
  }
  return source;
}

// Whether the operands that result element k (of `result_sizes`) reads hold no infinity or NaN:
// element k of an operand of the result's size (or its one element), the element it broadcasts
// to k where the op is elementwise (mul of an f16[5,5,2] by an f16[5,5,1] holding -inf elsewhere
// overflows at an element reading finite values: the libFuzzer target), any element of another.
bool finite_operands(std::span<const KernelOperand> operands, bool elementwise, size_t k,
                     const std::vector<int64_t>& result_sizes, size_t result_numel) {
  for (const KernelOperand& o : operands) {
    if (!o.is_tensor()) continue;
    const std::vector<double> v = element_values(o.tensor);
    if (v.size() == result_numel || v.size() == 1) {
      if (!std::isfinite(v[v.size() == 1 ? 0 : k])) return false;
      continue;
    }
    if (const std::optional<size_t> source =
            elementwise ? broadcast_source(o.tensor.sizes(), result_sizes, k) : std::nullopt) {
      if (!std::isfinite(v[*source])) return false;
      continue;
    }
    for (double x : v)
      if (!std::isfinite(x)) return false;
  }
  return true;
}

// Element k of an operand read by a result of `numel` elements: its own (same size), its one
// element, or the largest in magnitude of another.
double element_or_largest(const std::vector<double>& v, size_t k, size_t numel) {
  if (v.size() == numel) return v[k];
  if (v.size() == 1) return v[0];
  double m = 0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

// fmod and remainder repeat with period |divisor| in their dividend: where the dividend may
// move by half a period or more, the result may land anywhere in its range, 2 |divisor| wide
// (fmod's sign follows the dividend's), which moving the dividend to four points does not show
// (fmod of a bf16 square by 0.001: the libFuzzer target).
void widen_to_period(ElementTolerance& result, const ElementTolerance& dividend, const KernelOperand& divisor) {
  const std::vector<double> d =
      divisor.is_tensor() ? element_values(divisor.tensor) : std::vector<double>{divisor.literal.to_double()};
  for (size_t k = 0; k < result.size(); ++k) {
    const double period = std::abs(element_or_largest(d, k, result.size()));
    if (2 * element_or_largest(dividend, k, result.size()) >= period) result[k] = std::max(result[k], 2 * period);
  }
}

// tan has a pole at each pi/2 + k pi: where its operand may lie on either side of one, the result
// may be any number, which moving the operand to points of its dtype's grid does not show (tan of
// an f32 pi/2 is -2.3e7, of the double the loop-IR evaluator kept 1.6e16: the libFuzzer target).
void widen_at_poles(ElementTolerance& result, const ElementTolerance& operand, const Tensor& x) {
  const std::vector<double> v = element_values(x);
  for (size_t k = 0; k < result.size() && k < v.size(); ++k) {
    if (!std::isfinite(v[k])) continue;
    const double pole = M_PI / 2 + M_PI * std::round((v[k] - M_PI / 2) / M_PI);
    if (std::abs(v[k] - pole) <= operand[k]) result[k] = kInf;
  }
}

// The operands of n that read `v`, in order.
std::vector<int> operands_reading(const Node& n, const Value* v) {
  std::vector<int> slots;
  for (int i = 0; i < n.num_operands(); ++i)
    if (n.operand(i).is_value() && n.operand(i).value == v) slots.push_back(i);
  return slots;
}

// Whether result element k reads an element of an operand with an infinite tolerance: element k
// of an operand of the result's size (or its one element), any element of another.
bool reads_unconstrained(const ElementTolerance& operand, size_t k, size_t result_numel) {
  if (operand.size() == result_numel || operand.size() == 1) return std::isinf(operand[operand.size() == 1 ? 0 : k]);
  return std::any_of(operand.begin(), operand.end(), [](double d) { return std::isinf(d); });
}

Expected<std::vector<Tensor>> run_node(const Node& n, std::span<const KernelOperand> operands) {
  if (!n.info().has(kHigherOrder)) return run_op(n.op(), n.attrs(), operands);
  std::vector<const Graph*> bodies;
  for (int i = 0; i < n.num_subgraphs(); ++i) bodies.push_back(n.subgraph(i));
  return run_higher_order(n.op(), n.attrs(), operands, bodies);
}

class Estimate {
 public:
  void set(const Value* v, Tensor value, ElementTolerance tol) {
    value_[v] = std::move(value);
    tol_[v] = std::move(tol);
  }
  const Tensor& value(const Value* v) const { return value_.at(v); }
  const ElementTolerance& tol(const Value* v) const { return tol_.at(v); }

  // The tolerance of each result of n, from its operands' (see the header).
  void propagate(const Node& n) {
    std::vector<KernelOperand> exact, upcast;
    for (const Operand& o : n.operands()) {
      if (!o.is_value()) {
        exact.push_back({Tensor(), o.literal});
        continue;
      }
      const Tensor& t = value(o.value);
      exact.push_back({t, {}});
    }
    upcast = exact;
    for (KernelOperand& o : upcast)
      if (o.is_tensor() && is_floating(o.tensor.dtype())) o.tensor = o.tensor.to(DType::F64);
    // Moved operands run in f64 (so a move below the operand dtype's resolution still counts),
    // unless the op refuses f64 operands where it took the originals.
    Expected<std::vector<Tensor>> base = run_node(n, upcast);
    bool upcasting = true;
    if (!base) {
      upcasting = false;
      base = run_node(n, exact);
    }
    std::vector<ElementTolerance> acc;
    for (int r = 0; r < n.num_results(); ++r)
      acc.emplace_back(static_cast<size_t>(n.result(r)->type().shape.numel()), base ? 0.0 : kInf);
    const OpRounding rounding = op_rounding(n);
    const double rel = rounding.relative;
    const DType result_dtype = n.result(0)->type().dtype;
    // Each group of moves goes up, down, in two seeded patterns of signs, and onto 0 where it can.
    constexpr int kMoves = 5;
    // Operand slot i's value moved by `delta` in move `signs` of a group (nullopt: the move onto
    // 0 where no element is within its tolerance of 0).
    const auto move = [&](int i, const ElementTolerance& delta, int signs, bool as_f64) -> std::optional<Tensor> {
      const Tensor& x = exact[static_cast<size_t>(i)].tensor;
      std::optional<Tensor> m = signs == kMoves - 1 ? zeroed_within(x, delta)
                                                    : moved(x, delta,
                                                            signs == 0   ? 1
                                                            : signs == 1 ? -1
                                                                         : 0,
                                                            7919 * static_cast<uint64_t>(signs + i), as_f64);
      if (m && !upcasting && is_floating(x.dtype())) m = m->to(x.dtype());
      return m;
    };
    struct OperandMove {
      int slot;  // the value's first operand slot
      ElementTolerance delta;
      bool as_f64;
    };
    std::vector<OperandMove> uncertain;
    for (int i = 0; base && i < n.num_operands(); ++i) {
      if (!n.operand(i).is_value()) continue;
      const Tensor& x = exact[static_cast<size_t>(i)].tensor;
      ElementTolerance delta = tol(n.operand(i).value);
      // The op's own rounding, as a relative move of its operands (backward error): floating
      // ones, and integers that become floating in it (log_softmax of an i64), moved in f64
      // where the op takes that.
      bool as_f64 = rel > 0 && is_integral(x.dtype()) && is_floating(result_dtype);
      if (rel > 0 && (is_floating(x.dtype()) || as_f64)) {
        const std::vector<double> xs = element_values(x);
        for (size_t k = 0; k < delta.size(); ++k)
          if (std::isfinite(xs[k])) delta[k] += rel * std::abs(xs[k]);
      }
      if (std::all_of(delta.begin(), delta.end(), [](double d) { return d == 0; })) continue;
      // An operand element left unconstrained (one that overflowed here and need not have in
      // code that keeps it wider) leaves what reads it unconstrained: moving it by inf reaches
      // inf and NaN but none of the finite values it may hold (f16 mul(mul(x, 3), 0) is NaN
      // here where x * 3 overflows and -0 compiled; fuzz_graphs smoke run).
      for (size_t r = 0; r < acc.size(); ++r)
        for (size_t k = 0; k < acc[r].size(); ++k)
          if (reads_unconstrained(delta, k, acc[r].size())) acc[r][k] = kInf;
      // A value read by several operands (logical_and(x, x)) also moves in all of them at once,
      // in the second group of moves of its first operand: moved one at a time, x && x never
      // flips where x is 0 on one side and tiny on the other (tanh(13) is 1 in f32 and
      // remainder(1, 1) is 0; the loop-IR evaluator kept tanh in double: the libFuzzer target).
      const std::vector<int> same = operands_reading(n, n.operand(i).value);
      const int patterns = (same.size() > 1 && same.front() == i ? 2 : 1) * kMoves;
      std::vector<ElementTolerance> most(acc.size());
      for (int pattern = 0; pattern < patterns; ++pattern) {
        if (pattern == 0)
          for (size_t r = 0; r < acc.size(); ++r) most[r].assign(acc[r].size(), 0.0);
        const std::optional<Tensor> m = move(i, delta, pattern % kMoves, as_f64);
        if (!m) continue;
        std::vector<KernelOperand> operands = upcasting ? upcast : exact;
        for (int j : pattern < kMoves ? std::vector<int>{i} : same) operands[static_cast<size_t>(j)].tensor = *m;
        Expected<std::vector<Tensor>> out = run_node(n, operands);
        if (!out && as_f64) {  // the op takes only integers there (an index): move by whole steps
          as_f64 = false;
          pattern = -1;
          continue;
        }
        for (size_t r = 0; r < most.size(); ++r) {
          const std::vector<double> b = element_values((*base)[r]);
          const std::vector<double> o = out ? element_values((*out)[r]) : std::vector<double>(b.size(), kInf);
          for (size_t k = 0; k < b.size(); ++k) most[r][k] = std::max(most[r][k], out ? change(b[k], o[k]) : kInf);
        }
      }
      for (size_t r = 0; r < acc.size(); ++r)
        for (size_t k = 0; k < acc[r].size(); ++k) acc[r][k] += most[r][k];
      if (i == 0 && (n.op() == OpKind::Fmod || n.op() == OpKind::Remainder)) widen_to_period(acc[0], delta, exact[1]);
      if (n.op() == OpKind::Tan) widen_at_poles(acc[0], delta, x);
      if (same.front() == i) uncertain.push_back({i, std::move(delta), as_f64});
    }
    // Operands that carry a tolerance also move together: logical_and(y, logical_and(y, z))
    // where y is 0 or 1 by the rounding flips only when both operands do, which moving one at a
    // time never shows (remainder(tanh(13), 1): the libFuzzer target).
    if (uncertain.size() > 1) joint_moves(n, uncertain, kMoves, move, upcasting ? upcast : exact, *base, acc);
    // The op's own rounding, relative to its scale (op_rounding.h).
    for (int r = 0; r < n.num_results(); ++r) {
      const Tensor& result = value(n.result(r));
      std::vector<double> scale = element_values(result);
      if (rounding.scale == RoundingScale::ResultOrOne || rounding.scale == RoundingScale::Exponentiated) {
        const double m = rounding.scale == RoundingScale::Exponentiated ? 1 + exponentiated_magnitude(n, exact) : 1;
        for (double& v : scale) v = std::max(std::abs(v), 1.0) * m;
      }
      if (rounding.scale == RoundingScale::Normalized) {
        const double terms = normalized_magnitude(n, exact);
        for (double& v : scale) v = std::max(std::abs(v), terms);
      }
      if (rounding.scale == RoundingScale::Spread) {
        const double m = largest_finite_magnitude(value(n.operand(0).value));
        const double spread = n.op() == OpKind::Var ? m * m : m;
        for (double& v : scale) v = std::max(std::abs(v), spread);
      }
      if (rounding.scale == RoundingScale::OperandOrResult && n.operand(0).is_value() &&
          value(n.operand(0).value).numel() == result.numel()) {
        const std::vector<double> x = element_values(value(n.operand(0).value));
        for (size_t k = 0; k < scale.size(); ++k) scale[k] = std::max(std::abs(scale[k]), std::abs(x[k]));
      }
      // An op that rounds may also flush a result below the dtype's least normal number to 0
      // (kiln_expf is 0 below exp(-86.6): docs/CODEGEN.md).
      const double flush = rel > 0 ? least_normal(result.dtype()) : 0;
      // And it may overflow to inf from finite operands where code that keeps the value in a
      // wider type before its next op (a fused kernel) does not.
      const bool rounds = rel > 0 && is_floating(result.dtype());
      // Likewise an intermediate value of a softmax-like op or attention (op_rounding.h).
      const bool intermediate_overflows = rounds && rounding.scale == RoundingScale::Exponentiated &&
                                          intermediate_magnitude(n, exact) >= largest_finite_of(result.dtype());
      ElementTolerance& a = acc[static_cast<size_t>(r)];
      for (size_t k = 0; k < a.size(); ++k) {
        if (is_floating(result.dtype()) && std::isfinite(scale[k])) a[k] += rel * std::abs(scale[k]) + flush;
        if (rounds && std::isinf(scale[k]) &&
            finite_operands(exact, n.info().has(kElementwise), k, result.sizes(), a.size()))
          a[k] = kInf;
        if (intermediate_overflows) a[k] = kInf;
        a[k] *= kSafety;
      }
      tol_[n.result(r)] = std::move(a);
    }
  }

 private:
  // Raises acc to the largest change of n's results when every operand of `uncertain` moves at
  // once, in each move of a group (`move`, as propagate's), its value in all its slots.
  template <typename Moves, typename Move>
  static void joint_moves(const Node& n, const Moves& uncertain, int moves, const Move& move,
                          const std::vector<KernelOperand>& start, const std::vector<Tensor>& base,
                          std::vector<ElementTolerance>& acc) {
    for (int signs = 0; signs < moves; ++signs) {
      std::vector<KernelOperand> operands = start;
      bool any = false;
      for (const auto& u : uncertain) {
        const std::optional<Tensor> m = move(u.slot, u.delta, signs, u.as_f64);
        if (!m) continue;
        for (int j : operands_reading(n, n.operand(u.slot).value)) operands[static_cast<size_t>(j)].tensor = *m;
        any = true;
      }
      if (!any) continue;
      const Expected<std::vector<Tensor>> out = run_node(n, operands);
      if (!out) continue;  // one at a time, the moves that make the op fail already made it unconstrained
      for (size_t r = 0; r < acc.size(); ++r) {
        const std::vector<double> b = element_values(base[r]), o = element_values((*out)[r]);
        for (size_t k = 0; k < b.size(); ++k) acc[r][k] = std::max(acc[r][k], change(b[k], o[k]));
      }
    }
  }

  std::map<const Value*, Tensor> value_;
  std::map<const Value*, ElementTolerance> tol_;
};

}  // namespace

Expected<GraphTolerance> estimate_tolerance(const Graph& g, std::span<const Tensor> inputs) {
  std::unique_ptr<Graph> f = g.clone();
  FunctionalizeOptions fo;
  fo.keep_input_mutations = false;
  KILN_ASSIGN_OR_RETURN(ViewAndMutationInfo info, functionalize(*f, fo));
  Estimate e;
  std::vector<Tensor> copies;
  for (int i = 0; i < f->num_inputs(); ++i) {
    copies.push_back(inputs[static_cast<size_t>(i)].clone());
    e.set(f->input(i), copies.back(), ElementTolerance(static_cast<size_t>(copies.back().numel()), 0.0));
  }
  InterpreterOptions io;
  io.on_node = [&](const Node& n, std::span<const Tensor> results) {
    if (n.graph() != f.get()) return;
    for (int r = 0; r < n.num_results(); ++r) e.set(n.result(r), results[static_cast<size_t>(r)].clone(), {});
  };
  KILN_TRY(interpret(*f, copies, io).status());
  for (const Node* n : f->nodes()) e.propagate(*n);

  auto finished = [&](const Value* v) {
    ElementTolerance t = e.tol(v);
    for (double& x : t) x += least_normal(v->type().dtype);
    return t;
  };
  GraphTolerance out;
  for (int k = 0; k < info.num_user_outputs; ++k) out.outputs.push_back(finished(f->outputs()[static_cast<size_t>(k)]));
  out.inputs.resize(static_cast<size_t>(g.num_inputs()));
  for (int i = 0; i < g.num_inputs(); ++i)
    out.inputs[static_cast<size_t>(i)].assign(static_cast<size_t>(inputs[static_cast<size_t>(i)].numel()), 0.0);
  for (int k = 0; k < info.num_write_backs(); ++k)
    out.inputs[static_cast<size_t>(info.write_back_inputs[static_cast<size_t>(k)])] =
        finished(f->outputs()[static_cast<size_t>(info.num_user_outputs + k)]);
  return out;
}

int64_t first_disagreement(const Tensor& want, const Tensor& got, const ElementTolerance& tol) {
  const Tensor w = want.contiguous(), o = got.contiguous();
  const bool exact_ints = !is_floating(w.dtype());
  for (int64_t i = 0; i < w.numel(); ++i) {
    const double t = tol[static_cast<size_t>(i)];
    if (exact_ints && t == 0) {
      if (w.item_int(i) != o.item_int(i)) return i;
      continue;
    }
    const double a = w.item_double(i), b = o.item_double(i);
    if ((std::isnan(a) && std::isnan(b)) || a == b || t == kInf) continue;
    if (!(std::abs(a - b) <= t)) return i;
  }
  return -1;
}

}  // namespace kiln::fuzz
