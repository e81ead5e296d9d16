// The GPU test programs' checks: one printed line each ("PASS name" or "FAIL name: detail"), then
// "N passed, N failed"; plain C++ rather than GoogleTest, which the GPU machine lacks. And the
// skip where there is no GPU.
#pragma once

#include <cstdio>
#include <optional>
#include <string>

#include "runtime/cuda/cuda_device.h"
#include "support/diagnostic.h"

namespace kiln {

// What a GPU test program exits with where there is no driver or device: ctest counts it skipped.
constexpr int kGpuTestSkipped = 77;

class Checks {
 public:
  bool expect(bool ok, const std::string& name, const std::string& detail = "") {
    ++(ok ? passed_ : failed_);
    std::printf("%s %s%s%s\n", ok ? "PASS" : "FAIL", name.c_str(), detail.empty() ? "" : ": ", detail.c_str());
    return ok;
  }
  // Fails `name` with the error when `e` holds one.
  template <typename T>
  bool expect_ok(const T& e, const std::string& name) {
    return expect(static_cast<bool>(e), name, e ? "" : e.error().message());
  }
  bool expect_error(const Status& s, const std::string& name, const std::string& prefix) {
    if (s) return expect(false, name, "succeeded; expected an error starting \"" + prefix + "\"");
    return expect_message(s.error().message(), name, prefix);
  }
  bool expect_message(const std::string& message, const std::string& name, const std::string& prefix) {
    return expect(message.rfind(prefix, 0) == 0, name, message);
  }
  // The program's exit status: 0, 1 where a check failed, kGpuTestSkipped where it skipped.
  int finish() const {
    if (skipped_) return kGpuTestSkipped;
    std::printf("%d passed, %d failed\n", passed_, failed_);
    return failed_ == 0 ? 0 : 1;
  }
  // Prints "no CUDA device: <why>"; finish() then skips.
  void skip(const std::string& why) {
    std::printf("no CUDA device: %s\n", why.c_str());
    skipped_ = true;
  }

 private:
  int passed_ = 0;
  int failed_ = 0;
  bool skipped_ = false;
};

// What a GPU test runs on: the driver, how many devices it sees, device 0.
struct TestGpu {
  const CudaDriver* driver;
  int device_count;
  CudaDeviceProperties device;
};

// The GPU, its queries checked; nullopt where there is none (checks.skip) or a query failed.
inline std::optional<TestGpu> find_test_gpu(Checks& checks) {
  Expected<const CudaDriver*> driver = CudaDriver::get();
  if (!driver) {
    checks.skip(driver.error().message());
    return std::nullopt;
  }
  Expected<int> count = cuda_device_count(**driver);
  if (count && *count == 0) {
    checks.skip("the driver sees none");
    return std::nullopt;
  }
  if (!checks.expect_ok(count, "cuDeviceGetCount")) return std::nullopt;
  Expected<CudaDeviceProperties> device = query_cuda_device(**driver, 0);
  if (!checks.expect_ok(device, "the device's properties")) return std::nullopt;
  return TestGpu{*driver, *count, *device};
}

}  // namespace kiln
