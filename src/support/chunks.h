// Contiguous chunks of a list of work items, for compiling a program's kernels in parallel (the
// CPU's C++ units, the CUDA runtime's cubins): as many chunks as there are threads to compile
// them, but none so small that a compiler's fixed start-up cost dominates it.
#pragma once

#include <vector>

namespace kiln {

// `items` in order, in at most `most` chunks (0: the hardware's threads) of near-equal size,
// none smaller than `min_size` unless there are fewer items than that; no chunk for no items.
std::vector<std::vector<int>> split_into_chunks(const std::vector<int>& items, int most, int min_size);

}  // namespace kiln
