#include "core/tensor.h"

#include <cmath>
#include <cstring>

#include "core/element.h"
#include "core/random.h"
#include "support/check.h"

namespace kiln {

std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> strides(sizes.size());
  int64_t s = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = s;
    s *= std::max<int64_t>(sizes[i], 1);
  }
  return strides;
}

namespace {

int64_t product(const std::vector<int64_t>& v) {
  int64_t n = 1;
  for (int64_t x : v) n *= x;
  return n;
}

// Storage offset (in elements, relative to the view's offset) of row-major element `flat`.
int64_t strided_offset(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides, int64_t flat) {
  int64_t off = 0;
  for (size_t i = sizes.size(); i-- > 0;) {
    int64_t idx = flat % sizes[i];
    flat /= sizes[i];
    off += idx * strides[i];
  }
  return off;
}

}  // namespace

Tensor Tensor::empty(const std::vector<int64_t>& sizes, DType dtype) {
  for (int64_t s : sizes) KILN_CHECK(s >= 0) << "negative size in Tensor::empty";
  Tensor t;
  t.dtype_ = dtype;
  t.sizes_ = sizes;
  t.strides_ = contiguous_strides(sizes);
  t.storage_ = std::make_shared<Storage>(static_cast<size_t>(product(sizes)) * static_cast<size_t>(dtype_size(dtype)));
  return t;
}

Tensor Tensor::zeros(const std::vector<int64_t>& sizes, DType dtype) { return empty(sizes, dtype); }

Tensor Tensor::full(const std::vector<int64_t>& sizes, Scalar value, DType dtype) {
  Tensor t = empty(sizes, dtype);
  int64_t n = t.numel();
  std::byte* base = t.data_bytes();
  for (int64_t i = 0; i < n; ++i) {
    if (value.is_float())
      store_double(base, dtype, i, value.to_double());
    else
      store_int(base, dtype, i, value.to_int());
  }
  return t;
}

Tensor Tensor::scalar(Scalar value, DType dtype) { return full({}, value, dtype); }

Tensor Tensor::from_doubles(const std::vector<double>& values, const std::vector<int64_t>& sizes, DType dtype) {
  Tensor t = empty(sizes, dtype);
  KILN_CHECK(static_cast<int64_t>(values.size()) == t.numel()) << "from_doubles: " << values.size() << " values for "
                                                               << t.numel() << " elements";
  for (size_t i = 0; i < values.size(); ++i) store_double(t.data_bytes(), dtype, static_cast<int64_t>(i), values[i]);
  return t;
}

Tensor Tensor::from_ints(const std::vector<int64_t>& values, const std::vector<int64_t>& sizes, DType dtype) {
  Tensor t = empty(sizes, dtype);
  KILN_CHECK(static_cast<int64_t>(values.size()) == t.numel()) << "from_ints: " << values.size() << " values for "
                                                               << t.numel() << " elements";
  for (size_t i = 0; i < values.size(); ++i) store_int(t.data_bytes(), dtype, static_cast<int64_t>(i), values[i]);
  return t;
}

Tensor Tensor::rand(const std::vector<int64_t>& sizes, uint64_t seed, DType dtype) {
  return rand(sizes, RandomStream{seed, 0}, dtype);
}

Tensor Tensor::rand(const std::vector<int64_t>& sizes, RandomStream stream, DType dtype) {
  Tensor t = empty(sizes, dtype);
  for (int64_t i = 0; i < t.numel(); ++i)
    store_double(t.data_bytes(), dtype, i, uniform_double(stream, static_cast<uint64_t>(i), uniform_bits(dtype)));
  return t;
}

Tensor Tensor::randn(const std::vector<int64_t>& sizes, uint64_t seed, DType dtype) {
  return randn(sizes, RandomStream{seed, 0}, dtype);
}

Tensor Tensor::randn(const std::vector<int64_t>& sizes, RandomStream stream, DType dtype) {
  Tensor t = empty(sizes, dtype);
  for (int64_t i = 0; i < t.numel(); ++i) store_double(t.data_bytes(), dtype, i, normal_double(stream, static_cast<uint64_t>(i)));
  return t;
}

Tensor Tensor::randint(int64_t low, int64_t high, const std::vector<int64_t>& sizes, uint64_t seed, DType dtype) {
  return randint(low, high, sizes, RandomStream{seed, 0}, dtype);
}

Tensor Tensor::randint(int64_t low, int64_t high, const std::vector<int64_t>& sizes, RandomStream stream, DType dtype) {
  KILN_CHECK(high > low) << "randint: empty range";
  Tensor t = empty(sizes, dtype);
  uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  for (int64_t i = 0; i < t.numel(); ++i)
    store_int(t.data_bytes(), dtype, i,
              static_cast<int64_t>(static_cast<uint64_t>(low) + random_u64(stream, static_cast<uint64_t>(i)) % range));
  return t;
}

