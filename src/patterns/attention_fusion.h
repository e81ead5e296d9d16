// The `fuse-attention` pattern set (SPEC.md 5.6): hand-written attention,
// softmax(mask(scale(q @ k^T))) [dropout] @ v, becomes one scaled_dot_product_attention node
// with the scale, mask, is_causal and dropout that compute the same numbers. The variants are
// traced patterns generated from a few independent choices (how k is transposed, where the
// scale is applied, how the mask is applied, dropout or not); docs/PATTERNS.md lists them and
// the decisions (explicit masks for buffers, -inf fills only, joint variants for joint graphs).
#pragma once

#include <string>
#include <vector>

#include "passes/pattern.h"
#include "patterns/traced_pattern.h"

namespace kiln {

// The set's name for `kiln opt --passes=`.
inline constexpr const char* kAttentionFusionSet = "fuse-attention";

// The replacements of fuse-attention, in registration order (more specific masks first, so a
// causal tril(ones) chain becomes is_causal before the explicit-mask pattern sees it).
std::vector<Replacement> attention_fusion_replacements();

// Registers every attention replacement into `set`.
Status register_attention_fusion(PatternSet& set);

}  // namespace kiln
