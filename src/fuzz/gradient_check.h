// The gradient check of drawn differentiable graphs (differentiable_options: f64 inputs, ops
// with derivative rules). For each graph, its joint graph (autograd/
// joint_graph.h: forward outputs and the gradient of every floating input, random draws at
// their static seeds) must
// - agree with central finite differences of the forward graph in f64: along random
//   directions e, sum_i <grad_i, e_i> against (L(x + h e) - L(x - h e)) / 2h, L the sum of
//   each output times a random tangent; a direction where the one-sided differences disagree
//   (a kink within h: relu at 0, a max with ties) is skipped, as is one along which the floor
//   of a quotient of fmod or remainder changes (a sawtooth h steps over) or whose differences
//   over h and 2h disagree (not converged); L's own rounding is
//   allowed; a graph taking std or var of a row constant up to rounding (no derivative there)
//   is not checked against differences;
// - run compiled for the CPU as it runs in the interpreter (differential.h's check), unless
//   it holds a map or scan, whose backward bodies the CPU backend does not lower.
#pragma once

#include <span>
#include <vector>

#include "fuzz/differential.h"
#include "fuzz/graph_generator.h"

namespace kiln::fuzz {

// Generator options for differentiable graphs: differentiable set, and only ops with a
// derivative rule (autograd/derivatives.def).
GeneratorOptions differentiable_options(GeneratorOptions options = {});

std::vector<Finding> check_gradient_cases(std::span<const FuzzCase> cases, const DifferentialOptions& options = {});

}  // namespace kiln::fuzz