Tensor Tensor::traced(TensorType type, std::shared_ptr<TraceHandle> handle) {
  Tensor t;
  t.dtype_ = type.dtype;
  t.traced_shape_ = type.shape;
  for (const Dim& d : type.shape.dims()) t.sizes_.push_back(d.is_static() ? d.value() : -1);
  t.trace_ = std::move(handle);
  return t;
}

int64_t Tensor::size(int64_t dim) const {
  auto d = wrap_dim(dim, this->dim());
  KILN_CHECK(d.has_value() && this->dim() > 0) << "size(" << dim << ") of a " << this->dim() << "-d tensor";
  return sizes_[static_cast<size_t>(*d)];
}

int64_t Tensor::numel() const { return product(sizes_); }

Shape Tensor::shape() const { return is_traced() ? traced_shape_ : Shape::from_sizes(sizes_); }

bool Tensor::is_contiguous() const { return strides_ == contiguous_strides(sizes_) || numel() <= 1; }

std::byte* Tensor::data_bytes() const {
  KILN_CHECK(storage_ != nullptr) << "data of a traced or undefined tensor";
  return storage_->data() + offset_ * dtype_size(dtype_);
}

double Tensor::item_double(int64_t flat) const {
  return load_double(data_bytes(), dtype_, strided_offset(sizes_, strides_, flat));
}

int64_t Tensor::item_int(int64_t flat) const { return load_int(data_bytes(), dtype_, strided_offset(sizes_, strides_, flat)); }

Scalar Tensor::item() const {
  KILN_CHECK(numel() == 1) << "item() of a tensor with " << numel() << " elements";
  if (dtype_ == DType::Bool) return Scalar(item_int() != 0);
  if (is_floating(dtype_)) return Scalar(item_double());
  return Scalar(item_int());
}

Tensor Tensor::over_storage(std::shared_ptr<Storage> storage, DType dtype, std::vector<int64_t> sizes,
                            std::vector<int64_t> strides, int64_t offset) {
  KILN_CHECK(storage != nullptr && sizes.size() == strides.size()) << "over_storage: no storage or rank mismatch";
  int64_t last = offset;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0) last = offset - 1;
    if (last < offset) break;
    last += (sizes[d] - 1) * strides[d];
  }
  KILN_CHECK(offset >= 0 && (last < offset || (last + 1) * dtype_size(dtype) <= static_cast<int64_t>(storage->nbytes())))
      << "over_storage: the layout lies outside the storage";
  Tensor t;
  t.storage_ = std::move(storage);
  t.dtype_ = dtype;
  t.sizes_ = std::move(sizes);
  t.strides_ = std::move(strides);
  t.offset_ = offset;
  return t;
}

Tensor Tensor::as_strided(std::vector<int64_t> sizes, std::vector<int64_t> strides, int64_t offset) const {
  KILN_CHECK(storage_ != nullptr) << "as_strided of a traced tensor";
  KILN_CHECK(sizes.size() == strides.size()) << "as_strided: rank mismatch";
  Tensor t = *this;
  t.sizes_ = std::move(sizes);
  t.strides_ = std::move(strides);
  t.offset_ = offset;
  return t;
}

Tensor Tensor::contiguous() const { return is_contiguous() ? *this : clone(); }

Tensor Tensor::clone() const {
  Tensor t = empty(sizes_, dtype_);
  t.copy_from(*this);
  return t;
}

Tensor Tensor::to(DType dtype) const {
  if (dtype == dtype_) return *this;
  Tensor t = empty(sizes_, dtype);
  t.copy_from(*this);
  return t;
}

void Tensor::copy_from(const Tensor& src) {
  KILN_CHECK(src.sizes_ == sizes_) << "copy_from: size mismatch";
  int64_t n = numel();
  std::byte* dst_base = data_bytes();
  const std::byte* src_base = src.data_bytes();
  bool float_path = is_floating(src.dtype_);
  for (int64_t i = 0; i < n; ++i) {
    int64_t so = strided_offset(src.sizes_, src.strides_, i);
    int64_t d = strided_offset(sizes_, strides_, i);
    if (float_path)
      store_double(dst_base, dtype_, d, load_double(src_base, src.dtype_, so));
    else
      store_int(dst_base, dtype_, d, load_int(src_base, src.dtype_, so));
  }
}

bool Tensor::equal(const Tensor& other) const {
  if (dtype_ != other.dtype_ || sizes_ != other.sizes_) return false;
  int64_t n = numel();
  for (int64_t i = 0; i < n; ++i) {
    if (is_floating(dtype_)) {
      double a = item_double(i), b = other.item_double(i);
      if (std::isnan(a) && std::isnan(b)) continue;
      if (std::memcmp(&a, &b, sizeof(double)) != 0) return false;
    } else if (item_int(i) != other.item_int(i)) {
      return false;
    }
  }
  return true;
}

}  // namespace kiln
