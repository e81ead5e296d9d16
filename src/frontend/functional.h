// The user-facing op API: one free function per op of ops.def that a model calls, named and
// parameterized like ATen's (`add(a, b, alpha)`, `sum(x, {1}, true)`), plus operators.
// Each runs eagerly on concrete tensors and records a node inside capture() (dispatch.h);
// arguments left at their defaults are not recorded. Errors throw kiln::Error (error.h).
// Optional tensor arguments take an undefined Tensor (`{}`) for "none".
// The trailing `loc` is the caller's line (core/tensor.h's CallSite): a captured node keeps
// it and an eager error starts with it. Operators cannot take one, so `a + b` records none.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "support/error.h"

namespace kiln {

// A tensor or a number, for operands that accept either: `mul(x, 0.5)` records the number
// inline as `mul(%x, 0.5)`.
class TensorOrScalar {
 public:
  TensorOrScalar(const Tensor& t) : tensor_(t) {}  // NOLINT: implicit on purpose
  TensorOrScalar(Scalar s) : scalar_(s) {}         // NOLINT
  TensorOrScalar(double v) : scalar_(v) {}         // NOLINT
  TensorOrScalar(int v) : scalar_(v) {}            // NOLINT
  TensorOrScalar(int64_t v) : scalar_(v) {}        // NOLINT
  TensorOrScalar(bool v) : scalar_(v) {}           // NOLINT

  bool is_tensor() const { return tensor_.defined(); }
  const Tensor& tensor() const { return tensor_; }
  const Scalar& scalar() const { return scalar_; }

