// The named pattern sets and their passes.
#include "patterns/pattern_sets.h"

#include "frontend/functional.h"
#include "patterns/attention_fusion.h"
#include "patterns/pad_mm.h"

namespace kiln {

std::vector<Replacement> demo_fusion_replacements() {
  std::vector<Replacement> out;
  out.push_back(Replacement{
      .name = "silu",
      .search = [](std::span<const Tensor> t, std::span<const Scalar>) { return std::vector<Tensor>{sigmoid(t[0]) * t[0]}; },
      .replace = [](std::span<const Tensor> t, std::span<const Scalar>) { return std::vector<Tensor>{silu(t[0])}; },
      .example_inputs = {Tensor::zeros({2, 3})},
      .input_names = {"x"},
  });
  out.push_back(Replacement{
      .name = "addmm",
      .search = [](std::span<const Tensor> t, std::span<const Scalar>) { return std::vector<Tensor>{mm(t[1], t[2]) + t[0]}; },
      .replace = [](std::span<const Tensor> t, std::span<const Scalar>) { return std::vector<Tensor>{addmm(t[0], t[1], t[2])}; },
      .example_inputs = {Tensor::zeros({4}), Tensor::zeros({2, 3}), Tensor::zeros({3, 4})},
      .input_names = {"bias", "a", "b"},
  });
  return out;
}

Expected<std::shared_ptr<const PatternSet>> make_pattern_set(const std::string& name,
                                                             const std::vector<Replacement>& replacements,
                                                             const std::vector<Pattern>* serialized) {
  auto set = std::make_shared<PatternSet>(name);
  if (serialized && serialized->size() != replacements.size())
    return make_error("pattern set '", name, "': ", serialized->size(), " serialized patterns for ",
                      replacements.size(), " replacements");
  for (size_t i = 0; i < replacements.size(); ++i)
    KILN_TRY(register_replacement(*set, replacements[i], serialized ? &(*serialized)[i] : nullptr));
  return std::shared_ptr<const PatternSet>(std::move(set));
}

Expected<std::vector<std::shared_ptr<const PatternSet>>> builtin_pattern_sets() {
  std::vector<std::shared_ptr<const PatternSet>> sets;
  KILN_ASSIGN_OR_RETURN(auto demo, make_pattern_set("demo-fusions", demo_fusion_replacements()));
  sets.push_back(std::move(demo));
  KILN_ASSIGN_OR_RETURN(auto attention, make_pattern_set(kAttentionFusionSet, attention_fusion_replacements()));
  sets.push_back(std::move(attention));
  KILN_ASSIGN_OR_RETURN(auto pad_mm, make_pad_mm_set());
  sets.push_back(std::move(pad_mm));
  return sets;
}

std::vector<NamedPass> pattern_set_passes(const std::vector<std::shared_ptr<const PatternSet>>& sets) {
  std::vector<NamedPass> passes;
  for (const auto& set : sets)
    passes.push_back({set->name(), [set](Graph& g) { return apply_patterns(g, *set); }});
  return passes;
}

}  // namespace kiln
