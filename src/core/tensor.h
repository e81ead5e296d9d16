// Tensor: a strided view (sizes, strides, offset in elements) of a shared Storage.
// A tensor is concrete (it has storage), traced (inside `capture` it stands for an IR value
// and carries only its type; frontend/trace.h defines the TraceHandle) or undefined (a
// default-constructed Tensor, which functions taking an optional tensor read as none).
// The op methods at the bottom (x.sum(...), x.reshape(...)) are defined by the frontend
// library, which runs them eagerly or records them when tracing.
//
// Misuse is a kiln::Error (support/error.h) naming the call, never an abort or a read out of
// bounds: a negative size, a tensor larger than 1 TiB or than this machine's memory, values
// that do not match the sizes, an element index out of range, a view outside its storage.
// What each kind of tensor answers:
//   undefined: defined(), is_traced(), trace(), storage() (null) and to_string(); every other
//     accessor throws, so that an undefined tensor never passes for a 0-d one.
//   traced: dtype(), dim(), shape(), type(); sizes(), size(d) and numel() where the shape is
//     static (a symbolic dim has no value until the graph runs); nothing about layout or
//     values: data, item and copies throw, saying that a traced tensor has no value and that
//     data-dependent control flow needs kiln::cond or kiln::while_loop.
//   concrete on a device (device() is not the CPU, made by to(Device::cuda())): every view, and
//     to(), cpu(), cuda(), clone() of a contiguous one; whatever reads elements on the host (data,
//     item, equal, copy_from, to(DType), to_string) throws, telling the user to call
//     .to(Device::cpu()) first.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/call_site.h"
#include "core/dtype.h"
#include "core/random.h"
#include "core/scalar.h"
#include "core/shape.h"
#include "core/storage.h"
#include "core/tensor_type.h"
#include "support/diagnostic.h"

namespace kiln {

struct TraceHandle;

class Tensor {
 public:
  Tensor() = default;  // undefined

  // ---- creation (concrete) ----
  static Tensor empty(const std::vector<int64_t>& sizes, DType dtype = kDefaultFloat);
  // A view of `storage` (elements of `dtype` from element `offset`); the layout must lie
  // inside it (else kiln::Error).
  static Tensor over_storage(std::shared_ptr<Storage> storage, DType dtype, std::vector<int64_t> sizes,
                             std::vector<int64_t> strides, int64_t offset);
  static Tensor zeros(const std::vector<int64_t>& sizes, DType dtype = kDefaultFloat);
  static Tensor full(const std::vector<int64_t>& sizes, Scalar value, DType dtype = kDefaultFloat);
  static Tensor scalar(Scalar value, DType dtype);  // 0-d
  // Values given as doubles (or int64 for integral dtypes) are converted to `dtype`; there must
  // be one per element.
  static Tensor from_doubles(const std::vector<double>& values, const std::vector<int64_t>& sizes,
                             DType dtype = kDefaultFloat);
  static Tensor from_ints(const std::vector<int64_t>& values, const std::vector<int64_t>& sizes,
                          DType dtype = DType::I64);
  // Seeded, counter-based (random.h): the same seed gives the same numbers everywhere. A
  // seed s draws the stream {s, 0}.
  static Tensor rand(const std::vector<int64_t>& sizes, uint64_t seed, DType dtype = kDefaultFloat);
  static Tensor rand(const std::vector<int64_t>& sizes, RandomStream stream, DType dtype);
  static Tensor randn(const std::vector<int64_t>& sizes, uint64_t seed, DType dtype = kDefaultFloat);
  static Tensor randn(const std::vector<int64_t>& sizes, RandomStream stream, DType dtype);
  // Uniform integers in [low, high); low < high.
  static Tensor randint(int64_t low, int64_t high, const std::vector<int64_t>& sizes, uint64_t seed,
                        DType dtype = DType::I64);
  static Tensor randint(int64_t low, int64_t high, const std::vector<int64_t>& sizes, RandomStream stream, DType dtype);
  // A traced tensor (no storage); used by capture.
  static Tensor traced(TensorType type, std::shared_ptr<TraceHandle> handle);

  // ---- properties ----
  bool defined() const { return storage_ != nullptr || trace_ != nullptr; }
  bool is_traced() const { return trace_ != nullptr; }
  const std::shared_ptr<TraceHandle>& trace() const { return trace_; }
  DType dtype() const {
    if (!defined()) fail_undefined("dtype");
    return dtype_;
  }
  int dim() const;
  // Concrete sizes; for a traced tensor only where its shape is static.
  const std::vector<int64_t>& sizes() const {
    if (!storage_) require_static_shape("sizes");
    return sizes_;
  }
  int64_t size(int64_t dim) const;  // negative dims wrap
  const std::vector<int64_t>& strides() const {
    if (!storage_) require_concrete("strides");
    return strides_;
  }
  int64_t offset() const {
    if (!storage_) require_concrete("offset");
    return offset_;
  }
  int64_t numel() const;
  Shape shape() const;  // symbolic for traced tensors with dynamic dims
  TensorType type() const { return {dtype(), shape()}; }
  bool is_contiguous() const;
  const std::shared_ptr<Storage>& storage() const { return storage_; }  // null unless concrete
  Device device() const;                                                // where the storage is