 private:
  Tensor tensor_;
  Scalar scalar_;
};

using IntList = std::vector<int64_t>;

// ---- elementwise unary ----
Tensor neg(const Tensor& x, CallSite loc = CallSite::current());
Tensor abs(const Tensor& x, CallSite loc = CallSite::current());
Tensor exp(const Tensor& x, CallSite loc = CallSite::current());
Tensor log(const Tensor& x, CallSite loc = CallSite::current());
Tensor log1p(const Tensor& x, CallSite loc = CallSite::current());
Tensor expm1(const Tensor& x, CallSite loc = CallSite::current());
Tensor sqrt(const Tensor& x, CallSite loc = CallSite::current());
Tensor rsqrt(const Tensor& x, CallSite loc = CallSite::current());
Tensor reciprocal(const Tensor& x, CallSite loc = CallSite::current());
Tensor sin(const Tensor& x, CallSite loc = CallSite::current());
Tensor cos(const Tensor& x, CallSite loc = CallSite::current());
Tensor tan(const Tensor& x, CallSite loc = CallSite::current());
Tensor atan(const Tensor& x, CallSite loc = CallSite::current());
Tensor tanh(const Tensor& x, CallSite loc = CallSite::current());
Tensor sigmoid(const Tensor& x, CallSite loc = CallSite::current());
Tensor relu(const Tensor& x, CallSite loc = CallSite::current());
Tensor gelu(const Tensor& x, const std::string& approximate = "none", CallSite loc = CallSite::current());
Tensor silu(const Tensor& x, CallSite loc = CallSite::current());
Tensor erf(const Tensor& x, CallSite loc = CallSite::current());
Tensor sign(const Tensor& x, CallSite loc = CallSite::current());
Tensor floor(const Tensor& x, CallSite loc = CallSite::current());
Tensor ceil(const Tensor& x, CallSite loc = CallSite::current());
Tensor round(const Tensor& x, int64_t decimals = 0, CallSite loc = CallSite::current());
Tensor trunc(const Tensor& x, CallSite loc = CallSite::current());
Tensor logical_not(const Tensor& x, CallSite loc = CallSite::current());
Tensor isnan(const Tensor& x, CallSite loc = CallSite::current());
Tensor isinf(const Tensor& x, CallSite loc = CallSite::current());
Tensor isfinite(const Tensor& x, CallSite loc = CallSite::current());
Tensor bitwise_not(const Tensor& x, CallSite loc = CallSite::current());
Tensor leaky_relu(const Tensor& x, Scalar negative_slope = 0.01, CallSite loc = CallSite::current());
Tensor softplus(const Tensor& x, Scalar beta = 1, Scalar threshold = 20, CallSite loc = CallSite::current());
Tensor elu(const Tensor& x, Scalar alpha = 1, Scalar scale = 1, Scalar input_scale = 1,
           CallSite loc = CallSite::current());
Tensor hardtanh(const Tensor& x, Scalar min_val = -1, Scalar max_val = 1, CallSite loc = CallSite::current());

// ---- elementwise binary (broadcasting, type promotion) ----
Tensor add(const Tensor& x, const TensorOrScalar& other, Scalar alpha = 1, CallSite loc = CallSite::current());
Tensor sub(const Tensor& x, const TensorOrScalar& other, Scalar alpha = 1, CallSite loc = CallSite::current());
Tensor mul(const Tensor& x, const TensorOrScalar& other, CallSite loc = CallSite::current());
Tensor div(const Tensor& x, const TensorOrScalar& other, std::optional<std::string> rounding_mode = std::nullopt,
           CallSite loc = CallSite::current());
Tensor pow(const Tensor& x, const TensorOrScalar& exponent, CallSite loc = CallSite::current());
Tensor pow(Scalar x, const Tensor& exponent, CallSite loc = CallSite::current());
Tensor maximum(const Tensor& x, const Tensor& other, CallSite loc = CallSite::current());
Tensor minimum(const Tensor& x, const Tensor& other, CallSite loc = CallSite::current());
Tensor remainder(const Tensor& x, const TensorOrScalar& other, CallSite loc = CallSite::current());
Tensor fmod(const Tensor& x, const TensorOrScalar& other, CallSite loc = CallSite::current());
Tensor atan2(const Tensor& x, const Tensor& other, CallSite loc = CallSite::current());
Tensor eq(const Tensor& x, const TensorOrScalar& other, CallSite loc = CallSite::current());
Tensor ne(const Tensor& x, const TensorOrScalar& other, CallSite loc = CallSite::current());
Tensor lt(const Tensor& x, const TensorOrScalar& other, CallSite loc = CallSite::current());
Tensor le(const Tensor& x, const TensorOrScalar& other, CallSite loc = CallSite::current());
Tensor gt(const Tensor& x, const TensorOrScalar& other, CallSite loc = CallSite::current());
Tensor ge(const Tensor& x, const TensorOrScalar& other, CallSite loc = CallSite::current());
Tensor logical_and(const Tensor& x, const Tensor& other, CallSite loc = CallSite::current());
Tensor logical_or(const Tensor& x, const Tensor& other, CallSite loc = CallSite::current());
Tensor logical_xor(const Tensor& x, const Tensor& other, CallSite loc = CallSite::current());
Tensor bitwise_and(const Tensor& x, const TensorOrScalar& other, CallSite loc = CallSite::current());
Tensor bitwise_or(const Tensor& x, const TensorOrScalar& other, CallSite loc = CallSite::current());
Tensor bitwise_xor(const Tensor& x, const TensorOrScalar& other, CallSite loc = CallSite::current());
Tensor bitwise_left_shift(const Tensor& x, const TensorOrScalar& other, CallSite loc = CallSite::current());
Tensor bitwise_right_shift(const Tensor& x, const TensorOrScalar& other, CallSite loc = CallSite::current());

// ---- elementwise with three operands ----
Tensor where(const Tensor& condition, const TensorOrScalar& x, const TensorOrScalar& other,
             CallSite loc = CallSite::current());
Tensor clamp(const Tensor& x, Scalar min = Scalar::none(), Scalar max = Scalar::none(),
             CallSite loc = CallSite::current());
Tensor lerp(const Tensor& x, const Tensor& end, const TensorOrScalar& weight, CallSite loc = CallSite::current());
Tensor addcmul(const Tensor& x, const Tensor& tensor1, const Tensor& tensor2, Scalar value = 1,
               CallSite loc = CallSite::current());
Tensor addcdiv(const Tensor& x, const Tensor& tensor1, const Tensor& tensor2, Scalar value = 1,
               CallSite loc = CallSite::current());

// ---- operators: a + b, a - 1.0, 2 * a, -a (with no call site: operators take no `loc`) ----
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, Scalar b);
Tensor operator+(Scalar a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, Scalar b);
Tensor operator-(Scalar a, const Tensor& b);  // recorded as add(neg(b), a)
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, Scalar b);
Tensor operator*(Scalar a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, Scalar b);
Tensor operator/(Scalar a, const Tensor& b);  // recorded as mul(reciprocal(b), a)
Tensor operator-(const Tensor& a);

// ---- reductions (an empty `dim` reduces every dim) ----
Tensor sum(const Tensor& x, IntList dim = {}, bool keepdim = false, std::optional<DType> dtype = std::nullopt,
           CallSite loc = CallSite::current());
Tensor mean(const Tensor& x, IntList dim = {}, bool keepdim = false, std::optional<DType> dtype = std::nullopt,
            CallSite loc = CallSite::current());
