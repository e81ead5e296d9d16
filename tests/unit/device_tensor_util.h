// What the device tensor tests share: the message of a thrown kiln::Error.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "support/error.h"

namespace kiln::device_test {

// The message of the kiln::Error `f` throws; fails the test where it throws none.
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.diagnostic().message();
  }
  ADD_FAILURE() << "no kiln::Error thrown";
  return "";
}

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace kiln::device_test
