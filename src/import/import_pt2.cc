// import_pt2 (import_pt2.h): the archive's entries in order (versions, the program, the
// weights), then the mapping. Built with or without the .pt2 reader: without it (no libzip or
// nlohmann-json at configure time) every import says what to install.
#include "import/import_pt2.h"

#include <cctype>
#include <filesystem>

#ifdef KILN_HAVE_PT2
#include "import/pt2_archive.h"
#include "import/pt2_program.h"
#include "import/pt2_to_graph.h"
#include "import/pt2_weights.h"
#endif

namespace kiln {

Expected<std::vector<Tensor>> ImportedProgram::inputs_with(const std::vector<Tensor>& user) const {
  if (user.size() != user_inputs.size())
    return make_error("the imported graph takes ", user_inputs.size(), " user input",
                      user_inputs.size() == 1 ? "" : "s", ", got ", user.size());
  std::vector<Tensor> out;
  size_t next_user = 0;
  for (Value* in : graph->inputs()) {
    auto w = weights.find(in->name());
    if (in->role() != InputRole::Input && w != weights.end()) {
      out.push_back(w->second);
    } else {
      out.push_back(user[next_user++]);
    }
  }
  return out;
}

#ifdef KILN_HAVE_PT2

bool pt2_import_available() { return true; }

namespace {

// The graph's name: the archive's folder ("mlp/" for mlp.pt2), as IR text can spell it.
std::string graph_name_of(const std::string& prefix) {
  std::string name;
  for (char c : prefix)
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') name += c;
  return name.empty() || std::isdigit(static_cast<unsigned char>(name[0])) ? "model" + name : name;
}

Expected<ImportedProgram> import_archive(const pt2::Pt2Archive& archive) {
  const std::string model = "models/model.json";
  if (!archive.has(model))
    return make_error(archive.name(), ": missing entry ", archive.prefix(), model,
                      " (models: ", archive.list("models/"), ")");
  KILN_ASSIGN_OR_RETURN(std::string json, archive.read_text(model));
  KILN_ASSIGN_OR_RETURN(pt2::Program program,
                        pt2::parse_program(json, archive.name() + ": " + archive.prefix() + model));

  // Parameters and buffers, then lifted constants and non-persistent buffers; each folder
  // has a config naming its storage entries.
  struct WeightFolder {
    std::string folder, config;
  };
  const WeightFolder folders[] = {{"data/weights/", "model_weights_config.json"},
                                  {"data/constants/", "model_constants_config.json"}};
  std::map<std::string, pt2::LoadedWeight> weights;
  for (const auto& [folder, config_name] : folders) {
    std::string config_entry = folder + config_name;
    if (!archive.has(config_entry)) continue;
    KILN_ASSIGN_OR_RETURN(std::string config_json, archive.read_text(config_entry));
    KILN_ASSIGN_OR_RETURN(
        pt2::WeightsConfig config,
        pt2::parse_weights_config(config_json, archive.name() + ": " + archive.prefix() + config_entry));
    KILN_ASSIGN_OR_RETURN(auto loaded, pt2::load_weights(archive, config, folder));
    for (auto& [name, w] : loaded) weights[name] = std::move(w);
  }
  auto imported = pt2::program_to_graph(program, weights, graph_name_of(archive.prefix()));
  if (!imported) return make_error(archive.name(), ": ", imported.error().message());
  return imported;
}

}  // namespace

Expected<ImportedProgram> import_pt2(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return make_error(path, ": is a directory, not a .pt2 archive");
  KILN_ASSIGN_OR_RETURN(std::unique_ptr<pt2::Pt2Archive> archive, pt2::Pt2Archive::open(path));
  return import_archive(*archive);
}

Expected<ImportedProgram> import_pt2_bytes(std::string_view bytes, std::string name) {
  KILN_ASSIGN_OR_RETURN(std::unique_ptr<pt2::Pt2Archive> archive, pt2::Pt2Archive::open_bytes(bytes, std::move(name)));
  return import_archive(*archive);
}

#else

bool pt2_import_available() { return false; }

namespace {
Diagnostic not_built(const std::string& what) {
  return make_error(what,
                    ": this kiln was built without .pt2 import: libzip and nlohmann-json were not found when it was "
                    "configured (on Debian: apt-get install libzip-dev nlohmann-json3-dev, then configure again)");
}
}  // namespace

Expected<ImportedProgram> import_pt2(const std::string& path) { return not_built(path); }
Expected<ImportedProgram> import_pt2_bytes(std::string_view, std::string name) { return not_built(name); }

#endif

}  // namespace kiln
