#include "runtime/cuda/cublaslt_matmul.h"

#include <algorithm>

#include "lower/loop_control.h"
#include "runtime/cuda/cuda_error.h"

namespace kiln {

namespace {

// cublasLt.h's and library_types.h's values for what kiln sets.
constexpr int kComputeF32 = 68;                            // CUBLAS_COMPUTE_32F
constexpr int kComputeF32FastTf32 = 77;                    // CUBLAS_COMPUTE_32F_FAST_TF32
constexpr int kRealF32 = 0, kRealF16 = 2, kRealBf16 = 14;  // CUDA_R_32F, CUDA_R_16F, CUDA_R_16BF
constexpr int kDescTransA = 3, kDescTransB = 4, kDescEpilogue = 7, kDescBiasPointer = 8, kDescBiasDataType = 26;
constexpr uint32_t kEpilogueBias = 4;                         // CUBLASLT_EPILOGUE_BIAS
constexpr int kLayoutBatchCount = 5, kLayoutBatchStride = 6;  // CUBLASLT_MATRIX_LAYOUT_*
constexpr int kPreferenceMaxWorkspace = 1;                    // CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES

std::optional<int> cuda_data_type(DType t) {
  switch (t) {
    case DType::F32: return kRealF32;
    case DType::F16: return kRealF16;
    case DType::BF16: return kRealBf16;
    default: return std::nullopt;
  }
}

// The row-major `rows` x `cols` view with strides (rs, cs) as cuBLASLt stores it so that the
// call's op gives its transpose (see the header): op N over a cols x rows column-major matrix
// when rows are contiguous, op T over the view itself when columns are.
std::optional<LtMatrix> stored_transpose(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  LtMatrix m;
  if (cs == 1 && rs >= std::max<int64_t>(1, cols)) {
    m.rows = cols, m.cols = rows, m.ld = rs;
  } else if (rs == 1 && cs >= std::max<int64_t>(1, rows)) {
    m.rows = rows, m.cols = cols, m.ld = cs, m.transposed = true;
  } else if (rows == 1 && cs == 1) {  // one row: any row stride
    m.rows = cols, m.cols = 1, m.ld = std::max<int64_t>(1, cols);
  } else if (cols == 1 && rs == 1) {  // one column: any column stride
    m.rows = rows, m.cols = 1, m.ld = std::max<int64_t>(1, rows), m.transposed = true;
  } else {
    return std::nullopt;
  }
  return m;
}

// The one stride that walks dims `sizes` (strides `strides`) in row-major order, when there is
// one: size-1 dims do not count, and all-zero strides (a broadcast) give 0.
std::optional<int64_t> collapsed_stride(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  int64_t stride = -1, inner = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    if (sizes[d] == 1) continue;
    if (stride < 0) stride = strides[d];
    if (strides[d] != stride * inner) return std::nullopt;
    inner *= sizes[d];
  }
  return std::max<int64_t>(stride, 0);
}

// "[a, b]"
std::string ints_text(const std::vector<int64_t>& v) {
  std::string text;
  for (int64_t x : v) text += (text.empty() ? "" : ", ") + std::to_string(x);
  return "[" + text + "]";
}

int64_t product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

// An operand or result: its sizes and strides split into leading dims and the last two.
struct View {
  int buffer = -1;
  int64_t offset = 0;
  std::vector<int64_t> sizes, strides;
  std::vector<int64_t> lead_sizes() const { return {sizes.begin(), sizes.end() - 2}; }
  std::vector<int64_t> lead_strides() const { return {strides.begin(), strides.end() - 2}; }
  int64_t rows() const { return sizes[sizes.size() - 2]; }
  int64_t cols() const { return sizes.back(); }
  int64_t row_stride() const { return strides[strides.size() - 2]; }
  int64_t col_stride() const { return strides.back(); }
};

// The strides of `v`'s leading dims aligned to the result's `batch` dims (a missing or size-1
// dim broadcasts: stride 0).
std::vector<int64_t> batch_strides(const View& v, const std::vector<int64_t>& batch) {
  std::vector<int64_t> strides(batch.size(), 0);
  const size_t lead = v.sizes.size() - 2;
  for (size_t j = 0; j < lead; ++j) strides[batch.size() - lead + j] = v.sizes[j] == 1 ? 0 : v.strides[j];
  return strides;
}

// The first of the result's batch dims from which every operand's dims collapse to one stride:
// the inner batch of one strided call; the dims before it are looped over, a call per index.
size_t inner_batch_start(const std::vector<int64_t>& batch, const std::vector<std::vector<int64_t>>& strides) {
  for (size_t start = 0;; ++start) {
    const std::vector<int64_t> inner(batch.begin() + static_cast<std::ptrdiff_t>(start), batch.end());
    const bool collapses = std::ranges::all_of(strides, [&](const std::vector<int64_t>& s) {
      return collapsed_stride(inner, {s.begin() + static_cast<std::ptrdiff_t>(start), s.end()}).has_value();
    });
    if (collapses) return start;  // at the latest batch.size(): no inner batch
  }
}

// D[batch..., m, n] = X[..., m, k] @ Y[..., k, n].
std::optional<LtMatmulPlan> plan_product(DType dtype, const View& x, const View& y, const View& out) {
  const std::vector<int64_t> batch = out.lead_sizes();
  if (x.sizes.size() - 2 > batch.size() || y.sizes.size() - 2 > batch.size()) return std::nullopt;
  std::optional<LtMatrix> a = stored_transpose(y.rows(), y.cols(), y.row_stride(), y.col_stride());
  std::optional<LtMatrix> b = stored_transpose(x.rows(), x.cols(), x.row_stride(), x.col_stride());
  std::optional<LtMatrix> d = stored_transpose(out.rows(), out.cols(), out.row_stride(), out.col_stride());
  if (!a || !b || !d || d->transposed) return std::nullopt;
  const std::vector<std::vector<int64_t>> strides = {batch_strides(y, batch), batch_strides(x, batch),
                                                     batch_strides(out, batch)};
  const size_t start = inner_batch_start(batch, strides);
  const auto inner = [&](const std::vector<int64_t>& v) {
    return std::vector<int64_t>(v.begin() + static_cast<std::ptrdiff_t>(start), v.end());
  };
  LtMatmulPlan plan;
  plan.dtype = dtype;
  plan.batch = product(inner(batch));
  plan.a = *a, plan.b = *b, plan.d = *d;
  const View* views[3] = {&y, &x, &out};
  LtMatrix* matrices[3] = {&plan.a, &plan.b, &plan.d};
  for (size_t i = 0; i < 3; ++i) {
    matrices[i]->buffer = views[i]->buffer;
    matrices[i]->offset = views[i]->offset;
    matrices[i]->batch_stride = *collapsed_stride(inner(batch), inner(strides[i]));
  }
  for (size_t dim = 0; dim < start; ++dim) {
    if (batch[dim] == 1) continue;
    plan.outer.push_back(batch[dim]);
    for (size_t i = 0; i < 3; ++i) matrices[i]->outer_strides.push_back(strides[i][dim]);
  }
  return plan;
}

View view_of_operand(const ExternOperand& o) { return View{o.buffer, o.offset, o.sizes, o.strides}; }

// linear's input [..., k] with its leading dims as rows (they must collapse to one stride).
std::optional<View> rows_of(const View& v) {
  if (v.sizes.size() < 2) return std::nullopt;
  const std::vector<int64_t> lead(v.sizes.begin(), v.sizes.end() - 1),
      lead_strides(v.strides.begin(), v.strides.end() - 1);
  std::optional<int64_t> stride = collapsed_stride(lead, lead_strides);
  if (!stride) return std::nullopt;
  return View{v.buffer, v.offset, {product(lead), v.sizes.back()}, {*stride, v.strides.back()}};
}

}  // namespace

