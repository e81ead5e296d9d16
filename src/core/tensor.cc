#include "core/tensor.h"

#include <cmath>
#include <cstring>

#include "core/checked_layout.h"
#include "core/element.h"
#include "core/random.h"
#include "support/error.h"

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

// Throws a misuse of Tensor::`what` ("zeros", "size(3)") as kiln::Error.
template <typename... Args>
[[noreturn]] void fail(std::string_view what, Args&&... args) {
  throw Error(make_error("Tensor::", what, ": ", std::forward<Args>(args)...));
}

// Storage::copy_bytes, its error a misuse of Tensor::`what`.
void copy_storage_bytes(const char* what, Storage& to, const Storage& from, int64_t from_element, DType dtype,
                        size_t nbytes) {
  try {
    Storage::copy_bytes(to, 0, from, static_cast<size_t>(from_element * dtype_size(dtype)), nbytes);
  } catch (const Error& e) {
    fail(what, e.diagnostic().message());
  }
}

}  // namespace

void Tensor::fail_undefined(const char* what) {
  fail(what, "the tensor is undefined (a default-constructed Tensor holds no value)");
}

void Tensor::require_concrete(const char* what) const {
  if (!defined()) fail_undefined(what);
  if (is_traced())
    fail(what, "the tensor is traced (", type().to_string(),
         ") and has no value: inside capture() a tensor stands for a value computed when the graph runs, so C++ "
         "cannot read or branch on its data; data-dependent control flow needs kiln::cond or kiln::while_loop");
}

void Tensor::require_static_shape(const char* what) const {
  if (!defined()) fail_undefined(what);
  if (is_traced() && !traced_shape_.is_static())
    fail(what, "the traced tensor's shape ", traced_shape_.to_string(),
         " is symbolic: its sizes are known only when the graph runs (shape() gives the dims; reshape and view take "
         "-1)");
}

void Tensor::require_host(const char* what) const {
  require_concrete(what);
  if (!storage_->device().is_cpu())
    fail(what, "the tensor is on ", storage_->device().to_string(),
         ", and this reads its elements on the host: copy it there first with .to(Device::cpu())");
}

Status require_on_host(const Tensor& t, std::string_view what, std::string_view reader) {
  if (!t.defined() || t.is_traced() || t.device().is_cpu()) return Status::ok();
  return make_error(what, " is on ", t.device().to_string(), ", and ", reader,
                    " reads host memory only: pass it .to(Device::cpu())");
}

int64_t Tensor::element_offset(int64_t flat, const char* what) const {
  require_host(what);
  const int64_t n = numel();
  if (flat < 0 || flat >= n) fail(what, "element ", flat, " is out of range for a tensor of ", n, " elements");
  return strided_offset(sizes_, strides_, flat);
}

Tensor Tensor::allocate(const char* what, const std::vector<int64_t>& sizes, DType dtype, Device device) {
  Expected<int64_t> bytes = contiguous_bytes(sizes, dtype);
  if (!bytes) fail(what, bytes.error().message());
  Tensor t;
  t.dtype_ = dtype;
  t.sizes_ = sizes;
  t.strides_ = contiguous_strides(sizes);
  try {
    t.storage_ = std::make_shared<Storage>(static_cast<size_t>(*bytes), device);
  } catch (const std::bad_alloc&) {
    fail(what, "out of memory: cannot allocate ", *bytes, " bytes for ", dtype_name(dtype), int_list_text(sizes),
         " (this machine has ", Storage::machine_memory(), " bytes of memory and swap)");
  } catch (const Error& e) {  // the device's (core/storage.h)
    fail(what, e.diagnostic().message(), " (for ", dtype_name(dtype), int_list_text(sizes), ")");
  }
  return t;
}

Tensor Tensor::empty(const std::vector<int64_t>& sizes, DType dtype) { return allocate("empty", sizes, dtype); }

Tensor Tensor::zeros(const std::vector<int64_t>& sizes, DType dtype) { return allocate("zeros", sizes, dtype); }