Tensor prod(const Tensor& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
            std::optional<DType> dtype = std::nullopt, CallSite loc = CallSite::current());
Tensor amax(const Tensor& x, IntList dim = {}, bool keepdim = false, CallSite loc = CallSite::current());
Tensor amin(const Tensor& x, IntList dim = {}, bool keepdim = false, CallSite loc = CallSite::current());
// `correction` none means 1 (Bessel's correction), as in torch.
Tensor var(const Tensor& x, IntList dim = {}, Scalar correction = Scalar::none(), bool keepdim = false,
           CallSite loc = CallSite::current());
Tensor std(const Tensor& x, IntList dim = {}, Scalar correction = Scalar::none(), bool keepdim = false,
           CallSite loc = CallSite::current());
Tensor argmax(const Tensor& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
              CallSite loc = CallSite::current());
Tensor argmin(const Tensor& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
              CallSite loc = CallSite::current());
Tensor logsumexp(const Tensor& x, IntList dim, bool keepdim = false, CallSite loc = CallSite::current());
Tensor any(const Tensor& x, IntList dim = {}, bool keepdim = false, CallSite loc = CallSite::current());
Tensor all(const Tensor& x, IntList dim = {}, bool keepdim = false, CallSite loc = CallSite::current());
Tensor cumsum(const Tensor& x, int64_t dim, std::optional<DType> dtype = std::nullopt,
              CallSite loc = CallSite::current());
// topk and sort return {values, indices} (ops.def: ties in index order, NaN the largest).
std::vector<Tensor> topk(const Tensor& x, int64_t k, int64_t dim = -1, bool largest = true, bool sorted = true,
                         CallSite loc = CallSite::current());
std::vector<Tensor> sort(const Tensor& x, int64_t dim = -1, bool descending = false, bool stable = false,
                         CallSite loc = CallSite::current());
Tensor histc(const Tensor& x, int64_t bins = 100, Scalar min = 0, Scalar max = 0, CallSite loc = CallSite::current());

// ---- linear algebra ----
Tensor mm(const Tensor& x, const Tensor& mat2, CallSite loc = CallSite::current());
Tensor bmm(const Tensor& x, const Tensor& mat2, CallSite loc = CallSite::current());
Tensor matmul(const Tensor& x, const Tensor& other, CallSite loc = CallSite::current());
Tensor addmm(const Tensor& x, const Tensor& mat1, const Tensor& mat2, Scalar beta = 1, Scalar alpha = 1,
             CallSite loc = CallSite::current());
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, CallSite loc = CallSite::current());
Tensor baddbmm(const Tensor& x, const Tensor& batch1, const Tensor& batch2, Scalar beta = 1, Scalar alpha = 1,
               CallSite loc = CallSite::current());

// ---- views and layout ----
Tensor reshape(const Tensor& x, IntList shape, CallSite loc = CallSite::current());
Tensor view(const Tensor& x, IntList size, CallSite loc = CallSite::current());
Tensor permute(const Tensor& x, IntList dims, CallSite loc = CallSite::current());
Tensor transpose(const Tensor& x, int64_t dim0, int64_t dim1, CallSite loc = CallSite::current());
Tensor t(const Tensor& x, CallSite loc = CallSite::current());
Tensor expand(const Tensor& x, IntList size, CallSite loc = CallSite::current());
Tensor squeeze(const Tensor& x, std::optional<IntList> dim = std::nullopt, CallSite loc = CallSite::current());
Tensor unsqueeze(const Tensor& x, int64_t dim, CallSite loc = CallSite::current());
Tensor flatten(const Tensor& x, int64_t start_dim = 0, int64_t end_dim = -1, CallSite loc = CallSite::current());
Tensor slice(const Tensor& x, int64_t dim = 0, std::optional<int64_t> start = std::nullopt,
             std::optional<int64_t> end = std::nullopt, int64_t step = 1, CallSite loc = CallSite::current());
Tensor select(const Tensor& x, int64_t dim, int64_t index, CallSite loc = CallSite::current());
Tensor narrow(const Tensor& x, int64_t dim, int64_t start, int64_t length, CallSite loc = CallSite::current());
std::vector<Tensor> split(const Tensor& x, int64_t split_size, int64_t dim = 0, CallSite loc = CallSite::current());
std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim = 0, CallSite loc = CallSite::current());
// A view of x's storage (offsets count from the storage's first element; none: x's own).
Tensor as_strided(const Tensor& x, IntList size, IntList stride, std::optional<int64_t> storage_offset = std::nullopt,
                  CallSite loc = CallSite::current());
