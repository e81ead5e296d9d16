// libFuzzer target for the .pt2 reader (import/import_pt2.h). An input that starts like a zip
// ("PK") is a whole archive; any other input is a models/model.json, mapped to a graph with
// zero tensors standing in for its weights. The second form exists because libzip checks each
// entry's CRC: a mutated archive almost never gets its JSON past the zip layer, so the JSON
// reader and the op mapping need inputs of their own. Either way the bytes import as a graph
// that prints and parses back to the same text, or are rejected with a Diagnostic that names
// the archive or entry. Anything else (a crash, a sanitizer report, an uncaught exception, a
// trap below) is a bug. Seeds (corpus_pt2/): a relu exported by PyTorch 2.15 without its sample
// inputs, and the model.json of tests/import/data's block and views.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "import/import_pt2.h"
#include "import/pt2_dtype.h"
#include "import/pt2_program.h"
#include "import/pt2_to_graph.h"
#include "ir/parser.h"
#include "ir/printer.h"

namespace {

// A zero tensor for each weight input whose metadata is static, of a kiln dtype and small.
std::map<std::string, kiln::pt2::LoadedWeight> zero_weights(const kiln::pt2::Program& p) {
  std::map<std::string, kiln::pt2::LoadedWeight> out;
  for (const kiln::pt2::InputSpec& spec : p.input_specs) {
    auto meta = p.tensor_values.find(spec.arg);
    if (spec.target.empty() || meta == p.tensor_values.end()) continue;
    std::optional<kiln::DType> dtype = kiln::pt2::dtype_from_archive(meta->second.dtype);
    std::vector<int64_t> sizes;
    int64_t numel = 1;
    for (const kiln::pt2::SymSize& s : meta->second.sizes) {
      if (!s.value || *s.value < 0 || *s.value > 4096) numel = -1;
      if (numel < 0) break;
      numel *= *s.value;
      if (numel > 4096) numel = -1;
      sizes.push_back(s.value.value_or(0));
    }
    if (dtype && numel >= 0) out[spec.target] = {kiln::Tensor::zeros(sizes, *dtype), "fuzz"};
  }
  return out;
}

kiln::Expected<kiln::ImportedProgram> import_model_json(std::string_view json) {
  kiln::Expected<kiln::pt2::Program> p = kiln::pt2::parse_program(json, "fuzz.json");
  if (!p) return p.error();
  auto imported = kiln::pt2::program_to_graph(*p, zero_weights(*p), "fuzz");
  if (!imported) return kiln::make_error("fuzz.json: ", imported.error().message());
  return imported;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const bool archive = bytes.substr(0, 2) == "PK";
  kiln::Expected<kiln::ImportedProgram> m =
      archive ? kiln::import_pt2_bytes(bytes, "fuzz.pt2") : import_model_json(bytes);
  if (!m) {
    if (m.error().message().rfind(archive ? "fuzz.pt2: " : "fuzz.json: ", 0) != 0) __builtin_trap();
    return 0;
  }
  std::string text = kiln::print_graph(*m->graph);
  kiln::Expected<std::unique_ptr<kiln::Graph>> again = kiln::parse_graph(text, "fuzz.kir");
  if (!again || kiln::print_graph(**again) != text) __builtin_trap();
  for (const auto& [name, t] : m->weights)
    if (t.numel() <= 4096) (void)t.to_string();
  return 0;
}
