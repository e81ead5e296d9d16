#include "support/chunks.h"

#include <algorithm>
#include <cstddef>
#include <thread>

namespace kiln {

std::vector<std::vector<int>> split_into_chunks(const std::vector<int>& items, int most, int min_size) {
  if (items.empty()) return {};
  const size_t threads = most > 0 ? static_cast<size_t>(most) : std::max(1u, std::thread::hardware_concurrency());
  const size_t n = std::max<size_t>(1, std::min(threads, items.size() / static_cast<size_t>(std::max(1, min_size))));
  std::vector<std::vector<int>> chunks(n);
  for (size_t c = 0; c < n; ++c)
    chunks[c].assign(items.begin() + static_cast<std::ptrdiff_t>(items.size() * c / n),
                     items.begin() + static_cast<std::ptrdiff_t>(items.size() * (c + 1) / n));
  return chunks;
}

}  // namespace kiln
