#include "kernels/mutation_analysis.h"

namespace kiln::kernels {

std::vector<std::string> MutationAnalysis::written_names() const {
  std::vector<std::string> out;
  for (const ParamMutation& p : params)
    if (p.is_pointer && p.written) out.push_back(p.name);
  return out;
}

}  // namespace kiln::kernels
