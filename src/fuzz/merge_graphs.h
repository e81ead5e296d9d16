// One graph that computes several independent graphs side by side, so that one compile of the
// CPU backend (one g++ run per chunk) covers a batch of drawn graphs: the inputs of each part in
// turn (renamed p<k>_<name>), then its nodes, and the outputs of each part in turn.
#pragma once

#include <memory>
#include <span>

#include "ir/graph.h"

namespace kiln::fuzz {

std::unique_ptr<Graph> merge_graphs(std::span<const Graph* const> parts);

}  // namespace kiln::fuzz