  // ---- raw access (concrete only) ----
  std::byte* data_bytes() const;  // address of element 0 of the view, on the host only
  // The address of element 0 on the tensor's device, for code that hands it to the device;
  // host code never dereferences it unless device() is the CPU.
  std::byte* address() const;
  template <typename T>
  T* data() const {
    return reinterpret_cast<T*>(data_bytes());
  }

  // Element `flat` (in [0, numel())) of the view in row-major order, converted to double / int64.
  double item_double(int64_t flat = 0) const;
  int64_t item_int(int64_t flat = 0) const;
  Scalar item() const;  // one element (any rank): the value as a Scalar of the dtype's kind

  // ---- views and copies (concrete, no ops recorded) ----
  // A view of the same storage; `offset` counts from the storage's first element, and the
  // view must lie inside the storage.
  Tensor as_strided(std::vector<int64_t> sizes, std::vector<int64_t> strides, int64_t offset) const;
  Tensor contiguous() const;     // self if already contiguous, else a packed copy
  Tensor clone() const;          // always a packed copy
  Tensor to(DType dtype) const;  // self if same dtype, else converted copy
  // Self if already on `device`, else a packed copy there (a non-contiguous tensor becomes
  // contiguous on the way; between two devices through the host). Errors: no such device, out
  // of its memory.
  Tensor to(Device device) const;
  Tensor cpu() const { return to(Device::cpu()); }
  Tensor cuda(int index = 0) const { return to(Device::cuda(index)); }
  // Copies src (same sizes) into this view, converting dtype.
  void copy_from(const Tensor& src);

  // Exact equality of dtype, sizes and values (NaN == NaN, and 0.0 == -0.0 only if bitwise).
  bool equal(const Tensor& other) const;

  // torch-like printing: "tensor([[1.0000, 2.0000], ...], dtype=f32)". Summarizes large tensors.
  std::string to_string() const;

  // ---- ops as methods (defined in frontend/tensor_methods.cc) ----
  Tensor sum(std::vector<int64_t> dim = {}, bool keepdim = false, CallSite loc = CallSite::current()) const;
  Tensor mean(std::vector<int64_t> dim = {}, bool keepdim = false, CallSite loc = CallSite::current()) const;
  Tensor amax(std::vector<int64_t> dim = {}, bool keepdim = false, CallSite loc = CallSite::current()) const;
  Tensor reshape(std::vector<int64_t> shape, CallSite loc = CallSite::current()) const;
  Tensor view(std::vector<int64_t> shape, CallSite loc = CallSite::current()) const;
  Tensor permute(std::vector<int64_t> dims, CallSite loc = CallSite::current()) const;
  Tensor transpose(int64_t dim0, int64_t dim1, CallSite loc = CallSite::current()) const;
  Tensor t(CallSite loc = CallSite::current()) const;
  Tensor unsqueeze(int64_t dim, CallSite loc = CallSite::current()) const;
  Tensor squeeze(std::optional<int64_t> dim = std::nullopt, CallSite loc = CallSite::current()) const;
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1, CallSite loc = CallSite::current()) const;
  Tensor expand(std::vector<int64_t> sizes, CallSite loc = CallSite::current()) const;
  Tensor matmul(const Tensor& other, CallSite loc = CallSite::current()) const;
  Tensor softmax(int64_t dim, CallSite loc = CallSite::current()) const;
  Tensor relu(CallSite loc = CallSite::current()) const;
  Tensor exp(CallSite loc = CallSite::current()) const;
  Tensor neg(CallSite loc = CallSite::current()) const;
  Tensor pow(Scalar exponent, CallSite loc = CallSite::current()) const;
  Tensor to_dtype(DType dtype, CallSite loc = CallSite::current()) const;  // recorded as _to_copy when traced

 private:
  // Each throws kiln::Error naming the call Tensor::`what` unless the tensor is as required.
  [[noreturn]] static void fail_undefined(const char* what);
  void require_concrete(const char* what) const;
  void require_static_shape(const char* what) const;
  // Also throws unless the tensor is concrete and in host memory.
  void require_host(const char* what) const;
  // The storage offset of element `flat` of the view, relative to offset_; `what` names the
  // call when `flat` is out of range.
  int64_t element_offset(int64_t flat, const char* what) const;
  // A packed tensor of `sizes` over new zeroed storage on `device`; `what` names the call in
  // errors.
  static Tensor allocate(const char* what, const std::vector<int64_t>& sizes, DType dtype,
                         Device device = Device::cpu());
  // A host tensor of this one's values: its layout over a host copy of the bytes it reaches.
  Tensor reached_bytes_on_host() const;
  template <typename T, typename Store>
  static Tensor from_values(const char* what, const std::vector<T>& values, const std::vector<int64_t>& sizes,
                            DType dtype, Store store);

  std::shared_ptr<Storage> storage_;
  std::shared_ptr<TraceHandle> trace_;
  Shape traced_shape_;
  DType dtype_ = kDefaultFloat;
  std::vector<int64_t> sizes_;
  std::vector<int64_t> strides_;
  int64_t offset_ = 0;
};

// Row-major strides for `sizes`.
std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& sizes);

// Ok for a concrete tensor in host memory; else an error for host code that would read it:
// "<what> is on cuda:0, and <reader> reads host memory only: pass it .to(Device::cpu())".
Status require_on_host(const Tensor& t, std::string_view what, std::string_view reader);

}  // namespace kiln
