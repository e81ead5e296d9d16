#include "fuzz/fuzz_inputs.h"

#include <cmath>
#include <limits>

#include "core/random.h"

namespace kiln::fuzz {
namespace {

// Values where kernels go wrong, for a floating dtype (its largest finite magnitude is at
// least 6e4, its subnormals start below 6e-5).
double special_float(uint64_t pick, DType t) {
  const double tiny = t == DType::F16 ? 3e-6 : t == DType::F32 || t == DType::BF16 ? 1e-39 : 1e-310;
  const double values[] = {0.0, -0.0, 1.0, -1.0, 6e4, -6e4, tiny, INFINITY, -INFINITY, NAN};
  return values[pick % std::size(values)];
}

int64_t extreme_int(uint64_t pick, DType t) {
  const int bits = dtype_size(t) * 8;
  const int64_t max = t == DType::U8 ? 255
                      : bits == 64   ? std::numeric_limits<int64_t>::max()
                                     : (int64_t{1} << (bits - 1)) - 1;
  const int64_t min = t == DType::U8 ? 0 : -max - 1;
  const int64_t values[] = {min, max, min + 1, max - 1};
  return values[pick % std::size(values)];
}

Tensor input_for(const TensorType& type, RandomStream stream, const InputOptions& options) {
  const std::vector<int64_t> sizes = type.shape.sizes();
  const int64_t n = type.shape.numel();
  auto draw = [&](int64_t i, uint64_t which) { return random_u64(stream, static_cast<uint64_t>(4 * i) + which); };
  if (is_floating(type.dtype)) {
    std::vector<double> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
      v[static_cast<size_t>(i)] = options.special_values && draw(i, 0) % 8 == 0
                                      ? special_float(draw(i, 1), type.dtype)
                                      : normal_double(stream, static_cast<uint64_t>(4 * i + 2));
    return Tensor::from_doubles(v, sizes, type.dtype);
  }
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t r = draw(i, 0);
    if (type.dtype == DType::Bool)
      v[static_cast<size_t>(i)] = static_cast<int64_t>(r & 1);
    else if (options.special_values && r % 32 == 0)
      v[static_cast<size_t>(i)] = extreme_int(draw(i, 1), type.dtype);
    else
      v[static_cast<size_t>(i)] = static_cast<int64_t>(draw(i, 1) % 16) - (is_signed(type.dtype) ? 8 : 0);
  }
  return Tensor::from_ints(v, sizes, type.dtype);
}

}  // namespace

std::vector<Tensor> fuzz_inputs(const Graph& g, uint64_t seed, const InputOptions& options) {
  std::vector<Tensor> inputs;
  for (int i = 0; i < g.num_inputs(); ++i)
    inputs.push_back(input_for(g.input(i)->type(), RandomStream{seed, static_cast<uint64_t>(i) + 1}, options));
  return inputs;
}

}  // namespace kiln::fuzz
