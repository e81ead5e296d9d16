// fold-uniform-matmuls: a product with a uniform operand (every element one value c: a view
// chain of expand, reshape, unsqueeze, squeeze, flatten, transpose, permute or t over a
// one-element tensor, as autograd's expand of a sum or mean loss's scalar tangent gives, and
// linear's derivative flattens for the weight's gradient) needs no product:
//   matmul(U, B) = expand(sum(B * c, dim=[-2], keepdim=true))   (U uniform [..., n, k])
//   matmul(A, U) = expand(sum(A * c, dim=[-1], keepdim=true))   (U uniform [..., k, m])
// for matmul, mm and bmm of floating operands of rank 2 or more with static shapes. The result
// is a broadcast view: consumers read a row (or column) of sums instead of an [n, m] tensor,
// and the sums cost O(k*(n+m)) instead of O(n*m*k). c multiplies each term before the sums, as
// in the product, so an infinite c gives the product's NaN or inf. Not exact: the sums round in
// another order than the product's dot products (within the matmul's usual tolerance). Graphs that
// mutate are left alone. The CPU backend runs it after decomposition; `kiln opt
// --passes=fold-uniform-matmuls` runs it alone.
#pragma once

#include "ir/graph.h"
#include "passes/pass_manager.h"
#include "passes/rewrite_rules.h"

namespace kiln {

// Counters: the driver's ("rewrites", "rule.uniform_left", "rule.uniform_right").
Expected<PassResult> fold_uniform_matmuls(Graph& g, const RuleDriverOptions& options = {});

}  // namespace kiln
