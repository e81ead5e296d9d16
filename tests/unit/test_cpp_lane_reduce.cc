// Reductions generated with lanes (codegen/cpp/cpp_lane_reduce.h) against the loop-IR
// evaluator, on hand-written loop IR with crafted inputs: argmax/argmin ties and NaNs placed
// in different lanes, in the tail and in both; an index that runs backwards (the result is
// the smallest index, not the first point); several reduce ops in one kernel, a floating
// product among them (kept in order, no `omp simd`); an empty reduce loop; rows in parallel.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "codegen/cpp/cpp_emitter.h"
#include "cpu_backend_util.h"
#include "lower/loop_eval.h"
#include "lower/loop_text.h"

namespace kiln {
namespace {

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

LoopProgram parse_or_fail(const std::string& text) {
  auto p = parse_loops(text);
  EXPECT_TRUE(p) << p.error().to_string();
  return p ? std::move(*p) : LoopProgram();
}

// Compiles `p`, runs it and the evaluator on `inputs`, and expects the same outputs.
void expect_compiled_matches_evaluator(const LoopProgram& p, const std::vector<Tensor>& inputs) {
  auto compiled = CompiledProgram::compile(p, test_compile_options());
  ASSERT_TRUE(compiled) << compiled.error().to_string();
  auto got = compiled->run(inputs);
  ASSERT_TRUE(got) << got.error().to_string();
  auto want = eval_loops(p, inputs);
  ASSERT_TRUE(want) << want.error().to_string();
  ASSERT_EQ(got->size(), want->size());
  for (size_t j = 0; j < got->size(); ++j) expect_close((*want)[j], (*got)[j], "output " + std::to_string(j));
}

// Rows of 37 points: two blocks of 16 lanes and a tail of 5.
const char* const kArgRows = R"(loops @arg(%x: f32[7,37]) -> (%out0, %out1, %out2) {
  buffer %out0 : i64[7] strides [1]
  buffer %out1 : i64[7] strides [1]
  buffer %out2 : i64[7] strides [1]
  kernel @k0 reduction {
    for i0 in range(7) {
      for i1 in range(37) reduce {
        %0 = load %x[37*i0 + i1]
        %1 = index i1
      }
      %2 = reduce argmax %0, %1 : i64
      store %out0[i0], %2
    }
  }
  kernel @k1 reduction {
    for i0 in range(7) {
      for i1 in range(37) reduce {
        %0 = load %x[37*i0 + i1]
        %1 = index i1
      }
      %2 = reduce argmin %0, %1 : i64
      store %out1[i0], %2
    }
  }
  kernel @k2 reduction {
    for i0 in range(7) {
      for i1 in range(37) reduce {
        %0 = load %x[37*i0 + i1]
        %1 = index 36 - i1
      }
      %2 = reduce argmax %0, %1 : i64
      store %out2[i0], %2
    }
  }
}
)";

TEST(CppLaneReduce, ArgmaxTiesAndNansAcrossLanesAndTail) {
  const LoopProgram p = parse_or_fail(kArgRows);
  Tensor x = Tensor::randn({7, 37}, 5, DType::F32);
  float* v = x.data<float>();
  for (int i = 0; i < 37; ++i) v[0 * 37 + i] = 1.5f;  // all equal: index 0 (k2: position 36)
  v[1 * 37 + 3] = 9;                                  // the max in lane 3 of block 0 ...
  v[1 * 37 + 19] = 9;                                 // ... again in lane 3 of block 1 ...
  v[1 * 37 + 34] = 9;                                 // ... and in the tail
  v[1 * 37 + 10] = -9;                                // the min once
  v[2 * 37 + 20] = kNan;                              // NaNs: the first wins
  v[2 * 37 + 5] = kNan;
  v[2 * 37 + 33] = kNan;
  for (int i = 0; i < 37; ++i) v[3 * 37 + i] = -kInf;  // all -inf: index 0
  v[4 * 37 + 35] = kNan;                               // a NaN only in the tail
  v[4 * 37 + 2] = 50;
  for (int i = 0; i < 37; ++i) v[5 * 37 + i] = kInf;  // all +inf
  v[6 * 37 + 36] = 100;                               // the max is the last point
  v[6 * 37 + 0] = -100;                               // the min the first
  expect_compiled_matches_evaluator(p, {x});
  const std::vector<Tensor> in{x};
  auto want = eval_loops(p, in);
  ASSERT_TRUE(want);
  const int64_t* argmax = (*want)[0].template data<int64_t>();
  const int64_t* argmin = (*want)[1].template data<int64_t>();
  const int64_t* backwards = (*want)[2].template data<int64_t>();
  EXPECT_EQ(argmax[0], 0);
  EXPECT_EQ(backwards[0], 0);  // the smallest index, which the last point has
  EXPECT_EQ(argmax[1], 3);
  EXPECT_EQ(argmin[1], 10);
  EXPECT_EQ(argmax[2], 5);
  EXPECT_EQ(argmin[2], 5);
  EXPECT_EQ(argmax[3], 0);
  EXPECT_EQ(argmax[4], 35);
  EXPECT_EQ(argmax[6], 36);
  EXPECT_EQ(argmin[6], 0);
  const std::string cpp = emit_cpp(p);
  EXPECT_NE(cpp.find("#pragma omp simd\n      for (int64_t l = 0; l < 16; ++l) {"), std::string::npos) << cpp;
}

