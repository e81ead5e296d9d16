// libFuzzer target for the .npy reader (core/npy.h): any bytes either load as a tensor that
// writes and reads back to an equal tensor and prints, or are rejected with a Diagnostic that
// names the file. Anything else (a crash, a sanitizer report, a trap below) is a bug.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  kiln::Expected<kiln::Tensor> t = kiln::npy_from_bytes(bytes, "fuzz.npy");
  if (!t) {
    if (t.error().message().rfind("fuzz.npy: ", 0) != 0) __builtin_trap();
    return 0;
  }
  kiln::Expected<kiln::Tensor> again = kiln::npy_from_bytes(kiln::npy_to_bytes(*t), "again.npy");
  if (!again || !again->equal(*t)) __builtin_trap();
  if (t->numel() <= 4096) (void)t->to_string();
  return 0;
}
