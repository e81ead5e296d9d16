// The user-facing op API: one free function per op of ops.def that a model calls, named and
// parameterized like ATen's (`add(a, b, alpha)`, `sum(x, {1}, true)`), plus operators.
// Each runs eagerly on concrete tensors and records a node inside capture() (dispatch.h);
// arguments left at their defaults are not recorded. Errors throw kiln::Error (error.h).
// Optional tensor arguments take an undefined Tensor (`{}`) for "none".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "frontend/error.h"

namespace kiln {

// A tensor or a number, for operands that accept either: `mul(x, 0.5)` records the number
// inline as `mul(%x, 0.5)`.
class TensorOrScalar {
 public:
  TensorOrScalar(const Tensor& t) : tensor_(t) {}  // NOLINT: implicit on purpose
  TensorOrScalar(Scalar s) : scalar_(s) {}          // NOLINT
  TensorOrScalar(double v) : scalar_(v) {}          // NOLINT
  TensorOrScalar(int v) : scalar_(v) {}             // NOLINT
  TensorOrScalar(int64_t v) : scalar_(v) {}         // NOLINT
  TensorOrScalar(bool v) : scalar_(v) {}            // NOLINT

  bool is_tensor() const { return tensor_.defined(); }
  const Tensor& tensor() const { return tensor_; }
  const Scalar& scalar() const { return scalar_; }