TEST(CppLaneReduce, IntegerExtremesAndEmptyLoops) {
  const LoopProgram p = parse_or_fail(R"(loops @ints(%x: i64[3,20], %e: u8[4,0]) -> (%out0, %out1, %out2) {
  buffer %out0 : i64[3] strides [1]
  buffer %out1 : i64[3] strides [1]
  buffer %out2 : i32[4] strides [1]
  kernel @k0 reduction {
    for i0 in range(3) {
      for i1 in range(20) reduce {
        %0 = load %x[20*i0 + i1]
        %1 = index i1
      }
      %2 = reduce argmax %0, %1 : i64
      store %out0[i0], %2
    }
  }
  kernel @k1 reduction {
    for i0 in range(3) {
      for i1 in range(20) reduce {
        %0 = load %x[20*i0 + i1]
        %1 = index i1
      }
      %2 = reduce argmin %0, %1 : i64
      store %out1[i0], %2
    }
  }
  kernel @k2 reduction {
    for i0 in range(4) {
      for i1 in range(0) reduce {
        %0 = load %e[i1]
        %1 = index i1
      }
      %2 = reduce argmin %0, %1 : i32
      store %out2[i0], %2
    }
  }
}
)");
  Tensor x = Tensor::zeros({3, 20}, DType::I64);
  int64_t* v = x.data<int64_t>();
  for (int i = 0; i < 20; ++i) v[i] = std::numeric_limits<int64_t>::min();  // row 0: all INT64_MIN
  for (int i = 0; i < 20; ++i) v[20 + i] = std::numeric_limits<int64_t>::max();
  v[40 + 17] = 7;  // row 2: the max in the tail, min 0 at index 0
  const Tensor e = Tensor::zeros({4, 0}, DType::U8);
  expect_compiled_matches_evaluator(p, {x, e});
  const std::vector<Tensor> in{x, e};
  auto want = eval_loops(p, in);
  ASSERT_TRUE(want);
  EXPECT_EQ((*want)[0].template data<int64_t>()[0], 0);
  EXPECT_EQ((*want)[1].template data<int64_t>()[1], 0);
  EXPECT_EQ((*want)[0].template data<int64_t>()[2], 17);
  EXPECT_EQ((*want)[2].template data<int32_t>()[0], -1);  // no point
}

// Four reduce ops fold over the same points; the floating product keeps its order, so the
// lane loop has no `omp simd`.
TEST(CppLaneReduce, SeveralReduceOpsInOneKernel) {
  const LoopProgram p = parse_or_fail(R"(loops @multi(%x: f32[5,45]) -> (%out0) {
  buffer %out0 : f32[5,4] strides [4,1]
  kernel @k0 reduction {
    for i0 in range(5) {
      for i1 in range(45) reduce {
        %0 = load %x[45*i0 + i1]
        %1 = index i1
        %2 = mul %0, %0 : f32
      }
      %3 = reduce sum %2 : f32
      %4 = reduce max %0 : f32
      %5 = reduce argmin %0, %1 : i64
      %6 = reduce prod %0 : f32
      store %out0[4*i0], %3
      store %out0[4*i0 + 1], %4
      %7 = cast %5 : f32
      store %out0[4*i0 + 2], %7
      store %out0[4*i0 + 3], %6
    }
  }
}
)");
  Tensor x = Tensor::randn({5, 45}, 9, DType::F32);
  x.data<float>()[2 * 45 + 40] = kNan;  // row 2: max NaN, argmin at the NaN
  expect_compiled_matches_evaluator(p, {x});
  const std::string cpp = emit_cpp(p);
  EXPECT_EQ(cpp.find("#pragma omp simd"), std::string::npos) << cpp;
  EXPECT_NE(cpp.find("a3_t *= v0;"), std::string::npos) << cpp;
}

