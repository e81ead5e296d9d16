// kiln import MODEL.pt2 -o MODEL.kir
// Reads a torch.export archive (import/import_pt2.h, docs/IMPORT.md) and writes its graph as
// IR text to MODEL.kir and each weight input as .npy in the folder MODEL.weights/ beside it
// (named after the input, "l1.weight.npy"). Prints the `kiln run` line that feeds them back.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "command_line.h"
#include "commands.h"
#include "core/npy.h"
#include "import/import_pt2.h"
#include "ir/printer.h"

namespace kiln::cli {

namespace {

constexpr const char* kImportUsage = "usage: kiln import MODEL.pt2 -o MODEL.kir\n";

// MODEL.weights/ for MODEL.kir (or for any other name: NAME.weights/).
std::filesystem::path weights_dir_for(const std::filesystem::path& out) {
  std::filesystem::path dir = out;
  dir.replace_extension(".weights");
  return dir;
}

}  // namespace

int cmd_import(const Args& args) {
  CommandLine cl("import", kImportUsage);
  cl.option("-o", "a file name").files(1, 1, "MODEL.pt2");
  if (std::optional<int> rc = cl.parse(args)) return *rc;
  const std::string file = cl.positionals()[0];
  const std::string out = cl.value("-o").value_or("");
  if (cl.failed()) return 2;
  if (out.empty()) return cl.usage_error("missing -o MODEL.kir");
  if (!readable_file(file)) return 1;
  Expected<ImportedProgram> m = import_pt2(file);
  if (!m) return fail(m.error());

  std::ofstream text(out, std::ios::binary);
  if (!text) return fail(make_error("cannot write ", out, ": ", std::strerror(errno)));
  text << print_graph(*m->graph);
  if (!text.flush()) return fail(make_error("cannot write ", out, ": ", std::strerror(errno)));
  std::filesystem::path dir = weights_dir_for(out);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return fail(make_error("cannot create ", dir.string(), ": ", ec.message()));
  std::string inputs;
  for (Value* in : m->graph->inputs()) {
    std::string path = in->name() + ".npy";
    auto w = m->weights.find(in->name());
    if (in->role() != InputRole::Input && w != m->weights.end()) {
      path = (dir / path).string();
      Status saved = write_npy(path, w->second);
      if (!saved) return fail(saved.error());
    }
    inputs += (inputs.empty() ? "" : ",") + path;
  }
  std::printf("imported @%s to %s: %zu weight%s in %s/, %zu user input%s\n", m->graph->name().c_str(), out.c_str(),
              m->weights.size(), m->weights.size() == 1 ? "" : "s", dir.string().c_str(), m->user_inputs.size(),
              m->user_inputs.size() == 1 ? "" : "s");
  for (const auto& [alias, kept] : m->tied) std::printf("tied: %s is %s\n", alias.c_str(), kept.c_str());
  std::printf("run: kiln run %s --inputs %s\n", out.c_str(), inputs.c_str());
  return 0;
}

}  // namespace kiln::cli