// View inverses: a copy of x with the elements the view would show replaced by src.
Tensor slice_scatter(const Tensor& x, const Tensor& src, int64_t dim = 0, std::optional<int64_t> start = std::nullopt,
                     std::optional<int64_t> end = std::nullopt, int64_t step = 1, CallSite loc = CallSite::current());
Tensor select_scatter(const Tensor& x, const Tensor& src, int64_t dim, int64_t index,
                      CallSite loc = CallSite::current());
Tensor as_strided_scatter(const Tensor& x, const Tensor& src, IntList size, IntList stride,
                          std::optional<int64_t> storage_offset = std::nullopt, CallSite loc = CallSite::current());
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim = 0, CallSite loc = CallSite::current());
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim = 0, CallSite loc = CallSite::current());
Tensor constant_pad_nd(const Tensor& x, IntList pad, Scalar value = 0, CallSite loc = CallSite::current());
Tensor flip(const Tensor& x, IntList dims, CallSite loc = CallSite::current());
Tensor roll(const Tensor& x, IntList shifts, IntList dims = {}, CallSite loc = CallSite::current());
Tensor repeat(const Tensor& x, IntList repeats, CallSite loc = CallSite::current());
Tensor tril(const Tensor& x, int64_t diagonal = 0, CallSite loc = CallSite::current());
Tensor triu(const Tensor& x, int64_t diagonal = 0, CallSite loc = CallSite::current());
Tensor clone(const Tensor& x, CallSite loc = CallSite::current());
Tensor contiguous(const Tensor& x, CallSite loc = CallSite::current());
Tensor to(const Tensor& x, DType dtype, CallSite loc = CallSite::current());  // recorded as _to_copy

// ---- indexing (undefined entries of `indices` stand for none, i.e. `:`) ----
Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index, CallSite loc = CallSite::current());
Tensor gather(const Tensor& x, int64_t dim, const Tensor& index, CallSite loc = CallSite::current());
Tensor scatter(const Tensor& x, int64_t dim, const Tensor& index, const TensorOrScalar& src,
               CallSite loc = CallSite::current());
Tensor scatter_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src,
                   CallSite loc = CallSite::current());
Tensor index(const Tensor& x, const std::vector<Tensor>& indices, CallSite loc = CallSite::current());
Tensor index_put(const Tensor& x, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate = false,
                 CallSite loc = CallSite::current());
Tensor index_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source, Scalar alpha = 1,
                 CallSite loc = CallSite::current());
Tensor masked_fill(const Tensor& x, const Tensor& mask, const TensorOrScalar& value,
                   CallSite loc = CallSite::current());
Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx = -1,
                 CallSite loc = CallSite::current());

// ---- normalization and losses ----
Tensor softmax(const Tensor& x, int64_t dim, std::optional<DType> dtype = std::nullopt,
               CallSite loc = CallSite::current());
Tensor log_softmax(const Tensor& x, int64_t dim, std::optional<DType> dtype = std::nullopt,
                   CallSite loc = CallSite::current());
Tensor layer_norm(const Tensor& input, IntList normalized_shape, const Tensor& weight = {}, const Tensor& bias = {},
                  double eps = 1e-05, CallSite loc = CallSite::current());
Tensor rms_norm(const Tensor& input, IntList normalized_shape, const Tensor& weight = {},
                std::optional<double> eps = std::nullopt, CallSite loc = CallSite::current());
Tensor batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                  const Tensor& running_var, bool training = false, double momentum = 0.1, double eps = 1e-05,
                  CallSite loc = CallSite::current());
Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight = {}, const Tensor& bias = {},
                  double eps = 1e-05, CallSite loc = CallSite::current());
Tensor nll_loss(const Tensor& x, const Tensor& target, const Tensor& weight = {}, const std::string& reduction = "mean",
                int64_t ignore_index = -100, CallSite loc = CallSite::current());
Tensor cross_entropy(const Tensor& x, const Tensor& target, const Tensor& weight = {},
                     const std::string& reduction = "mean", int64_t ignore_index = -100, double label_smoothing = 0.0,
                     CallSite loc = CallSite::current());
Tensor mse_loss(const Tensor& x, const Tensor& target, const std::string& reduction = "mean",
                CallSite loc = CallSite::current());

// ---- neural-network ops ----
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntList stride = {1, 1},
              IntList padding = {0, 0}, IntList dilation = {1, 1}, int64_t groups = 1,
              CallSite loc = CallSite::current());
Tensor max_pool2d(const Tensor& x, IntList kernel_size, IntList stride = {}, IntList padding = {0, 0},
                  IntList dilation = {1, 1}, bool ceil_mode = false, CallSite loc = CallSite::current());
