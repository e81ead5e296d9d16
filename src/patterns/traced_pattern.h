// Patterns written as C++ functions on kiln tensors (SPEC.md 5.4, register_replacement): the
// search and replacement functions are traced with capture (pattern mode) on example inputs
// into the search and replacement graphs of a Pattern that ignores literals on its first
// match. Its extra_check then re-traces both functions with the matched wildcards' real types
// (and the scalar parameters' found values), accepts only if the re-traced search graph matches
// exactly the same nodes and the re-traced replacement has the matched types, runs the
// user's check on that exact match, and replaces with the re-traced replacement.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "ops/op_kind.h"
#include "passes/pattern.h"

namespace kiln {

// Tensors are the traced inputs, in order; scalars are the scalar parameters, in order.
using PatternFn = std::function<std::vector<Tensor>(std::span<const Tensor> tensors, std::span<const Scalar> scalars)>;

// Turns a traced function's graph into the graph a pattern matches and replaces with, as
// joint_pattern (patterns/joint_pattern.h) turns it into its joint forward-backward graph. The
// result's inputs start with the traced graph's (the functions' inputs; any added inputs are
// wildcards the functions do not see) and its nodes start with the traced graph's nodes, in
// order: only those bind scalar parameters.
using GraphTransform = std::function<Expected<std::shared_ptr<const Graph>>(const Graph& traced)>;

struct Replacement {
  std::string name;
  PatternFn search;
  PatternFn replace;
  std::vector<Tensor> example_inputs;
  std::vector<std::string> input_names = {};  // the wildcards' names; x0, x1, ... when missing
  // Literals the functions take as parameters (the reference's scalar_workaround): traced
  // with the magic value, matched as any number, re-traced with the number found.
  std::vector<ScalarParam> scalar_params = {};
  // The user's check, on the exact match after the re-trace.
  std::function<bool(const Match&)> extra_check = {};
  // Applied to both traced graphs (and to both again in the re-trace); none: used as traced.
  GraphTransform transform = {};
  // Ops the search graph is sure to contain. A graph without one of them cannot match, so a
  // set applied lazily (patterns/lazy_pattern_set.h) does not even trace the pattern for it.
  // Tracing checks the claim: an op missing from the traced search graph is an error.
  std::vector<OpKind> required_ops = {};
};

// The pattern of `r`: traced, or, when `serialized` is given (parse_patterns), with its search
// and replacement graphs taken from there without tracing. Tracing failures, functions that
// read tensors other than their inputs, and a serialized pattern of another name are errors.
Expected<Pattern> trace_replacement(const Replacement& r, const Pattern* serialized = nullptr);

// trace_replacement, then set.add.
Status register_replacement(PatternSet& set, const Replacement& r, const Pattern* serialized = nullptr);

}  // namespace kiln
