// libFuzzer target for the loop-IR text parser (lower/loop_text.h). Any input must either
// parse, and then print to text that parses back and prints identically, or be rejected with
// a Diagnostic that says where; a crash, a hang or an error without a location is a bug.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "lower/loop_text.h"
#include "support/check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto program = kiln::parse_loops(text, "fuzz.loops");
  if (!program) {
    KILN_CHECK(program.error().loc().known()) << "rejection without a location: " << program.error().to_string();
    return 0;
  }
  const std::string printed = kiln::print_loops(*program);
  auto again = kiln::parse_loops(printed, "printed.loops");
  KILN_CHECK(again.has_value()) << "printed loops do not parse: " << again.error().to_string() << "\n" << printed;
  const std::string reprinted = kiln::print_loops(*again);
  KILN_CHECK(reprinted == printed) << "print(parse(print(p))) != print(p):\n" << printed << "---\n" << reprinted;
  return 0;
}