std::string LtMatmulPlan::key() const {
  std::string text = std::string(dtype_name(dtype)) + " batch " + std::to_string(batch);
  if (!outer.empty()) text += " calls " + ints_text(outer);
  for (const LtMatrix* m : {&a, &b, &d})
    text += " [" + std::to_string(m->rows) + "x" + std::to_string(m->cols) + " ld " + std::to_string(m->ld) +
            (m->transposed ? " T" : " N") + " stride " + std::to_string(m->batch_stride) +
            (m->outer_strides.empty() ? "" : " outer " + ints_text(m->outer_strides)) + "]";
  return text + (bias >= 0 ? " bias" : "") + (c.buffer >= 0 ? " C" : "");
}

namespace {

double attr_or(const AttrMap& attrs, std::string_view name, double otherwise) {
  const AttrValue* v = attrs.find(name);
  return v && (v->is_int() || v->is_float()) ? v->as_float() : otherwise;
}

// Whether `o` is n contiguous elements: a bias over the result's columns.
bool is_bias(const ExternOperand& o, int64_t n) {
  return o.buffer >= 0 && o.sizes == std::vector<int64_t>{n} && o.strides == std::vector<int64_t>{1};
}

// linear: out = x @ w^T (+ bias), x's and out's leading dims as rows.
std::optional<LtMatmulPlan> plan_linear(const LoopKernel& k, DType dtype, const View& x, const View& w,
                                        const View& out) {
  if (w.sizes.size() != 2) return std::nullopt;
  const View wt{w.buffer, w.offset, {w.cols(), w.rows()}, {w.col_stride(), w.row_stride()}};
  std::optional<View> x_rows = rows_of(x), out_rows = rows_of(out);
  if (!x_rows || !out_rows) return std::nullopt;
  std::optional<LtMatmulPlan> plan = plan_product(dtype, *x_rows, wt, *out_rows);
  if (!plan || k.operands.size() == 2 || k.operands[2].buffer < 0) return plan;
  if (!is_bias(k.operands[2], w.rows())) return std::nullopt;
  plan->bias = k.operands[2].buffer;
  plan->bias_offset = k.operands[2].offset;
  return plan;
}

// addmm, baddbmm: alpha * (mat1 @ mat2) + beta * self (the reference kernel ignores self when
// beta is 0).
std::optional<LtMatmulPlan> plan_scaled(const LoopKernel& k, DType dtype, const View& out) {
  const View x = view_of_operand(k.operands[1]), y = view_of_operand(k.operands[2]);
  const ExternOperand& self = k.operands[0];
  if (x.buffer < 0 || y.buffer < 0 || x.sizes.size() < 2 || y.sizes.size() < 2 || x.cols() == 0 || self.buffer < 0)
    return std::nullopt;
  std::optional<LtMatmulPlan> plan = plan_product(dtype, x, y, out);
  if (!plan) return std::nullopt;
  const double alpha = attr_or(k.attrs, "alpha", 1.0), beta = attr_or(k.attrs, "beta", 1.0);
  plan->alpha = static_cast<float>(alpha);
  if (beta == 0) return plan;
  if (beta == 1 && is_bias(self, y.cols())) {
    plan->bias = self.buffer;
    plan->bias_offset = self.offset;
    return plan;
  }
  if (self.sizes != out.sizes || self.strides != out.strides) return std::nullopt;
  plan->c = plan->d;
  plan->c.buffer = self.buffer;
  plan->c.offset = self.offset;
  plan->beta = static_cast<float>(beta);
  return plan;
}

}  // namespace

