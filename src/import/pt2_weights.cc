// Loading a .pt2 archive's weights (pt2_weights.h).
#include "import/pt2_weights.h"

#include <memory>

#include "core/checked_layout.h"
#include "import/pt2_dtype.h"

namespace kiln::pt2 {

Expected<std::vector<int64_t>> static_sizes(const std::vector<SymSize>& sizes, const std::string& what) {
  std::vector<int64_t> out;
  for (const SymSize& s : sizes) {
    if (!s.value)
      return make_error(what, " has the dynamic dim '", s.expr,
                        "'; dynamic shapes are not imported yet (export with static shapes; docs/IMPORT.md)");
    out.push_back(*s.value);
  }
  return out;
}

namespace {

Expected<Tensor> view_of(const std::shared_ptr<Storage>& storage, const std::string& name, const std::string& entry,
                         const WeightConfig& w) {
  std::optional<DType> dtype = dtype_from_archive(w.meta.dtype);
  if (!dtype)
    return make_error("weight '", name, "': dtype ", archive_dtype_name(w.meta.dtype), " is not supported by kiln");
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, static_sizes(w.meta.sizes, "weight '" + name + "'"));
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> strides, static_sizes(w.meta.strides, "weight '" + name + "'"));
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> offset, static_sizes({w.meta.storage_offset}, "weight '" + name + "'"));
  if (Status fits = check_view_fits(sizes, strides, offset[0], *dtype, storage->nbytes()); !fits)
    return make_error("weight '", name, "': ", dtype_name(*dtype), Shape::from_sizes(sizes).to_string(),
                      " at storage offset ", offset[0], " does not fit entry ", entry, " of ", storage->nbytes(),
                      " bytes: ", fits.error().message());
  return Tensor::over_storage(storage, *dtype, std::move(sizes), std::move(strides), offset[0]);
}

}  // namespace

Expected<std::map<std::string, LoadedWeight>> load_weights(const Pt2Archive& archive, const WeightsConfig& config,
                                                           const std::string& folder) {
  std::map<std::string, std::shared_ptr<Storage>> storages;  // by entry: each read once
  std::map<std::string, LoadedWeight> out;
  for (const auto& [name, w] : config) {
    if (w.use_pickle)
      return make_error("weight '", name, "' is pickled (use_pickle); kiln reads raw weight entries only");
    std::string entry = folder + w.path_name;
    auto it = storages.find(entry);
    if (it == storages.end()) {
      if (!archive.has(entry))
        return make_error(archive.name(), ": weight '", name, "': missing entry ", archive.prefix(), entry);
      KILN_ASSIGN_OR_RETURN(std::shared_ptr<Storage> storage, archive.read_storage(entry));
      it = storages.emplace(entry, std::move(storage)).first;
    }
    auto tensor = view_of(it->second, name, archive.prefix() + entry, w);
    if (!tensor) return make_error(archive.name(), ": ", tensor.error().message());
    out[name] = {std::move(*tensor), entry};
  }
  return out;
}

}  // namespace kiln::pt2
