// libFuzzer target for the graph text parser. Any input must either parse, and then print
// to text that parses back and prints identically, or be rejected with a Diagnostic that
// says where; a crash, a hang or an error without a location is a bug.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ir/parser.h"
#include "ir/printer.h"
#include "support/check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto graphs = kiln::parse_graphs(text, "fuzz.kir");
  if (!graphs) {
    KILN_CHECK(graphs.error().loc().known()) << "rejection without a location: " << graphs.error().to_string();
    return 0;
  }
  for (const auto& g : *graphs) {
    std::string printed = kiln::print_graph(*g);
    auto again = kiln::parse_graph(printed, "printed.kir");
    KILN_CHECK(again.has_value()) << "printed graph does not parse: " << again.error().to_string() << "\n" << printed;
    std::string reprinted = kiln::print_graph(**again);
    KILN_CHECK(reprinted == printed) << "print(parse(print(g))) != print(g):\n" << printed << "---\n" << reprinted;
  }
  return 0;
}
