// Every compute op declared in lower/compute_ops.def through every consumer: a graph node of
// that op lowers to the compute op itself, and the loop-IR evaluator and the compiled C++ agree
// with the interpreter on it, on each path its form has (floating, integer, truth values).
// The consumers' switches over ComputeOp have no default, so a declared op without its case
// does not build; this test checks that each case computes what the op means.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "cpu_backend_util.h"
#include "interp/interpreter.h"
#include "ir/parser.h"
#include "lower/compute_op.h"
#include "lower/lower.h"
#include "ops/op_info.h"

namespace kiln {
namespace {

constexpr int64_t kN = 6;

// Operand i of a case in dtype `dt`: negative, zero, fractional and large-ish values.
Tensor operand_values(DType dt, int i) {
  if (dt == DType::Bool)
    return Tensor::from_ints(i == 0 ? std::vector<int64_t>{1, 0, 1, 0, 1, 0} : std::vector<int64_t>{1, 1, 0, 0, 1, 0},
                             {kN}, dt);
  if (dt == DType::I32)
    return Tensor::from_ints(
        i == 0 ? std::vector<int64_t>{-7, -1, 0, 2, 5, 9} : std::vector<int64_t>{2, -3, 3, 1, 4, 6}, {kN}, dt);
  const std::vector<std::vector<double>> f = {
      {-1.5, -0.25, 0.0, 0.5, 1.75, 3.0}, {0.5, -2.0, 1.25, 3.0, -0.75, 2.0}, {0.25, 0.5, 0.75, 1.0, 0.0, -1.0}};
  return Tensor::from_doubles(f[static_cast<size_t>(i)], {kN}, dt);
}

// The dtypes op's operands take on each path of its form.
std::vector<DType> path_dtypes(ComputeOp op) {
  switch (compute_op_form(op)) {
    case ComputeForm::Any:
    case ComputeForm::Test:
    case ComputeForm::Compare:
    case ComputeForm::Select: return {DType::F32, DType::I32};
    case ComputeForm::Float: return {DType::F32};
    case ComputeForm::Int: return {DType::I32};
    case ComputeForm::Truth: return {DType::Bool};
  }
  return {};
}

struct Case {
  std::unique_ptr<Graph> graph;
  std::vector<Tensor> inputs;
  LoopProgram loops;
};

// One node of `op` on operands of dtype `dt` (where's condition is bool); an integer
// division takes a literal divisor, as compiled code needs (lower/integer_divisors.h).
Case make_case(ComputeOp op, DType dt) {
  const OpKind kind = compute_op_kind(op);
  const std::string name(op_info(kind).name()), t(dtype_name(dt));
  const bool select = compute_op_form(op) == ComputeForm::Select;
  const std::string result = compute_returns_bool(kind) ? "bool" : t;
  std::string params, args;
  Case c;
  for (int i = 0; i < compute_op_arity(op); ++i) {
    const bool divisor = i == 1 && !is_floating(dt) && compute_divides(kind, {});
    const DType odt = select && i == 0 ? DType::Bool : dt;
    args += std::string(i ? ", " : "") + (divisor ? "3" : "%a" + std::to_string(i));
    if (divisor) continue;
    params += std::string(params.empty() ? "" : ", ") + "%a" + std::to_string(i) + ": " + std::string(dtype_name(odt)) +
              "[6]";
    c.inputs.push_back(operand_values(odt, select ? i - 1 + (i == 0) : i));
  }
  const std::string text = "graph @" + name + "_" + t + "(" + params + ") -> (" + result + "[6]) {\n  %0 = " + name +
                           "(" + args + ") : " + result + "[6]\n  return %0\n}";
  auto g = parse_graph(text);
  EXPECT_TRUE(g) << g.error().to_string() << "\n" << text;
  if (!g) return c;
  auto p = lower_graph(**g);
  EXPECT_TRUE(p) << p.error().to_string() << "\n" << text;
  c.graph = std::move(*g);
  if (p) c.loops = std::move(*p);
  return c;
}

std::set<OpKind> computed_ops(const LoopProgram& p) {
  std::set<OpKind> out;
  for (const LoopKernel& k : p.kernels)
    for (const LoopKernel* part : loop_kernel_parts(k))
      for (const BodyOp& op : part->body)
        if (op.kind == BodyOp::Kind::Compute) out.insert(op.op);
  return out;
}

TEST(ComputeOps, TableRoundTripsThroughOpKind) {
  for (int i = 0; i < kNumComputeOps; ++i) {
    const ComputeOp op = static_cast<ComputeOp>(i);
    EXPECT_EQ(find_compute_op(compute_op_kind(op)), op) << op_info(compute_op_kind(op)).name();
    EXPECT_EQ(compute_arity(compute_op_kind(op)), compute_op_arity(op));
  }
  EXPECT_FALSE(find_compute_op(OpKind::Matmul));
  EXPECT_EQ(compute_arity(OpKind::Matmul), 0);
}

TEST(ComputeOps, EveryOpLowersEvaluatesAndCompilesLikeTheInterpreter) {
  std::vector<Case> cases;
  std::vector<LoopProgram> programs;
  std::set<OpKind> lowered;
  for (int i = 0; i < kNumComputeOps; ++i)
    for (DType dt : path_dtypes(static_cast<ComputeOp>(i))) {
      Case c = make_case(static_cast<ComputeOp>(i), dt);
      ASSERT_TRUE(c.graph);
      lowered.merge(computed_ops(c.loops));
      programs.push_back(c.loops);
      cases.push_back(std::move(c));
    }
  for (int i = 0; i < kNumComputeOps; ++i) {
    const OpKind kind = compute_op_kind(static_cast<ComputeOp>(i));
    EXPECT_TRUE(lowered.count(kind)) << op_info(kind).name() << " did not lower to its compute op";
  }
  const LoopProgram merged = merge_programs("compute_ops", programs);
  std::vector<Tensor> all;
  for (const Case& c : cases) all.insert(all.end(), c.inputs.begin(), c.inputs.end());
  const CompiledAndEvaluated runs = run_compiled_and_evaluated(merged, all);
  ASSERT_EQ(runs.compiled.size(), cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    auto want = interpret(*cases[i].graph, cases[i].inputs);
    ASSERT_TRUE(want) << want.error().to_string();
    const std::string what = "@" + cases[i].graph->name();
    expect_close((*want)[0], runs.evaluated[i], what + ": the evaluator vs the interpreter");
    expect_close((*want)[0], runs.compiled[i], what + ": compiled C++ vs the interpreter");
  }
}

}  // namespace
}  // namespace kiln