std::vector<OpKind> host_copied_ops(const LoopProgram& p) {
  std::vector<OpKind> ops;
  for (const LoopKernel* k : flat_kernels(p))
    if (k->kind == KernelKind::Extern && !plan_lt_matmul(p, *k) &&
        std::find(ops.begin(), ops.end(), k->op) == ops.end())
      ops.push_back(k->op);
  return ops;
}

std::optional<LtMatmulPlan> plan_lt_matmul(const LoopProgram& p, const LoopKernel& k) {
  if (k.kind != KernelKind::Extern || k.results.size() != 1) return std::nullopt;
  const bool plain = k.op == OpKind::Matmul || k.op == OpKind::Mm || k.op == OpKind::Bmm;
  const bool scaled = k.op == OpKind::Addmm || k.op == OpKind::Baddbmm;
  const bool linear = k.op == OpKind::Linear;
  if (!(plain && k.operands.size() == 2) && !(scaled && k.operands.size() == 3) &&
      !(linear && (k.operands.size() == 2 || k.operands.size() == 3)))
    return std::nullopt;
  const Buffer& result = p.buffers[static_cast<size_t>(k.results[0])];
  for (const ExternOperand& o : k.operands)
    if (o.buffer >= 0 && p.buffers[static_cast<size_t>(o.buffer)].dtype != result.dtype) return std::nullopt;
  if (!cuda_data_type(result.dtype) || product(result.sizes) == 0) return std::nullopt;
  const View out{k.results[0], 0, result.sizes, result.strides};
  if (scaled) return plan_scaled(k, result.dtype, out);
  const View x = view_of_operand(k.operands[0]), w = view_of_operand(k.operands[1]);
  if (x.buffer < 0 || w.buffer < 0 || x.sizes.size() < 2 || w.sizes.size() < 2 || x.cols() == 0) return std::nullopt;
  if (linear) return plan_linear(k, result.dtype, x, w, out);
  return plan_product(result.dtype, x, w, out);
}

