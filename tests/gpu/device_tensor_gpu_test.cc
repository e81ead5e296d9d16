// Tensors on a real CUDA device (core/device_memory.h through runtime/cuda/cuda_device_memory.h):
// every dtype there and back, a copy past 4 GiB (timed, both ways), non-contiguous views both
// ways, a copy on the device, a copy from another thread, and as errors a device that does not
// exist and an allocation past the device's memory. Needs core/ and runtime/cuda/ only, so it
// builds on the GPU machine too (scripts/gpu-test.sh). Where there is no driver or device it
// prints "no CUDA device: ..." and exits 77.
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <thread>

#include "core/tensor.h"
#include "gpu_checks.h"
#include "runtime/cuda/cuda_device.h"
#include "support/error.h"

namespace kiln {
namespace {

constexpr DType kAllDTypes[] = {DType::Bool, DType::U8,  DType::I8,   DType::I16, DType::I32,
                                DType::I64,  DType::F16, DType::BF16, DType::F32, DType::F64};

// The message of the kiln::Error `f` throws, or "" where it throws none.
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.diagnostic().message();
  }
  return "";
}

// 2^20 + 3 values of `dtype`: random, with NaN and infinities among the floats.
Tensor values(DType dtype) {
  const std::vector<int64_t> sizes = {(int64_t{1} << 20) + 3};
  if (dtype == DType::Bool) return Tensor::randint(0, 2, sizes, 1, DType::Bool);
  if (!is_floating(dtype)) return Tensor::randint(-100, 100, sizes, 2, dtype);
  Tensor t = Tensor::randn(sizes, 3, dtype);
  t.as_strided({3}, {1}, 0)
      .copy_from(Tensor::from_doubles({std::nan(""), std::numeric_limits<double>::infinity(), -0.0}, {3}, DType::F64));
  return t;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void check_dtypes(Checks& checks) {
  for (DType dtype : kAllDTypes) {
    const Tensor host = values(dtype);
    const Tensor on_device = host.cuda();
    checks.expect(on_device.device() == Device::cuda() && on_device.cpu().equal(host),
                  std::string(dtype_name(dtype)) + " round trip");
  }
}

// 4 GiB + 4097 bytes, past what a 32-bit byte count holds: every byte comes back.
void check_large_copy(Checks& checks) {
  const int64_t n = (int64_t{1} << 32) + 4097;
  Tensor host = Tensor::empty({n}, DType::U8);
  auto* bytes = host.data<uint8_t>();
  for (int64_t i = 0; i < n; ++i) bytes[i] = static_cast<uint8_t>((static_cast<uint64_t>(i) * 2654435761u) >> 24);
  auto start = std::chrono::steady_clock::now();
  const Tensor on_device = host.cuda();
  const double up = seconds_since(start);
  start = std::chrono::steady_clock::now();
  const Tensor back = on_device.cpu();
  const double down = seconds_since(start);
  std::printf("4 GiB + 4097 bytes: to the device %.3f s (%.1f GB/s), to the host %.3f s (%.1f GB/s), pageable\n", up,
              static_cast<double>(n) / up / 1e9, down, static_cast<double>(n) / down / 1e9);
  checks.expect(std::memcmp(back.data_bytes(), host.data_bytes(), static_cast<size_t>(n)) == 0,
                "a copy of 4 GiB + 4097 bytes comes back whole");
  const Tensor last = on_device.as_strided({2}, {1}, n - 2).clone();
  checks.expect(last.cpu().equal(host.as_strided({2}, {1}, n - 2)), "a view past 4 GiB copied on the device");
}

void check_views(Checks& checks) {
  const Tensor host = Tensor::randn({300, 500}, 4, DType::BF16);
  const Tensor transposed = host.as_strided({500, 300}, {1, 500}, 0);
  const Tensor up = transposed.cuda();
  checks.expect(up.is_contiguous() && up.cpu().equal(transposed.contiguous()),
                "a transposed host tensor arrives packed");
  const Tensor on_device = host.cuda();
  const Tensor columns = on_device.as_strided({500, 100}, {1, 1000}, 7);  // every other row's columns, transposed
  checks.expect(columns.cpu().equal(host.as_strided({500, 100}, {1, 1000}, 7).contiguous()),
                "a strided device view comes back packed");
  const Tensor copy = on_device.clone();
  checks.expect(copy.storage() != on_device.storage() && copy.cpu().equal(host), "a clone on the device");
}

void check_other_thread(Checks& checks) {
  const Tensor host = Tensor::randn({1000}, 5);
  Tensor back;
  std::string error;
  std::thread other([&] {
    try {
      back = host.cuda().cpu();
    } catch (const Error& e) {
      error = e.diagnostic().message();
    }
  });
  other.join();
  checks.expect(error.empty() && back.equal(host), "a round trip on another thread", error);
}

void check_errors(Checks& checks, int count, const CudaDeviceProperties& device) {
  checks.expect_message(error_of([&] { (void)Tensor::zeros({2}).cuda(count); }), "a device past the last",
                        "Tensor::to: cuda:" + std::to_string(count) + " does not exist: this machine has " +
                            std::to_string(count) + " CUDA device");
  const size_t too_much = static_cast<size_t>(device.memory_bytes) * 2;
  checks.expect_message(error_of([&] { Storage storage(too_much, Device::cuda()); }),
                        "twice the device's memory names the bytes",
                        "cannot allocate " + std::to_string(too_much) +
                            " bytes on cuda:0: cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (2): out of memory, asking for " +
                            format_bytes(too_much));
}

int run() {
  Checks checks;
  std::optional<TestGpu> gpu = find_test_gpu(checks);
  if (!gpu) return checks.finish();
  const CudaDeviceProperties& device = gpu->device;
  std::printf("device 0: %s, %s\n", device.name.c_str(), format_bytes(device.memory_bytes).c_str());
  check_dtypes(checks);
  check_views(checks);
  check_other_thread(checks);
  check_large_copy(checks);
  check_errors(checks, gpu->device_count, device);
  return checks.finish();
}

}  // namespace
}  // namespace kiln

int main() { return kiln::run(); }
