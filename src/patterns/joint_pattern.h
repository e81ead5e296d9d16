// Joint patterns (SPEC.md 5.6, the reference's training patterns): a pattern that matches in a
// joint forward-backward graph must contain the backward too, since the backward reads the
// forward's interior values (the softmax output) and the multi-user rule would refuse any
// forward-only match. joint_pattern is the GraphTransform (traced_pattern.h) that turns a traced
// search or replacement graph into its joint graph the way a model's joint graph is made:
// joint_graph with respect to the named inputs (rng_state lifted, one tangent per output), then
// the steps joint_graph_passes runs before its pattern sets (remove-noop-ops, fold-constants).
//
// The result's inputs are the traced inputs, then the generator state when something draws,
// then the tangents; its outputs are the traced outputs followed by the gradients of `wrt`.
#pragma once

#include <string>
#include <vector>

#include "patterns/traced_pattern.h"

namespace kiln {

GraphTransform joint_pattern(std::vector<std::string> wrt);

}  // namespace kiln
