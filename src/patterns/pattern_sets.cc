// The named pattern sets and their passes.
#include "patterns/pattern_sets.h"

#include <mutex>
#include <optional>

#include "frontend/functional.h"
#include "patterns/attention_fusion.h"
#include "patterns/pad_mm.h"

namespace kiln {

std::vector<Replacement> demo_fusion_replacements() {
  std::vector<Replacement> out;
  out.push_back(Replacement{
      .name = "silu",
      .search = [](std::span<const Tensor> t,
                   std::span<const Scalar>) { return std::vector<Tensor>{sigmoid(t[0]) * t[0]}; },
      .replace = [](std::span<const Tensor> t, std::span<const Scalar>) { return std::vector<Tensor>{silu(t[0])}; },
      .example_inputs = {Tensor::zeros({2, 3})},
      .input_names = {"x"},
  });
  out.push_back(Replacement{
      .name = "addmm",
      .search = [](std::span<const Tensor> t,
                   std::span<const Scalar>) { return std::vector<Tensor>{mm(t[1], t[2]) + t[0]}; },
      .replace = [](std::span<const Tensor> t,
                    std::span<const Scalar>) { return std::vector<Tensor>{addmm(t[0], t[1], t[2])}; },
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

std::vector<std::string> builtin_pattern_set_names() { return {"demo-fusions", kAttentionFusionSet, "pad-mm"}; }

Expected<std::shared_ptr<const PatternSet>> builtin_pattern_set(const std::string& name) {
  if (name == "demo-fusions") return make_pattern_set(name, demo_fusion_replacements());
  if (name == kAttentionFusionSet) return make_pattern_set(name, attention_fusion_replacements());
  if (name == "pad-mm") return make_pad_mm_set();
  return make_error("no builtin pattern set named '", name, "'");
}

Expected<std::vector<std::shared_ptr<const PatternSet>>> builtin_pattern_sets() {
  std::vector<std::shared_ptr<const PatternSet>> sets;
  for (const std::string& name : builtin_pattern_set_names()) {
    KILN_ASSIGN_OR_RETURN(auto set, builtin_pattern_set(name));
    sets.push_back(std::move(set));
  }
  return sets;
}

std::vector<NamedPass> lazy_builtin_pattern_set_passes() {
  struct Lazy {
    std::string name;
    std::once_flag once;
    std::optional<Expected<std::shared_ptr<const PatternSet>>> set;
  };
  std::vector<NamedPass> passes;
  for (const std::string& name : builtin_pattern_set_names()) {
    auto lazy = std::make_shared<Lazy>();
    lazy->name = name;
    passes.push_back({name, [lazy](Graph& g) -> Expected<PassResult> {
                        std::call_once(lazy->once, [&] { lazy->set = builtin_pattern_set(lazy->name); });
                        if (!*lazy->set) return lazy->set->error();
                        return apply_patterns(g, ***lazy->set);
                      }});
  }
  return passes;
}

}  // namespace kiln
