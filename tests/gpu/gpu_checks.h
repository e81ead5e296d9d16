// The GPU test programs' checks: one printed line each ("PASS name" or "FAIL name: detail"), then
// "N passed, N failed"; plain C++ rather than GoogleTest, which the GPU machine lacks.
#pragma once

#include <cstdio>
#include <string>

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
  int finish() const {
    std::printf("%d passed, %d failed\n", passed_, failed_);
    return failed_ == 0 ? 0 : 1;
  }

 private:
  int passed_ = 0;
  int failed_ = 0;
};

}  // namespace kiln