 private:
  Tensor tensor_;
  Scalar scalar_;
};

using IntList = std::vector<int64_t>;

// ---- elementwise unary ----
Tensor neg(const Tensor& x);
Tensor abs(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor log1p(const Tensor& x);
Tensor expm1(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor rsqrt(const Tensor& x);
Tensor reciprocal(const Tensor& x);
Tensor sin(const Tensor& x);
Tensor cos(const Tensor& x);
Tensor tan(const Tensor& x);
Tensor atan(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor relu(const Tensor& x);
Tensor gelu(const Tensor& x, const std::string& approximate = "none");
Tensor silu(const Tensor& x);
Tensor erf(const Tensor& x);
Tensor sign(const Tensor& x);
Tensor floor(const Tensor& x);
Tensor ceil(const Tensor& x);
Tensor round(const Tensor& x, int64_t decimals = 0);
Tensor trunc(const Tensor& x);
Tensor logical_not(const Tensor& x);
Tensor isnan(const Tensor& x);
Tensor isinf(const Tensor& x);
Tensor isfinite(const Tensor& x);
Tensor bitwise_not(const Tensor& x);
Tensor leaky_relu(const Tensor& x, Scalar negative_slope = 0.01);
Tensor softplus(const Tensor& x, Scalar beta = 1, Scalar threshold = 20);
Tensor elu(const Tensor& x, Scalar alpha = 1, Scalar scale = 1, Scalar input_scale = 1);
Tensor hardtanh(const Tensor& x, Scalar min_val = -1, Scalar max_val = 1);

// ---- elementwise binary (broadcasting, type promotion) ----
Tensor add(const Tensor& x, const TensorOrScalar& other, Scalar alpha = 1);
Tensor sub(const Tensor& x, const TensorOrScalar& other, Scalar alpha = 1);
Tensor mul(const Tensor& x, const TensorOrScalar& other);
Tensor div(const Tensor& x, const TensorOrScalar& other, std::optional<std::string> rounding_mode = std::nullopt);
Tensor pow(const Tensor& x, const TensorOrScalar& exponent);
Tensor pow(Scalar x, const Tensor& exponent);
Tensor maximum(const Tensor& x, const Tensor& other);
Tensor minimum(const Tensor& x, const Tensor& other);
Tensor remainder(const Tensor& x, const TensorOrScalar& other);
Tensor fmod(const Tensor& x, const TensorOrScalar& other);
Tensor atan2(const Tensor& x, const Tensor& other);
Tensor eq(const Tensor& x, const TensorOrScalar& other);
Tensor ne(const Tensor& x, const TensorOrScalar& other);
Tensor lt(const Tensor& x, const TensorOrScalar& other);
Tensor le(const Tensor& x, const TensorOrScalar& other);
Tensor gt(const Tensor& x, const TensorOrScalar& other);
Tensor ge(const Tensor& x, const TensorOrScalar& other);
Tensor logical_and(const Tensor& x, const Tensor& other);
Tensor logical_or(const Tensor& x, const Tensor& other);
Tensor logical_xor(const Tensor& x, const Tensor& other);
Tensor bitwise_and(const Tensor& x, const TensorOrScalar& other);
Tensor bitwise_or(const Tensor& x, const TensorOrScalar& other);
Tensor bitwise_xor(const Tensor& x, const TensorOrScalar& other);
Tensor bitwise_left_shift(const Tensor& x, const TensorOrScalar& other);
Tensor bitwise_right_shift(const Tensor& x, const TensorOrScalar& other);

// ---- elementwise with three operands ----
Tensor where(const Tensor& condition, const TensorOrScalar& x, const TensorOrScalar& other);
Tensor clamp(const Tensor& x, Scalar min = Scalar::none(), Scalar max = Scalar::none());
Tensor lerp(const Tensor& x, const Tensor& end, const TensorOrScalar& weight);
Tensor addcmul(const Tensor& x, const Tensor& tensor1, const Tensor& tensor2, Scalar value = 1);
Tensor addcdiv(const Tensor& x, const Tensor& tensor1, const Tensor& tensor2, Scalar value = 1);

// ---- operators: a + b, a - 1.0, 2 * a, -a ----
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
Tensor sum(const Tensor& x, IntList dim = {}, bool keepdim = false, std::optional<DType> dtype = std::nullopt);
Tensor mean(const Tensor& x, IntList dim = {}, bool keepdim = false, std::optional<DType> dtype = std::nullopt);
Tensor prod(const Tensor& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
            std::optional<DType> dtype = std::nullopt);
Tensor amax(const Tensor& x, IntList dim = {}, bool keepdim = false);
Tensor amin(const Tensor& x, IntList dim = {}, bool keepdim = false);
// `correction` none means 1 (Bessel's correction), as in torch.
Tensor var(const Tensor& x, IntList dim = {}, Scalar correction = Scalar::none(), bool keepdim = false);
Tensor std(const Tensor& x, IntList dim = {}, Scalar correction = Scalar::none(), bool keepdim = false);
Tensor argmax(const Tensor& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor argmin(const Tensor& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor logsumexp(const Tensor& x, IntList dim, bool keepdim = false);
Tensor any(const Tensor& x, IntList dim = {}, bool keepdim = false);
Tensor all(const Tensor& x, IntList dim = {}, bool keepdim = false);
Tensor cumsum(const Tensor& x, int64_t dim, std::optional<DType> dtype = std::nullopt);

// ---- linear algebra ----
Tensor mm(const Tensor& x, const Tensor& mat2);
Tensor bmm(const Tensor& x, const Tensor& mat2);
Tensor matmul(const Tensor& x, const Tensor& other);
Tensor addmm(const Tensor& x, const Tensor& mat1, const Tensor& mat2, Scalar beta = 1, Scalar alpha = 1);
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = {});
Tensor baddbmm(const Tensor& x, const Tensor& batch1, const Tensor& batch2, Scalar beta = 1, Scalar alpha = 1);

// ---- views and layout ----
Tensor reshape(const Tensor& x, IntList shape);
Tensor view(const Tensor& x, IntList size);
Tensor permute(const Tensor& x, IntList dims);
Tensor transpose(const Tensor& x, int64_t dim0, int64_t dim1);
Tensor t(const Tensor& x);
Tensor expand(const Tensor& x, IntList size);
Tensor squeeze(const Tensor& x, std::optional<IntList> dim = std::nullopt);
Tensor unsqueeze(const Tensor& x, int64_t dim);
Tensor flatten(const Tensor& x, int64_t start_dim = 0, int64_t end_dim = -1);
Tensor slice(const Tensor& x, int64_t dim = 0, std::optional<int64_t> start = std::nullopt,
             std::optional<int64_t> end = std::nullopt, int64_t step = 1);
Tensor select(const Tensor& x, int64_t dim, int64_t index);
Tensor narrow(const Tensor& x, int64_t dim, int64_t start, int64_t length);
std::vector<Tensor> split(const Tensor& x, int64_t split_size, int64_t dim = 0);
std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim = 0);
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim = 0);
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim = 0);
Tensor constant_pad_nd(const Tensor& x, IntList pad, Scalar value = 0);
Tensor flip(const Tensor& x, IntList dims);
Tensor roll(const Tensor& x, IntList shifts, IntList dims = {});
Tensor repeat(const Tensor& x, IntList repeats);
Tensor tril(const Tensor& x, int64_t diagonal = 0);
Tensor triu(const Tensor& x, int64_t diagonal = 0);
Tensor clone(const Tensor& x);
Tensor contiguous(const Tensor& x);
Tensor to(const Tensor& x, DType dtype);  // recorded as _to_copy

// ---- indexing (undefined entries of `indices` stand for none, i.e. `:`) ----
Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index);
Tensor gather(const Tensor& x, int64_t dim, const Tensor& index);
Tensor scatter(const Tensor& x, int64_t dim, const Tensor& index, const TensorOrScalar& src);
Tensor scatter_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src);
Tensor index(const Tensor& x, const std::vector<Tensor>& indices);
Tensor index_put(const Tensor& x, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate = false);
Tensor index_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source, Scalar alpha = 1);
Tensor masked_fill(const Tensor& x, const Tensor& mask, const TensorOrScalar& value);
Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx = -1);

