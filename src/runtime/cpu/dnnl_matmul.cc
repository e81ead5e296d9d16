#include "runtime/cpu/dnnl_matmul.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace kiln {

namespace {

using dnnl::memory;

// The three memory descriptors' dims and strides (elements) oneDNN is given for one call.
struct Shapes {
  memory::dims a_dims, a_strides, b_dims, b_strides, c_dims, c_strides;
  memory::dims bias_dims, bias_strides;  // empty: no bias
};

bool all_zero_strides(const Tensor& t) {
  return std::all_of(t.strides().begin(), t.strides().end(), [](int64_t s) { return s == 0; });
}

// `t`'s dims aligned to `rank` output dims: a missing or broadcast (stride 0) batch dim becomes
// a dim of 1 (oneDNN broadcasts it); its matrix dims are kept with their strides.
void aligned(const Tensor& t, int rank, memory::dims& dims, memory::dims& strides) {
  dims.assign(static_cast<size_t>(rank), 1);
  strides.assign(static_cast<size_t>(rank), 0);
  const int lead = rank - t.dim();
  for (int d = 0; d < t.dim(); ++d) {
    const size_t i = static_cast<size_t>(d);
    const bool broadcast = d < t.dim() - 2 && (t.sizes()[i] == 1 || t.strides()[i] == 0);
    dims[static_cast<size_t>(lead + d)] = broadcast ? 1 : t.sizes()[i];
    strides[static_cast<size_t>(lead + d)] = t.strides()[i];
  }
  // A dim of 1 has no step of its own: give it the extent of the dims inside it, as a
  // contiguous layout would (oneDNN checks strides of size-1 dims against the others).
  for (int d = rank - 3; d >= 0; --d) {
    const size_t i = static_cast<size_t>(d);
    if (dims[i] != 1) continue;
    int64_t extent = 1;
    for (size_t j = i + 1; j < dims.size(); ++j) extent = std::max(extent, strides[j] * dims[j]);
    strides[i] = extent;
  }
}

// The shapes for out = a @ b. A batch of row-major left operands times one unbatched right
// matrix (a linear layer's x @ w.T) flattens to a single 2-d product over every row.
Shapes shapes_of(const Tensor& a, const Tensor& b, const Tensor& out) {
  const int r = out.dim();
  Shapes s;
  aligned(a, r, s.a_dims, s.a_strides);
  aligned(b, r, s.b_dims, s.b_strides);
  s.c_dims.assign(out.sizes().begin(), out.sizes().end());
  s.c_strides.assign(out.strides().begin(), out.strides().end());
  bool b_batched = false;
  for (int d = 0; d < r - 2; ++d) b_batched = b_batched || s.b_dims[static_cast<size_t>(d)] != 1;
  bool a_flat = a.dim() == r && r > 2;
  for (int d = 0; a_flat && d < r - 2; ++d)
    a_flat = a.strides()[static_cast<size_t>(d)] ==
             a.strides()[static_cast<size_t>(d + 1)] * a.sizes()[static_cast<size_t>(d + 1)];
  if (b_batched || !a_flat) return s;
  int64_t rows = 1;
  for (int d = 0; d < r - 1; ++d) rows *= out.sizes()[static_cast<size_t>(d)];
  const size_t ri = static_cast<size_t>(r - 2), ci = static_cast<size_t>(r - 1);
  s.a_dims = {rows, s.a_dims[ci]};
  s.a_strides = {s.a_strides[ri], s.a_strides[ci]};
  s.b_dims = {s.b_dims[ri], s.b_dims[ci]};
  s.b_strides = {s.b_strides[ri], s.b_strides[ci]};
  s.c_dims = {rows, s.c_dims[ci]};
  s.c_strides = {s.c_strides[ri], s.c_strides[ci]};
  return s;
}

// The bias as a row broadcast over the result's other dims: [1, ..., 1, m].
void add_bias(Shapes& s, const Tensor& bias) {
  s.bias_dims.assign(s.c_dims.size(), 1);
  s.bias_dims.back() = bias.sizes()[0];
  s.bias_strides.assign(s.c_dims.size(), bias.sizes()[0] * bias.strides()[0]);
  s.bias_strides.back() = bias.strides()[0];
}

std::vector<int64_t> key_of(const Shapes& s) {
  std::vector<int64_t> key;
  for (const memory::dims* v :
       {&s.a_dims, &s.a_strides, &s.b_dims, &s.b_strides, &s.c_dims, &s.c_strides, &s.bias_dims, &s.bias_strides}) {
    key.push_back(static_cast<int64_t>(v->size()));
    key.insert(key.end(), v->begin(), v->end());
  }
  return key;
}

}  // namespace