Tensor Tensor::full(const std::vector<int64_t>& sizes, Scalar value, DType dtype) {
  if (value.is_none()) fail("full", "the fill value is none");
  Tensor t = allocate("full", sizes, dtype);
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

// A tensor holding `values`, one per element of `sizes`, each stored by `store`.
template <typename T, typename Store>
Tensor Tensor::from_values(const char* what, const std::vector<T>& values, const std::vector<int64_t>& sizes,
                           DType dtype, Store store) {
  Tensor t = allocate(what, sizes, dtype);
  if (static_cast<int64_t>(values.size()) != t.numel())
    fail(what, values.size(), " values for ", t.numel(), " elements (sizes ", int_list_text(sizes), ")");
  for (size_t i = 0; i < values.size(); ++i) store(t.data_bytes(), dtype, static_cast<int64_t>(i), values[i]);
  return t;
}

Tensor Tensor::from_doubles(const std::vector<double>& values, const std::vector<int64_t>& sizes, DType dtype) {
  return from_values("from_doubles", values, sizes, dtype, store_double);
}

Tensor Tensor::from_ints(const std::vector<int64_t>& values, const std::vector<int64_t>& sizes, DType dtype) {
  return from_values("from_ints", values, sizes, dtype, store_int);
}

Tensor Tensor::rand(const std::vector<int64_t>& sizes, uint64_t seed, DType dtype) {
  return rand(sizes, RandomStream{seed, 0}, dtype);
}

Tensor Tensor::rand(const std::vector<int64_t>& sizes, RandomStream stream, DType dtype) {
  if (!is_floating(dtype)) fail("rand", "draws floating values, not ", dtype_name(dtype), " (randint draws integers)");
  Tensor t = allocate("rand", sizes, dtype);
  for (int64_t i = 0; i < t.numel(); ++i)
    store_double(t.data_bytes(), dtype, i, uniform_double(stream, static_cast<uint64_t>(i), uniform_bits(dtype)));
  return t;
}

Tensor Tensor::randn(const std::vector<int64_t>& sizes, uint64_t seed, DType dtype) {
  return randn(sizes, RandomStream{seed, 0}, dtype);
}

Tensor Tensor::randn(const std::vector<int64_t>& sizes, RandomStream stream, DType dtype) {
  if (!is_floating(dtype)) fail("randn", "draws floating values, not ", dtype_name(dtype), " (randint draws integers)");
  Tensor t = allocate("randn", sizes, dtype);
  for (int64_t i = 0; i < t.numel(); ++i)
    store_double(t.data_bytes(), dtype, i, normal_double(stream, static_cast<uint64_t>(i)));
  return t;
}

Tensor Tensor::randint(int64_t low, int64_t high, const std::vector<int64_t>& sizes, uint64_t seed, DType dtype) {
  return randint(low, high, sizes, RandomStream{seed, 0}, dtype);
}

Tensor Tensor::randint(int64_t low, int64_t high, const std::vector<int64_t>& sizes, RandomStream stream, DType dtype) {
  if (high <= low) fail("randint", "the range [", low, ", ", high, ") is empty");
  Tensor t = allocate("randint", sizes, dtype);
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

int Tensor::dim() const {
  if (!defined()) fail_undefined("dim");
  return is_traced() ? traced_shape_.rank() : static_cast<int>(sizes_.size());
}

int64_t Tensor::size(int64_t dim) const {
  const std::optional<int> d = wrap_dim(dim, this->dim());
  if (!d || this->dim() == 0)
    fail("size(" + std::to_string(dim) + ")", "dim ", dim, " is out of range for a tensor of rank ", this->dim());
  if (is_traced() && traced_shape_[*d].is_symbolic())
    fail("size(" + std::to_string(dim) + ")", "the traced tensor's dim ", *d, " is the symbolic size ",
         traced_shape_[*d].to_string(),
         ", known only when the graph runs (shape() gives the dims; reshape and view take -1)");
  return sizes_[static_cast<size_t>(*d)];
}

int64_t Tensor::numel() const {
  if (!storage_) require_static_shape("numel");
  return product(sizes_);
}

Shape Tensor::shape() const {
  if (!defined()) fail_undefined("shape");
  return is_traced() ? traced_shape_ : Shape::from_sizes(sizes_);
}

bool Tensor::is_contiguous() const {
  require_concrete("is_contiguous");
  return strides_ == contiguous_strides(sizes_) || numel() <= 1;
}

Device Tensor::device() const {
  require_concrete("device");
  return storage_->device();
}

std::byte* Tensor::data_bytes() const {
  require_host("data");
  return address();
}

std::byte* Tensor::address() const {
  require_concrete("address");
  return storage_->address() + offset_ * dtype_size(dtype_);
}

double Tensor::item_double(int64_t flat) const {
  const int64_t off = element_offset(flat, "item_double");
  return load_double(data_bytes(), dtype_, off);
}

int64_t Tensor::item_int(int64_t flat) const {
  const int64_t off = element_offset(flat, "item_int");
  return load_int(data_bytes(), dtype_, off);
}

Scalar Tensor::item() const {
  require_host("item");
  if (numel() != 1)
    fail("item", "the tensor has ", numel(), " elements (sizes ", int_list_text(sizes_),
         "); item() reads a tensor of exactly one");
  if (dtype_ == DType::Bool) return Scalar(item_int() != 0);
  if (is_floating(dtype_)) return Scalar(item_double());
  return Scalar(item_int());
}

Tensor Tensor::over_storage(std::shared_ptr<Storage> storage, DType dtype, std::vector<int64_t> sizes,
                            std::vector<int64_t> strides, int64_t offset) {
  if (!storage) fail("over_storage", "the storage is null");
  if (Status fits = check_view_fits(sizes, strides, offset, dtype, storage->nbytes()); !fits)
    fail("over_storage", fits.error().message());
  Tensor t;
  t.storage_ = std::move(storage);
  t.dtype_ = dtype;
  t.sizes_ = std::move(sizes);
  t.strides_ = std::move(strides);
  t.offset_ = offset;
  return t;
}

Tensor Tensor::as_strided(std::vector<int64_t> sizes, std::vector<int64_t> strides, int64_t offset) const {
  require_concrete("as_strided");
  if (Status fits = check_view_fits(sizes, strides, offset, dtype_, storage_->nbytes()); !fits)
    fail("as_strided", fits.error().message());
  Tensor t = *this;
  t.sizes_ = std::move(sizes);
  t.strides_ = std::move(strides);
  t.offset_ = offset;
  return t;
}

Tensor Tensor::contiguous() const { return is_contiguous() ? *this : clone(); }

Tensor Tensor::clone() const {
  require_concrete("clone");
  if (!is_contiguous()) require_host("clone");  // a packed device tensor is copied on its device
  Tensor t = allocate("clone", sizes_, dtype_, device());
  if (device().is_cpu())
    t.copy_from(*this);
  else
    copy_storage_bytes("clone", *t.storage_, *storage_, offset_, dtype_, t.storage_->nbytes());
  return t;
}

Tensor Tensor::to(DType dtype) const {
  require_concrete("to");
  if (dtype == dtype_) return *this;
  require_host("to");
  Tensor t = allocate("to", sizes_, dtype);
  t.copy_from(*this);
  return t;
}

Tensor Tensor::to(Device device) const {
  require_concrete("to");
  if (device == this->device()) return *this;
  if (!device.is_cpu() && !this->device().is_cpu()) return to(Device::cpu()).to(device);
  if (!is_contiguous()) return device.is_cpu() ? reached_bytes_on_host().contiguous() : contiguous().to(device);
  Tensor t = allocate("to", sizes_, dtype_, device);
  copy_storage_bytes("to", *t.storage_, *storage_, offset_, dtype_, t.storage_->nbytes());
  return t;
}

Tensor Tensor::reached_bytes_on_host() const {
  int64_t lo = offset_, hi = offset_;
  for (size_t d = 0; d < sizes_.size(); ++d) {
    if (sizes_[d] == 0) return allocate("to", sizes_, dtype_);
    const int64_t reach = (sizes_[d] - 1) * strides_[d];
    (reach < 0 ? lo : hi) += reach;
  }
  Tensor host = allocate("to", {hi - lo + 1}, dtype_);
  copy_storage_bytes("to", *host.storage_, *storage_, lo, dtype_, host.storage_->nbytes());
  return host.as_strided(sizes_, strides_, offset_ - lo);
}

void Tensor::copy_from(const Tensor& src) {
  require_host("copy_from");
  src.require_host("copy_from");
  if (src.sizes_ != sizes_)
    fail("copy_from", "the source has sizes ", int_list_text(src.sizes_), ", the destination ", int_list_text(sizes_));
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
  require_host("equal");
  other.require_host("equal");
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
