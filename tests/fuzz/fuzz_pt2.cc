// libFuzzer target for the .pt2 reader (import/import_pt2.h): any bytes either import as a
// graph that verifies, prints and parses back to the same text, or are rejected with a
// Diagnostic that names the archive. Anything else (a crash, a sanitizer report, an
// uncaught exception, a trap below) is a bug. The seed (corpus_pt2/tiny.pt2) is a relu
// exported by PyTorch 2.15 without its sample inputs (tests/import/make_pt2_archives.py).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "import/import_pt2.h"
#include "ir/parser.h"
#include "ir/printer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  kiln::Expected<kiln::ImportedProgram> m = kiln::import_pt2_bytes(bytes, "fuzz.pt2");
  if (!m) {
    if (m.error().message().rfind("fuzz.pt2: ", 0) != 0) __builtin_trap();
    return 0;
  }
  std::string text = kiln::print_graph(*m->graph);
  kiln::Expected<std::unique_ptr<kiln::Graph>> again = kiln::parse_graph(text, "fuzz.kir");
  if (!again || kiln::print_graph(**again) != text) __builtin_trap();
  for (const auto& [name, t] : m->weights)
    if (t.numel() <= 4096) (void)t.to_string();
  return 0;
}