// ---- normalization and losses ----
Tensor softmax(const Tensor& x, int64_t dim, std::optional<DType> dtype = std::nullopt);
Tensor log_softmax(const Tensor& x, int64_t dim, std::optional<DType> dtype = std::nullopt);
Tensor layer_norm(const Tensor& input, IntList normalized_shape, const Tensor& weight = {}, const Tensor& bias = {},
                  double eps = 1e-05);
Tensor rms_norm(const Tensor& input, IntList normalized_shape, const Tensor& weight = {},
                std::optional<double> eps = std::nullopt);
Tensor batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                  const Tensor& running_var, bool training = false, double momentum = 0.1, double eps = 1e-05);
Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight = {}, const Tensor& bias = {},
                  double eps = 1e-05);
Tensor nll_loss(const Tensor& x, const Tensor& target, const Tensor& weight = {}, const std::string& reduction = "mean",
                int64_t ignore_index = -100);
Tensor cross_entropy(const Tensor& x, const Tensor& target, const Tensor& weight = {},
                     const std::string& reduction = "mean", int64_t ignore_index = -100, double label_smoothing = 0.0);
Tensor mse_loss(const Tensor& x, const Tensor& target, const std::string& reduction = "mean");

// ---- neural-network ops ----
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntList stride = {1, 1},
              IntList padding = {0, 0}, IntList dilation = {1, 1}, int64_t groups = 1);
Tensor max_pool2d(const Tensor& x, IntList kernel_size, IntList stride = {}, IntList padding = {0, 0},
                  IntList dilation = {1, 1}, bool ceil_mode = false);
Tensor avg_pool2d(const Tensor& x, IntList kernel_size, IntList stride = {}, IntList padding = {0, 0},
                  bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);
Tensor adaptive_avg_pool2d(const Tensor& x, IntList output_size);
// Random: the mask is drawn from `seed` (core/random.h), so runs are reproducible.
Tensor dropout(const Tensor& input, double p, bool train, int64_t seed = 0);
Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& attn_mask = {}, double dropout_p = 0.0, bool is_causal = false,
                                    std::optional<double> scale = std::nullopt, int64_t seed = 0);

// ---- creation (random ones take an explicit seed) ----
Tensor full(IntList size, Scalar fill_value, std::optional<DType> dtype = std::nullopt);
Tensor zeros(IntList size, std::optional<DType> dtype = std::nullopt);
Tensor ones(IntList size, std::optional<DType> dtype = std::nullopt);
Tensor empty(IntList size, std::optional<DType> dtype = std::nullopt);
Tensor arange(Scalar end, std::optional<DType> dtype = std::nullopt);
Tensor arange(Scalar start, Scalar end, Scalar step = 1, std::optional<DType> dtype = std::nullopt);
Tensor rand(IntList size, int64_t seed, std::optional<DType> dtype = std::nullopt);
Tensor randn(IntList size, int64_t seed, std::optional<DType> dtype = std::nullopt);
Tensor randint(int64_t low, int64_t high, IntList size, int64_t seed, std::optional<DType> dtype = std::nullopt);
Tensor randperm(int64_t n, int64_t seed, std::optional<DType> dtype = std::nullopt);
Tensor full_like(const Tensor& x, Scalar fill_value, std::optional<DType> dtype = std::nullopt);
Tensor zeros_like(const Tensor& x, std::optional<DType> dtype = std::nullopt);
Tensor ones_like(const Tensor& x, std::optional<DType> dtype = std::nullopt);

// ---- in place: write `x` and return it ----
Tensor add_(const Tensor& x, const TensorOrScalar& other, Scalar alpha = 1);
Tensor sub_(const Tensor& x, const TensorOrScalar& other, Scalar alpha = 1);
Tensor mul_(const Tensor& x, const TensorOrScalar& other);
Tensor div_(const Tensor& x, const TensorOrScalar& other, std::optional<std::string> rounding_mode = std::nullopt);
Tensor copy_(const Tensor& x, const Tensor& src);
Tensor fill_(const Tensor& x, const TensorOrScalar& value);
Tensor zero_(const Tensor& x);
Tensor relu_(const Tensor& x);
Tensor clamp_(const Tensor& x, Scalar min = Scalar::none(), Scalar max = Scalar::none());
Tensor masked_fill_(const Tensor& x, const Tensor& mask, const TensorOrScalar& value);
Tensor index_put_(const Tensor& x, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate = false);

}  // namespace kiln
