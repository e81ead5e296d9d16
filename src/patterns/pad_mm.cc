// pad-mm: the cost model, the plan for one product and the patterns that apply it.
#include "patterns/pad_mm.h"

#include <algorithm>

#include "ir/graph_builder.h"

namespace kiln {

namespace {

// The product's operands: mat1 [..., M, K] and mat2 [..., K, N] (addmm's self comes first).
int first_matrix_operand(OpKind op) { return op == OpKind::Addmm ? 1 : 0; }

bool is_product(OpKind op) {
  return op == OpKind::Mm || op == OpKind::Bmm || op == OpKind::Addmm || op == OpKind::Matmul;
}

int alignment(DType dtype, const PadMmOptions& o) {
  switch (dtype) {
    case DType::F16:
    case DType::BF16: return o.alignment_f16;
    case DType::F32: return o.alignment_f32;
    case DType::F64: return o.alignment_f64;
    default: return 0;
  }
}

double peak_tflops(DType dtype, const PadMmCostModel& c) {
  if (dtype == DType::F16 || dtype == DType::BF16) return c.tflops_f16;
  return dtype == DType::F32 ? c.tflops_f32 : c.tflops_f64;
}

// The reference's get_padded_length: 0 for no alignment, aligned sizes and size 1.
int64_t padded_length(int64_t x, int align) {
  if (align == 0 || x == 1 || x % align == 0) return 0;
  return (x + align - 1) / align * align - x;
}

// Static sizes of a shape, or nullopt when a dim is symbolic.
std::optional<std::vector<int64_t>> static_sizes(const Value* v) {
  std::vector<int64_t> sizes;
  for (const Dim& d : v->type().shape.dims()) {
    if (!d.is_static()) return std::nullopt;
    sizes.push_back(d.value());
  }
  return sizes;
}

int64_t batch_of(const std::vector<int64_t>& sizes) {
  int64_t b = 1;
  for (size_t i = 0; i + 2 < sizes.size(); ++i) b *= sizes[i];
  return b;
}

// Roofline time in microseconds.
double roofline_us(double flops, double bytes, double tflops, const PadMmCostModel& c) {
  return std::max(flops / (tflops * 1e12), bytes / (c.bandwidth_gbps * 1e9)) * 1e6;
}

// How `bias` (addmm's self, broadcast to [M, N]) is padded: [0, n_pad, 0, m_pad] trimmed to
// its rank, a dim of size 1 left as it is (it broadcasts).
std::vector<int64_t> bias_pad(const std::vector<int64_t>& bias, const PadMmPlan& p) {
  std::vector<int64_t> pad;
  if (bias.empty()) return pad;
  pad = {0, bias.back() == 1 ? 0 : p.n_pad};
  if (bias.size() >= 2) pad.insert(pad.end(), {0, bias[bias.size() - 2] == 1 ? 0 : p.m_pad});
  return pad;
}

bool any_nonzero(const std::vector<int64_t>& v) {
  return std::any_of(v.begin(), v.end(), [](int64_t x) { return x != 0; });
}

int64_t numel_of(const std::vector<int64_t>& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

Value* pad(GraphBuilder& b, Value* v, std::vector<int64_t> amounts) {
  if (!any_nonzero(amounts)) return v;
  return b.apply1(OpKind::ConstantPadNd, {v}, {{"pad", AttrValue(std::move(amounts))}});
}

Value* slice_back(GraphBuilder& b, Value* v, int64_t dim, int64_t size, int64_t pad_amount) {
  if (pad_amount == 0) return v;
  return b.apply1(OpKind::Slice, {v},
                  {{"dim", AttrValue(dim)}, {"start", AttrValue(int64_t{0})}, {"end", AttrValue(size)}});
}

std::vector<Value*> build_padded(GraphBuilder& b, const Match& match, const PadMmOptions& options) {
  const Node& n = *match.anchor;
  const PadMmPlan p = *plan_pad_mm(n, options);
  const int first = first_matrix_operand(n.op());
  std::vector<Operand> operands(n.operands().begin(), n.operands().end());
  operands[static_cast<size_t>(first)] = pad(b, operands[static_cast<size_t>(first)].value, {0, p.k_pad, 0, p.m_pad});
  operands[static_cast<size_t>(first + 1)] =
      pad(b, operands[static_cast<size_t>(first + 1)].value, {0, p.n_pad, 0, p.k_pad});
  if (n.op() == OpKind::Addmm && operands[0].is_value())
    operands[0] = pad(b, operands[0].value, bias_pad(*static_sizes(operands[0].value), p));
  Value* product = b.apply1(n.op(), operands, n.attrs());
  const std::vector<int64_t> sizes = *static_sizes(n.result());
  const int64_t rank = static_cast<int64_t>(sizes.size());
  product = slice_back(b, product, rank - 2, sizes[static_cast<size_t>(rank - 2)], p.m_pad);
  product = slice_back(b, product, rank - 1, sizes[static_cast<size_t>(rank - 1)], p.n_pad);
  return {product};
}

// A search graph with one `op` node on fresh wildcards of the ranks given.
std::shared_ptr<const Graph> search_graph(OpKind op, const std::vector<int>& ranks) {
  auto g = std::make_shared<Graph>(std::string("search_") + std::string(op_info(op).name()));
  std::vector<Operand> operands;
  for (size_t i = 0; i < ranks.size(); ++i) {
    std::vector<Dim> dims(static_cast<size_t>(ranks[i]), Dim(4));
    operands.push_back(g->add_input("x" + std::to_string(i), TensorType{DType::F32, Shape(dims)}));
  }
  GraphBuilder b(*g);
  g->set_outputs({b.apply1(op, operands)});
  return g;
}

}  // namespace

std::optional<PadMmPlan> plan_pad_mm(const Node& n, const PadMmOptions& options) {
  if (!is_product(n.op()) || n.num_results() != 1) return std::nullopt;
  const int first = first_matrix_operand(n.op());
  if (n.num_operands() < first + 2 || !n.operand(first).is_value() || !n.operand(first + 1).is_value())
    return std::nullopt;
  const Value* mat1 = n.operand(first).value;
  const Value* mat2 = n.operand(first + 1).value;
  const auto s1 = static_sizes(mat1), s2 = static_sizes(mat2), out = static_sizes(n.result());
  if (!s1 || !s2 || !out || s1->size() < 2 || s2->size() < 2 || out->size() < 2) return std::nullopt;
  const DType dtype = mat1->type().dtype;
  const int align = alignment(dtype, options);
  if (align == 0 || mat2->type().dtype != dtype) return std::nullopt;
  std::vector<int64_t> bias;
  if (n.op() == OpKind::Addmm) {
    if (!n.operand(0).is_value()) return std::nullopt;
    const auto s0 = static_sizes(n.operand(0).value);
    if (!s0) return std::nullopt;
    bias = *s0;
  }
  const int64_t m = (*s1)[s1->size() - 2], k = s1->back(), nn = s2->back();
  const int64_t batch = batch_of(*out), batch1 = batch_of(*s1), batch2 = batch_of(*s2);
  if (m == 0 || k == 0 || nn == 0 || batch == 0) return std::nullopt;

  PadMmPlan p;
  p.m_pad = padded_length(m, align);
  p.k_pad = padded_length(k, align);
  p.n_pad = padded_length(nn, align);
  const PadMmCostModel& c = options.cost;
  const double elem = dtype_size(dtype), peak = peak_tflops(dtype, c);
  const auto product_us = [&](double mm, double kk, double nv, double rate) {
    const double bytes = (batch1 * mm * kk + batch2 * kk * nv + batch * mm * nv) * elem;
    return roofline_us(2.0 * batch * mm * nv * kk, bytes, rate, c);
  };
  const bool misaligned = p.m_pad || p.k_pad || p.n_pad;
  const double mp = static_cast<double>(m + p.m_pad), kp = static_cast<double>(k + p.k_pad),
               np = static_cast<double>(nn + p.n_pad);
  p.unpadded_us = product_us(m, k, nn, misaligned ? peak * c.misaligned_efficiency : peak);
  // Pad and slice copies read the original and write the padded tensor (or the reverse).
  double traffic = 0;
  if (p.m_pad || p.k_pad) traffic += batch1 * (m * k + mp * kp) * elem;
  if (p.k_pad || p.n_pad) traffic += batch2 * (k * nn + kp * np) * elem;
  if (p.m_pad || p.n_pad) traffic += batch * (m * nn + mp * np) * elem;
  const std::vector<int64_t> bp = bias_pad(bias, p);
  if (any_nonzero(bp)) traffic += 2.0 * static_cast<double>(numel_of(bias)) * elem;
  p.padded_us = product_us(mp, kp, np, peak) + traffic / (c.bandwidth_gbps * 1e9) * 1e6;
  p.pays = misaligned && (options.force || p.unpadded_us > c.multiplier * p.padded_us);
  return p;
}

Expected<std::shared_ptr<const PatternSet>> make_pad_mm_set(const PadMmOptions& options) {
  auto set = std::make_shared<PatternSet>("pad-mm");
  const struct {
    const char* name;
    OpKind op;
    std::vector<int> ranks;
  } products[] = {
      {"pad_mm", OpKind::Mm, {2, 2}},
      {"pad_bmm", OpKind::Bmm, {3, 3}},
      {"pad_addmm", OpKind::Addmm, {1, 2, 2}},
      {"pad_matmul", OpKind::Matmul, {2, 2}},
  };
  for (const auto& product : products) {
    KILN_TRY(set->add(Pattern{
        .name = product.name,
        .search = search_graph(product.op, product.ranks),
        .replace = [options](GraphBuilder& b, const Match& m) { return build_padded(b, m, options); },
        // addmm's beta and alpha are copied from the matched node.
        .ignore_literals = true,
        .extra_check =
            [options](Match& m) {
              const std::optional<PadMmPlan> p = plan_pad_mm(*m.anchor, options);
              return p && p->pays;
            },
    }));
  }
  return std::shared_ptr<const PatternSet>(std::move(set));
}

}  // namespace kiln