Tensor avg_pool2d(const Tensor& x, IntList kernel_size, IntList stride = {}, IntList padding = {0, 0},
                  bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt, CallSite loc = CallSite::current());
Tensor adaptive_avg_pool2d(const Tensor& x, IntList output_size, CallSite loc = CallSite::current());
// Bilinear resize of a 4-D [N, C, H, W] to output_size [OH, OW], as F.interpolate(mode="bilinear").
Tensor upsample_bilinear2d(const Tensor& x, IntList output_size, bool align_corners = false,
                           CallSite loc = CallSite::current());
// Random: the mask is drawn from `seed` (core/random.h), so runs are reproducible. With
// `rng_state`, an i64[2] tensor (seed, offset), the mask is drawn from that runtime state
// mixed with `seed` (ops.def): the same state gives the same mask, a new offset a new one.
Tensor dropout(const Tensor& input, double p, bool train, int64_t seed = 0, CallSite loc = CallSite::current());
Tensor dropout(const Tensor& input, double p, bool train, const Tensor& rng_state, int64_t seed = 0,
               CallSite loc = CallSite::current());
Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& attn_mask = {}, double dropout_p = 0.0, bool is_causal = false,
                                    std::optional<double> scale = std::nullopt, int64_t seed = 0,
                                    CallSite loc = CallSite::current());

// ---- creation (random ones take an explicit seed) ----
Tensor full(IntList size, Scalar fill_value, std::optional<DType> dtype = std::nullopt,
            CallSite loc = CallSite::current());
Tensor zeros(IntList size, std::optional<DType> dtype = std::nullopt, CallSite loc = CallSite::current());
Tensor ones(IntList size, std::optional<DType> dtype = std::nullopt, CallSite loc = CallSite::current());
Tensor empty(IntList size, std::optional<DType> dtype = std::nullopt, CallSite loc = CallSite::current());
Tensor arange(Scalar end, std::optional<DType> dtype = std::nullopt, CallSite loc = CallSite::current());
Tensor arange(Scalar start, Scalar end, Scalar step = 1, std::optional<DType> dtype = std::nullopt,
              CallSite loc = CallSite::current());
Tensor rand(IntList size, int64_t seed, std::optional<DType> dtype = std::nullopt, CallSite loc = CallSite::current());
Tensor randn(IntList size, int64_t seed, std::optional<DType> dtype = std::nullopt, CallSite loc = CallSite::current());
Tensor randint(int64_t low, int64_t high, IntList size, int64_t seed, std::optional<DType> dtype = std::nullopt,
               CallSite loc = CallSite::current());
Tensor randperm(int64_t n, int64_t seed, std::optional<DType> dtype = std::nullopt, CallSite loc = CallSite::current());
Tensor full_like(const Tensor& x, Scalar fill_value, std::optional<DType> dtype = std::nullopt,
                 CallSite loc = CallSite::current());
Tensor zeros_like(const Tensor& x, std::optional<DType> dtype = std::nullopt, CallSite loc = CallSite::current());
Tensor ones_like(const Tensor& x, std::optional<DType> dtype = std::nullopt, CallSite loc = CallSite::current());

// ---- in place: write `x` and return it ----
Tensor add_(const Tensor& x, const TensorOrScalar& other, Scalar alpha = 1, CallSite loc = CallSite::current());
Tensor sub_(const Tensor& x, const TensorOrScalar& other, Scalar alpha = 1, CallSite loc = CallSite::current());
Tensor mul_(const Tensor& x, const TensorOrScalar& other, CallSite loc = CallSite::current());
Tensor div_(const Tensor& x, const TensorOrScalar& other, std::optional<std::string> rounding_mode = std::nullopt,
            CallSite loc = CallSite::current());
Tensor copy_(const Tensor& x, const Tensor& src, CallSite loc = CallSite::current());
Tensor fill_(const Tensor& x, const TensorOrScalar& value, CallSite loc = CallSite::current());
Tensor zero_(const Tensor& x, CallSite loc = CallSite::current());
Tensor relu_(const Tensor& x, CallSite loc = CallSite::current());
Tensor clamp_(const Tensor& x, Scalar min = Scalar::none(), Scalar max = Scalar::none(),
              CallSite loc = CallSite::current());
Tensor masked_fill_(const Tensor& x, const Tensor& mask, const TensorOrScalar& value,
                    CallSite loc = CallSite::current());
Tensor index_put_(const Tensor& x, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate = false,
                  CallSite loc = CallSite::current());

}  // namespace kiln