// welford_mean and welford_m2 of one value share one accumulator; rows of 45 points (two
// blocks and a tail of 13), 16 (one block, no tail), 7 (a tail only), 0 (no point: mean NaN,
// m2 0), and integers. Values with a large mean and a small spread (row 3): Welford in float
// lost 1e-4 of m2 there, so it folds in double.
TEST(CppLaneReduce, WelfordMeanAndM2) {
  const LoopProgram p = parse_or_fail(
      R"(loops @w(%x: f32[5,45], %y: f64[4,16], %z: f32[6,7], %e: f32[3,0], %i: i32[3,7]) -> (%out0, %out1, %out2, %out3, %out4) {
  buffer %out0 : f32[5,2] strides [2,1]
  buffer %out1 : f64[4,2] strides [2,1]
  buffer %out2 : f32[6] strides [1]
  buffer %out3 : f32[3,2] strides [2,1]
  buffer %out4 : f64[3] strides [1]
  kernel @k0 reduction {
    for i0 in range(5) {
      for i1 in range(45) reduce {
        %0 = load %x[45*i0 + i1]
      }
      %1 = reduce welford_mean %0 : f32
      %2 = reduce welford_m2 %0 : f32
      store %out0[2*i0], %1
      store %out0[2*i0 + 1], %2
    }
  }
  kernel @k1 reduction {
    for i0 in range(4) {
      for i1 in range(16) reduce {
        %0 = load %y[16*i0 + i1]
      }
      %1 = reduce welford_m2 %0 : f64
      %2 = reduce welford_mean %0 : f64
      store %out1[2*i0], %2
      store %out1[2*i0 + 1], %1
    }
  }
  kernel @k2 reduction {
    for i0 in range(6) {
      for i1 in range(7) reduce {
        %0 = load %z[7*i0 + i1]
      }
      %1 = reduce welford_m2 %0 : f32
      store %out2[i0], %1
    }
  }
  kernel @k3 reduction {
    for i0 in range(3) {
      for i1 in range(0) reduce {
        %0 = load %e[i1]
      }
      %1 = reduce welford_mean %0 : f32
      %2 = reduce welford_m2 %0 : f32
      store %out3[2*i0], %1
      store %out3[2*i0 + 1], %2
    }
  }
  kernel @k4 reduction {
    for i0 in range(3) {
      for i1 in range(7) reduce {
        %0 = load %i[7*i0 + i1]
      }
      %1 = reduce welford_m2 %0 : f64
      store %out4[i0], %1
    }
  }
}
)");
  Tensor x = Tensor::randn({5, 45}, 21, DType::F32);
  for (int64_t j = 0; j < 45; ++j) x.data<float>()[3 * 45 + j] += 10000.0f;  // row 3: mean 1e4, spread 1
  x.data<float>()[4 * 45 + 44] = kNan;                                       // row 4: a NaN in the tail
  Tensor i = Tensor::randint(-1000, 1000, {3, 7}, 4, DType::I32);
  const std::vector<Tensor> in{x, Tensor::randn({4, 16}, 22, DType::F64), Tensor::randn({6, 7}, 23, DType::F32),
                               Tensor::zeros({3, 0}, DType::F32), i};
  expect_compiled_matches_evaluator(p, in);
  auto want = eval_loops(p, in);
  ASSERT_TRUE(want);
  const float* mean_m2 = (*want)[0].template data<float>();
  EXPECT_NEAR(mean_m2[3 * 2], 10000.0, 1.0);
  EXPECT_TRUE(std::isnan(mean_m2[4 * 2 + 1]));
  EXPECT_TRUE(std::isnan((*want)[3].template data<float>()[0]));
  EXPECT_EQ((*want)[3].template data<float>()[1], 0.0f);
  const std::string cpp = emit_cpp(p);
  EXPECT_NE(cpp.find("#pragma omp simd reduction(+:a0_s)"), std::string::npos) << cpp;  // chunks
  EXPECT_EQ(cpp.find("a1_s"), std::string::npos) << cpp;                                // one accumulator per kernel
}

