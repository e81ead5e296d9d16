// The decomposition rules of the decompose pass, one function per family of ops, and the
// GraphBuilder shorthands they share. Internal to passes/decompose*.cc.
#pragma once

#include <optional>
#include <vector>

#include "ops/op_call.h"
#include "passes/rewrite_rules.h"

namespace kiln::decomp {

using Replacement = std::optional<std::vector<Value*>>;

// The node's attributes, explicit or schema default.
inline OpCallBase attrs_of(const Node& n) { return OpCallBase(n.op(), n.attrs()); }

// Operand `i` as a value; null when it is `none` or absent.
Value* optional_operand(const Node& n, int i);

// `v` cast to the dtype of n's result, as the one replacement of n. The kernels compute in
// double and round on store, so a rule that computes in a wider dtype than the result (a
// float64 weight beside a float32 input) ends with this cast.
Replacement result(GraphBuilder& b, const Node& n, Value* v);

// The dtype a rule that reduces (softmax, norms, var, attention) computes in for values of
// dtype `t`: f32 for f16 and bf16, else t. The reference kernels compute in double and round
// only the result; a sum stored in f16 would round too (log_softmax off by an f16 ulp of the
// row sum, 1e-3, where the result is 3e-3).
DType compute_dtype(DType t);

Value* add(GraphBuilder& b, Operand x, Operand y);
Value* sub(GraphBuilder& b, Operand x, Operand y);
Value* mul(GraphBuilder& b, Operand x, Operand y);
Value* div(GraphBuilder& b, Operand x, Operand y);
Value* unary(GraphBuilder& b, OpKind op, Value* x);
Value* where(GraphBuilder& b, Value* cond, Operand x, Operand y);
// A reduction (sum, mean, amax) over `dims` (empty: every dim).
Value* reduce(GraphBuilder& b, OpKind op, Value* x, const std::vector<int64_t>& dims, bool keepdim);
// `v` (keepdim form) with the size-1 dims `dims` (non-negative) removed.
Value* squeeze_dims(GraphBuilder& b, Value* v, const std::vector<int64_t>& dims);
// `p` of shape [C] as [C, 1, ...] to broadcast against [N, C, *spatial] of rank `rank`.
Value* per_channel(GraphBuilder& b, Value* p, int rank);

// Dims in [0, rank) from possibly negative ones; nullopt when one is out of range.
std::optional<std::vector<int64_t>> wrap_dims(const std::vector<int64_t>& dims, int rank);
// The static sizes of `v`, or nullopt when a dim is symbolic.
std::optional<std::vector<int64_t>> static_sizes(const Value* v);

std::vector<RewriteRule> activation_rules();  // gelu, silu, softplus, elu, leaky_relu, hardtanh
std::vector<RewriteRule> reduction_rules();   // softmax, log_softmax, logsumexp, var, std
std::vector<RewriteRule> norm_rules();        // layer_norm, rms_norm, group_norm, batch_norm
std::vector<RewriteRule> loss_rules();        // nll_loss, cross_entropy, mse_loss
std::vector<RewriteRule> linear_rules();      // linear, addmm, scaled_dot_product_attention
std::vector<RewriteRule> conv_rules();        // conv2d
std::vector<RewriteRule> sort_rules();        // topk, sort, histc
std::vector<RewriteRule> upsample_rules();    // upsample_bilinear2d

}  // namespace kiln::decomp
