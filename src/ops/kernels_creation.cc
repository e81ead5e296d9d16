// Reference kernels of the creation ops. Random ones draw from core/random.h with the
// node's `seed` and optional rng_state (ops/rng_state.h), so every backend produces the
// same numbers.
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>
#include <vector>

#include "core/random.h"
#include "ops/arange_count.h"
#include "ops/kernel_util.h"
#include "ops/kernels.h"
#include "ops/rng_state.h"

namespace kiln {

namespace {

std::vector<Tensor> one(Tensor t) { return std::vector<Tensor>{std::move(t)}; }

// The fill value fits the dtype: the dtype rules refuse one that does not (fill_value_fits).
Expected<std::vector<Tensor>> filled(const KernelCall& call, const Scalar& value) {
  const TensorType& rt = call.result_types[0];
  return one(Tensor::full(rt.shape.sizes(), value, rt.dtype));
}

}  // namespace

Expected<std::vector<Tensor>> kernel_full(const KernelCall& call) {
  return filled(call, call.attr_scalar("fill_value"));
}
Expected<std::vector<Tensor>> kernel_full_like(const KernelCall& call) {
  return filled(call, call.attr_scalar("fill_value"));
}
Expected<std::vector<Tensor>> kernel_zeros(const KernelCall& call) { return one(new_result(call)); }
Expected<std::vector<Tensor>> kernel_zeros_like(const KernelCall& call) { return one(new_result(call)); }
Expected<std::vector<Tensor>> kernel_ones(const KernelCall& call) { return filled(call, Scalar(int64_t{1})); }
Expected<std::vector<Tensor>> kernel_ones_like(const KernelCall& call) { return filled(call, Scalar(int64_t{1})); }

// Zero-filled, so runs are deterministic (torch leaves the memory uninitialized).
Expected<std::vector<Tensor>> kernel_empty(const KernelCall& call) { return one(new_result(call)); }

// Element i is start + i * step, computed in int64 when all three bounds are integers and
// the result is integral, else in double.
Expected<std::vector<Tensor>> kernel_arange(const KernelCall& call) {
  KILN_ASSIGN_OR_RETURN(int64_t n, arange_count(call));
  const Scalar start = call.attr_scalar("start"), step = call.attr_scalar("step");
  Tensor out = new_result(call);
  const bool int_path = !is_floating(out.dtype()) && !start.is_float() && !step.is_float();
  for (int64_t i = 0; i < n; ++i) {
    if (int_path)
      store_int(out.data_bytes(), out.dtype(), i, wrap_add(start.to_int(), wrap_mul(i, step.to_int())));
    else
      store_double(out.data_bytes(), out.dtype(), i, start.to_double() + static_cast<double>(i) * step.to_double());
  }
  return one(out);
}

Expected<std::vector<Tensor>> kernel_rand(const KernelCall& call) {
  const TensorType& rt = call.result_types[0];
  return one(Tensor::rand(rt.shape.sizes(), random_stream(call), rt.dtype));
}

Expected<std::vector<Tensor>> kernel_randn(const KernelCall& call) {
  const TensorType& rt = call.result_types[0];
  return one(Tensor::randn(rt.shape.sizes(), random_stream(call), rt.dtype));
}

Expected<std::vector<Tensor>> kernel_randint(const KernelCall& call) {
  const TensorType& rt = call.result_types[0];
  const int64_t low = call.attr_int("low"), high = call.attr_int("high");
  if (low >= high) return make_error(call.name(), ": low must be less than high, got low=", low, " >= high=", high);
  return one(Tensor::randint(low, high, rt.shape.sizes(), random_stream(call), rt.dtype));
}

// Fisher-Yates from the back: position i swaps with j = random_u64(stream, i) mod (i + 1).
Expected<std::vector<Tensor>> kernel_randperm(const KernelCall& call) {
  const int64_t n = call.attr_int("n");
  std::vector<int64_t> p(static_cast<size_t>(n));
  std::iota(p.begin(), p.end(), int64_t{0});
  const RandomStream stream = random_stream(call);
  for (int64_t i = n - 1; i > 0; --i) {
    const uint64_t j = random_u64(stream, static_cast<uint64_t>(i)) % static_cast<uint64_t>(i + 1);
    std::swap(p[static_cast<size_t>(i)], p[j]);
  }
  Tensor out = new_result(call);
  for (int64_t i = 0; i < n; ++i) store_int(out.data_bytes(), out.dtype(), i, p[static_cast<size_t>(i)]);
  return one(out);
}

}  // namespace kiln
