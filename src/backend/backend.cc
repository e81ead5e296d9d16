#include "backend/backend.h"

namespace kiln {

Expected<DescribedProgram> Backend::describe(const LoopProgram& p) const {
  return make_error("the ", name(), " backend shows loops @", p.name, " only by compiling and loading it");
}

}  // namespace kiln
