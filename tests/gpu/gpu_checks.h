// What the GPU test programs share: counting checks, one printed line each, and skipping (exit
// 77, which ctest counts as skipped) where there is no CUDA driver or device. Plain C++, no
// GoogleTest: the GPU machine has none (scripts/gpu-test.sh).
#pragma once

#include <cstdio>
#include <string>

#include "runtime/cuda/cuda_device.h"

namespace kiln {

constexpr int kSkipped = 77;

// True when the driver loads and sees a device; otherwise prints "no CUDA device: <why>".
inline bool have_cuda_device() {
  auto driver = CudaDriver::get();
  if (!driver) {
    std::printf("no CUDA device: %s\n", driver.error().message().c_str());
    return false;
  }
  auto count = cuda_device_count(**driver);
  if (!count) {
    std::printf("no CUDA device: %s\n", count.error().message().c_str());
    return false;
  }
  if (*count == 0) {
    std::printf("no CUDA device: the driver sees none\n");
    return false;
  }
  return true;
}

// Counts checks and prints one line for each; the last line is "N passed, N failed".
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
    const std::string& message = s.error().message();
    return expect(message.rfind(prefix, 0) == 0, name, message);
  }
  int finish() const {
    std::printf("%d passed, %d failed\n", passed_, failed_);
    return failed_ == 0 ? 0 : 1;
  }

 private:
  int passed_ = 0;
  int failed_ = 0;
};

}  // namespace kiln