Expected<LtMatmul> LtMatmul::create(CublasLt& lt, const LtMatmulPlan& plan, bool tf32, uint64_t max_workspace_bytes) {
  const CublasLtApi& api = lt.api();
  LtMatmul m(lt, plan);
  const int type = *cuda_data_type(plan.dtype);
  const int compute = plan.dtype == DType::F32 && tf32 ? kComputeF32FastTf32 : kComputeF32;
  KILN_TRY(lt.check(api.desc_create(&m.desc_, compute, kRealF32), "cublasLtMatmulDescCreate"));
  const int32_t trans_a = plan.a.transposed, trans_b = plan.b.transposed;
  KILN_TRY(lt.check(api.desc_set(m.desc_, kDescTransA, &trans_a, sizeof trans_a), "cublasLtMatmulDescSetAttribute"));
  KILN_TRY(lt.check(api.desc_set(m.desc_, kDescTransB, &trans_b, sizeof trans_b), "cublasLtMatmulDescSetAttribute"));
  if (plan.bias >= 0) {
    const uint32_t epilogue = kEpilogueBias;
    const int32_t bias_type = type;
    KILN_TRY(
        lt.check(api.desc_set(m.desc_, kDescEpilogue, &epilogue, sizeof epilogue), "cublasLtMatmulDescSetAttribute"));
    KILN_TRY(lt.check(api.desc_set(m.desc_, kDescBiasDataType, &bias_type, sizeof bias_type),
                      "cublasLtMatmulDescSetAttribute"));
  }
  const LtMatrix* matrices[3] = {&plan.a, &plan.b, &plan.d};  // C, when there is one, is laid out as D
  for (int i = 0; i < 3; ++i) {
    const LtMatrix& x = *matrices[i];
    KILN_TRY(lt.check(
        api.layout_create(&m.layouts_[i], type, static_cast<uint64_t>(x.rows), static_cast<uint64_t>(x.cols), x.ld),
        "cublasLtMatrixLayoutCreate"));
    if (plan.batch == 1) continue;
    const int32_t count = static_cast<int32_t>(plan.batch);
    const int64_t stride = x.batch_stride;
    KILN_TRY(lt.check(api.layout_set(m.layouts_[i], kLayoutBatchCount, &count, sizeof count),
                      "cublasLtMatrixLayoutSetAttribute"));
    KILN_TRY(lt.check(api.layout_set(m.layouts_[i], kLayoutBatchStride, &stride, sizeof stride),
                      "cublasLtMatrixLayoutSetAttribute"));
  }
  const std::string key = plan.key() + (compute == kComputeF32FastTf32 ? " tf32" : "") + " workspace " +
                          std::to_string(max_workspace_bytes);
  if (lt.find_algorithm(key, m.algorithm_)) return m;
  CublasLtMatmulPreference preference = nullptr;
  KILN_TRY(lt.check(api.preference_create(&preference), "cublasLtMatmulPreferenceCreate"));
  Status set = lt.check(
      api.preference_set(preference, kPreferenceMaxWorkspace, &max_workspace_bytes, sizeof max_workspace_bytes),
      "cublasLtMatmulPreferenceSetAttribute");
  int found = 0;
  Status asked = set ? lt.check(api.heuristic(lt.handle(), m.desc_, m.layouts_[0], m.layouts_[1], m.layouts_[2],
                                              m.layouts_[2], preference, 1, &m.algorithm_, &found),
                                "cublasLtMatmulAlgoGetHeuristic", key)
                     : set;
  (void)api.preference_destroy(preference);
  KILN_TRY(asked);
  if (found == 0) return make_error("cuBLASLt has no algorithm for the matmul ", key);
  lt.keep_algorithm(key, m.algorithm_);
  return m;
}