// Welford beside another reduce op folds per lane instead of in chunks (every lane has seen
// the same number of points, so 1/count is one scalar per block).
TEST(CppLaneReduce, WelfordInLanesBesideAnotherReduceOp) {
  const LoopProgram p = parse_or_fail(R"(loops @wl(%x: f32[5,45]) -> (%out0) {
  buffer %out0 : f32[5,3] strides [3,1]
  kernel @k0 reduction {
    for i0 in range(5) {
      for i1 in range(45) reduce {
        %0 = load %x[45*i0 + i1]
      }
      %1 = reduce welford_m2 %0 : f32
      %2 = reduce max %0 : f32
      %3 = reduce welford_mean %0 : f32
      store %out0[3*i0], %1
      store %out0[3*i0 + 1], %2
      store %out0[3*i0 + 2], %3
    }
  }
}
)");
  Tensor x = Tensor::randn({5, 45}, 31, DType::F32);
  for (int64_t j = 0; j < 45; ++j) x.data<float>()[2 * 45 + j] += 10000.0f;
  expect_compiled_matches_evaluator(p, {x});
  const std::string cpp = emit_cpp(p);
  EXPECT_NE(cpp.find("++a0_n;\n      const double a0_r = (double)1 / (double)a0_n;\n      #pragma omp simd"),
            std::string::npos)
      << cpp;
  EXPECT_EQ(cpp.find("a2_m"), std::string::npos) << cpp;  // mean and m2 share a0
}

// Two rows of 300000 points: the rows are too few to run in parallel, so the chunks do, each
// thread's mean and m2 joining a total; 300000 = 1171 chunks of 256 and 224 points after.
// Row 1 is 500 +- 0.001: without the shift its m2 was off by 2e-3.
TEST(CppLaneReduce, WelfordChunksInParallel) {
  const LoopProgram p = parse_or_fail(R"(loops @wp(%x: f32[2,300000]) -> (%out0, %out1) {
  buffer %out0 : f32[2] strides [1]
  buffer %out1 : f32[2] strides [1]
  kernel @k0 reduction {
    for i0 in range(2) {
      for i1 in range(300000) reduce {
        %0 = load %x[300000*i0 + i1]
      }
      %1 = reduce welford_mean %0 : f32
      %2 = reduce welford_m2 %0 : f32
      store %out0[i0], %1
      store %out1[i0], %2
    }
  }
}
)");
  Tensor x = Tensor::randn({2, 300000}, 41, DType::F32);
  for (int64_t j = 0; j < 300000; ++j) x.data<float>()[300000 + j] = x.data<float>()[300000 + j] * 0.001f + 500.0f;
  expect_compiled_matches_evaluator(p, {x});
  const std::string cpp = emit_cpp(p);
  EXPECT_NE(cpp.find("#pragma omp parallel\n"), std::string::npos) << cpp;
  EXPECT_NE(cpp.find("#pragma omp for schedule(static)\n"), std::string::npos) << cpp;
  EXPECT_NE(cpp.find("#pragma omp critical"), std::string::npos) << cpp;
  EXPECT_NE(cpp.find("{  // the last block: 224 points"), std::string::npos) << cpp;
}

// 600 rows of 80 points: past the parallel threshold, the rows run in parallel.
TEST(CppLaneReduce, LargeKernelsRunRowsInParallel) {
  const LoopProgram p = parse_or_fail(R"(loops @big(%x: f64[600,80]) -> (%out0) {
  buffer %out0 : i64[600] strides [1]
  kernel @k0 reduction {
    for i0 in range(600) {
      for i1 in range(80) reduce {
        %0 = load %x[80*i0 + i1]
        %1 = index i1
      }
      %2 = reduce argmin %0, %1 : i64
      store %out0[i0], %2
    }
  }
}
)");
  Tensor x = Tensor::randn({600, 80}, 3, DType::F64);
  expect_compiled_matches_evaluator(p, {x});
  EXPECT_NE(emit_cpp(p).find("#pragma omp parallel for\n  for (int64_t i0 = 0; i0 < 600; ++i0)"), std::string::npos);
}

}  // namespace
}  // namespace kiln
