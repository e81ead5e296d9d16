// The C++ backend on indirect loads and stores: which kernels may run in parallel (a store
// through checked indices only when `unique`, its buffer loaded only at the element it
// stores), how a check is emitted (an OpenMP |-reduction on kiln_bad and the error slot after
// the buffers), and the runtime path of a failed check: the evaluator's Diagnostic, the first
// bad index in loop order, and no write outside the buffers.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "codegen/cpp/cpp_emitter.h"
#include "codegen/cpp/cpp_schedule.h"
#include "cpu_backend_util.h"
#include "lower/loop_text.h"
#include "runtime/cpu/compiled_program.h"

namespace kiln {
namespace {

// out: f32[4], zeros, gets src: f32[3] stored (or added, `accumulate`) at the checked
// indices %i (kernel @k1).
LoopProgram scatter_program(bool accumulate, const std::string& store_suffix) {
  std::string body =
      "      %0 = load %i[i0]\n      %1 = indirect %0, size 4, wrap, index_put dim 0 at \"%2 = index_put(...)\"\n"
      "      %2 = load %src[i0]\n";
  if (accumulate)
    body += "      %3 = load %out0[%1]\n      %4 = add %3, %2 : f32\n      store %out0[%1], %4" + store_suffix + "\n";
  else
    body += "      store %out0[%1], %2" + store_suffix + "\n";
  auto p = parse_loops(
      "loops @s(%i: i64[3], %src: f32[3]) -> (%out0) {\n  buffer %out0 : f32[4] strides [1]\n"
      "  kernel @k0 pointwise {\n    for i0 in range(4) {\n      %0 = const 0 : f32\n"
      "      store %out0[i0], %0\n    }\n  }\n"
      "  kernel @k1 pointwise {\n    for i0 in range(3) {\n" +
      body + "    }\n  }\n}\n");
  EXPECT_TRUE(p) << p.error().to_string();
  return p ? *p : LoopProgram{};
}

TEST(CppIndirect, StoresThroughIndicesRunInOrderUnlessUnique) {
  EXPECT_FALSE(cpp::stores_independent(scatter_program(false, "").kernels[1], 1));
  EXPECT_FALSE(cpp::stores_independent(scatter_program(true, "").kernels[1], 1));
  EXPECT_TRUE(cpp::stores_independent(scatter_program(false, " unique").kernels[1], 1));
  EXPECT_TRUE(cpp::stores_independent(scatter_program(true, " unique").kernels[1], 1));
  // A unique store whose buffer is loaded at another element is not independent.
  LoopProgram p = scatter_program(true, " unique");
  BodyOp& load = p.kernels[1].body[3];  // %3 = load %out0[%1] becomes load %out0[0]
  load.indirect.clear();
  load.args.clear();
  EXPECT_FALSE(cpp::stores_independent(p.kernels[1], 1));
}

// index_add of rows: out[%v(i0), i1] += src[i0, i1] with %v from index[i0] (`by_row`) or from
// index[i0, i1] (a per-element index, as scatter's).
LoopKernel row_scatter_kernel(bool by_row) {
  const std::string at = by_row ? "i0" : "3*i0 + i1";
  auto p = parse_loops(
      "loops @s(%i: i64[2,3], %src: f32[2,3]) -> (%out0) {\n  buffer %out0 : f32[4,3] strides [3,1]\n"
      "  kernel @k0 pointwise {\n    for i0 in range(2) {\n      for i1 in range(3) {\n"
      "        %0 = load %i[" +
      at +
      "]\n        %1 = indirect %0, size 4, index_add dim 0 at \"n\"\n"
      "        %2 = load %src[3*i0 + i1]\n        %3 = load %out0[3*%1 + i1]\n        %4 = add %3, %2 : f32\n"
      "        store %out0[3*%1 + i1], %4\n      }\n    }\n  }\n}\n");
  EXPECT_TRUE(p) << p.error().to_string();
  return p ? p->kernels[0] : LoopKernel{};
}

TEST(CppIndirect, RowsOfAScatterRunInOrderTheirElementsVectorized) {
  const LoopKernel rows = row_scatter_kernel(true);
  EXPECT_FALSE(cpp::stores_independent(rows, 2));
  EXPECT_TRUE(cpp::inner_loop_independent(rows));
  EXPECT_EQ(cpp::schedule_cpp_kernel(rows, CppEmitOptions{}).simd_loop, 1);
  EXPECT_EQ(cpp::schedule_cpp_kernel(rows, CppEmitOptions{}).parallel_loop, -1);
  // An index that changes along the row may send two of its elements to one place.
  EXPECT_FALSE(cpp::inner_loop_independent(row_scatter_kernel(false)));
  EXPECT_EQ(cpp::schedule_cpp_kernel(row_scatter_kernel(false), CppEmitOptions{}).simd_loop, -1);
}

TEST(CppIndirect, ChecksReduceAnErrorFlagIntoTheSlotAfterTheBuffers) {
  const std::string cpp = emit_cpp(scatter_program(true, " unique"));
  EXPECT_NE(cpp.find("int kiln_bad = 0;"), std::string::npos) << cpp;
  EXPECT_NE(cpp.find("#pragma omp simd reduction(|:kiln_bad)"), std::string::npos) << cpp;
  EXPECT_NE(cpp.find("const int64_t v1w = (int64_t)v0 < 0 ? (int64_t)v0 + 4 : (int64_t)v0;"), std::string::npos) << cpp;
  EXPECT_NE(cpp.find("const int v1b = (uint64_t)v1w >= (uint64_t)4;"), std::string::npos) << cpp;
  EXPECT_NE(cpp.find("const int64_t v1 = v1b ? (int64_t)0 : v1w;"), std::string::npos) << cpp;
  EXPECT_NE(cpp.find("b2_out0[v1] = v4;"), std::string::npos) << cpp;
  EXPECT_NE(cpp.find("if (kiln_bad) *(int*)buffers[3] = 1;"), std::string::npos) << cpp;
  // No checks, no flag.
  EXPECT_EQ(emit_cpp(*parse_loops("loops @f(%x: f32[2]) -> (%out0) {\n  buffer %out0 : f32[2] strides [1]\n"
                                  "  kernel @k0 pointwise {\n    for i0 in range(2) {\n      %0 = load %x[i0]\n"
                                  "      store %out0[i0], %0\n    }\n  }\n}\n"))
                .find("kiln_bad"),
            std::string::npos);
}

TEST(CppIndirect, FailedCheckIsTheEvaluatorsErrorAfterTheKernel) {
  auto c = CompiledProgram::compile(scatter_program(true, ""), test_compile_options(1));
  ASSERT_TRUE(c) << c.error().to_string();
  const Tensor src = Tensor::from_doubles({1, 2, 4}, {3});
  auto ok = c->run(std::vector<Tensor>{Tensor::from_ints({1, -3, -1}, {3}), src});
  ASSERT_TRUE(ok) << ok.error().to_string();
  const std::vector<double> want = {0, 3, 0, 4};  // 1 and -3 both name element 1: 1 + 2
  for (int64_t e = 0; e < 4; ++e) EXPECT_EQ((*ok)[0].item_double(e), want[static_cast<size_t>(e)]) << e;
  auto bad = c->run(std::vector<Tensor>{Tensor::from_ints({2, 4, -5}, {3}), src});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().to_string().find("index_put: index 4 is out of bounds for dim 0 with size 4\n"
                                         "  while computing %2 = index_put(...)\n  in kernel @k1 of loops @s"),
            std::string::npos)
      << bad.error().to_string();
}

}  // namespace
}  // namespace kiln