LtMatmul::LtMatmul(LtMatmul&& other) noexcept
    : lt_(other.lt_), plan_(std::move(other.plan_)), desc_(other.desc_), algorithm_(other.algorithm_) {
  other.desc_ = nullptr;
  for (int i = 0; i < 3; ++i) layouts_[i] = other.layouts_[i], other.layouts_[i] = nullptr;
}

LtMatmul::~LtMatmul() {
  for (CublasLtMatrixLayout layout : layouts_)
    if (layout) (void)lt_->api().layout_destroy(layout);
  if (desc_) (void)lt_->api().desc_destroy(desc_);
}

Status LtMatmul::run(const Buffers& buffers, CuDevicePtr workspace, uint64_t workspace_bytes, CuStream stream) const {
  const CublasLtApi& api = lt_->api();
  const CuDevicePtr element = static_cast<CuDevicePtr>(dtype_size(plan_.dtype));
  auto at = [&](CuDevicePtr base, int64_t offset) {
    return reinterpret_cast<void*>(base + static_cast<CuDevicePtr>(offset) * element);
  };
  if (plan_.bias >= 0) {
    const void* pointer = at(buffers.bias, plan_.bias_offset);
    KILN_TRY(
        lt_->check(api.desc_set(desc_, kDescBiasPointer, &pointer, sizeof pointer), "cublasLtMatmulDescSetAttribute"));
  }
  // One call per index of the outer batch dims, row-major, each at its operands' offsets.
  const int64_t calls = product(plan_.outer);
  for (int64_t call = 0; call < calls; ++call) {
    const auto offset = [&](const LtMatrix& m) {
      int64_t off = m.offset, rest = call;
      for (size_t dim = plan_.outer.size(); dim-- > 0;) {
        off += (rest % plan_.outer[dim]) * m.outer_strides[dim];
        rest /= plan_.outer[dim];
      }
      return off;
    };
    void* out = at(buffers.d, offset(plan_.d));
    const void* c = plan_.c.buffer >= 0 ? at(buffers.c, offset(plan_.c)) : out;
    KILN_TRY(lt_->check(
        api.matmul(lt_->handle(), desc_, &plan_.alpha, at(buffers.a, offset(plan_.a)), layouts_[0],
                   at(buffers.b, offset(plan_.b)), layouts_[1], &plan_.beta, c, layouts_[2], out, layouts_[2],
                   &algorithm_.algo, reinterpret_cast<void*>(workspace), workspace_bytes, stream),
        "cublasLtMatmul", plan_.key()));
  }
  return Status::ok();
}

}  // namespace kiln