struct DnnlMatmuls::Impl {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  mutable std::mutex mutex;
  // Per layout: its primitive, or nullopt when declined.
  std::map<std::vector<int64_t>, std::optional<dnnl::matmul>> primitives;

  std::optional<dnnl::matmul> make(const Shapes& s) const {
    const memory::desc a(s.a_dims, memory::data_type::f32, s.a_strides);
    const memory::desc b(s.b_dims, memory::data_type::f32, s.b_strides);
    const memory::desc c(s.c_dims, memory::data_type::f32, s.c_strides);
    const memory::desc bias =
        s.bias_dims.empty() ? memory::desc() : memory::desc(s.bias_dims, memory::data_type::f32, s.bias_strides);
    try {
#if DNNL_VERSION_MAJOR >= 3
      const dnnl::matmul::primitive_desc pd(engine, a, b, bias, c);
#else
      const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, b, bias, c), engine);
#endif
      // brgemm ("brg:avx512_core", ...) is the kernel that beats OpenBLAS; oneDNN's other
      // matmuls (its own GEMM, the reference loops) do not.
      if (!std::string_view(pd.impl_info_str()).starts_with("brg")) return std::nullopt;
      return dnnl::matmul(pd);
    } catch (const dnnl::error&) {
      return std::nullopt;  // no oneDNN kernel for this layout at all
    }
  }
};

DnnlMatmuls::DnnlMatmuls() : impl_(std::make_unique<Impl>()) {}
DnnlMatmuls::~DnnlMatmuls() = default;

bool DnnlMatmuls::run(OpKind op, const Tensor& a, const Tensor& b, const Tensor& out, const Tensor* bias) {
  if (op != OpKind::Matmul && op != OpKind::Mm && op != OpKind::Bmm) return false;
  if (a.dtype() != DType::F32 || b.dtype() != DType::F32 || out.dtype() != DType::F32) return false;
  if (a.dim() < 2 || b.dim() < 2 || out.dim() < 2 || !out.is_contiguous()) return false;
  if (a.dim() > out.dim() || b.dim() > out.dim() || out.dim() > DNNL_MAX_NDIMS) return false;
  for (const Tensor* t : {&a, &b, &out})
    for (int64_t s : t->sizes())
      if (s == 0) return false;
  if (a.sizes()[static_cast<size_t>(a.dim() - 1)] != b.sizes()[static_cast<size_t>(b.dim() - 2)]) return false;
  if (all_zero_strides(a) || all_zero_strides(b)) return false;
  const int64_t m = out.sizes()[static_cast<size_t>(out.dim() - 1)];
  // A dense bias only: oneDNN 2.6's brgemm matmul read a strided one as if it were dense.
  if (bias && (bias->dtype() != DType::F32 || bias->dim() != 1 || bias->sizes()[0] != m || bias->strides()[0] != 1))
    return false;
  Shapes s = shapes_of(a, b, out);
  if (bias) add_bias(s, *bias);
  const std::vector<int64_t> key = key_of(s);
  std::optional<dnnl::matmul> prim;
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    auto it = impl_->primitives.find(key);
    if (it == impl_->primitives.end()) it = impl_->primitives.emplace(key, impl_->make(s)).first;
    prim = it->second;
  }
  if (!prim) return false;
  // The memory objects only wrap the tensors' data (no copies); a stream per call keeps
  // concurrent runs apart.
  const dnnl::engine& e = impl_->engine;
  memory am(memory::desc(s.a_dims, memory::data_type::f32, s.a_strides), e, a.data<float>());
  memory bm(memory::desc(s.b_dims, memory::data_type::f32, s.b_strides), e, b.data<float>());
  memory cm(memory::desc(s.c_dims, memory::data_type::f32, s.c_strides), e, out.data<float>());
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}};
  if (bias)
    args.emplace(DNNL_ARG_BIAS,
                 memory(memory::desc(s.bias_dims, memory::data_type::f32, s.bias_strides), e, bias->data<float>()));
  dnnl::stream stream(e);
  prim->execute(stream, args);
  stream.wait();
  return true;
}

int DnnlMatmuls::primitives() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return static_cast<int>(std::count_if(impl_->primitives.begin(), impl_->primitives.end(),
                                        [](const auto& p) { return p.second.has_value(); }));
}

int DnnlMatmuls::declined() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return static_cast<int>(std::count_if(impl_->primitives.begin(), impl_->primitives.end(),
                                        [](const auto& p) { return !p.second.has_value(); }));
}

}  // namespace kiln
