// Where kiln's disk caches live: one directory for the whole process, the CPU's compiled C++
// units at its top (runtime/cpu/kernel_cache.h) and CUDA cubins under cuda/
// (runtime/cuda/cubin_cache.h).
#pragma once

#include <string>

#include "support/diagnostic.h"

namespace kiln {

// $KILN_CACHE_DIR when set and not empty, else $HOME/.cache/kiln; an error when neither
// variable is set.
Expected<std::string> default_cache_dir();

}  // namespace kiln
