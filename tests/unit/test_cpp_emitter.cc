// The C++ emitter without compiling: golden units (tests/golden/cpp/*.cpp; regenerate with
// KILN_UPDATE_GOLDEN=1), loop collapsing, the OpenMP schedule, symbols, index and literal text.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "autograd/joint_graph.h"
#include "autograd/partition.h"
#include "backend/compile_graph.h"
#include "codegen/collapse_loops.h"
#include "codegen/cpp/cpp_emitter.h"
#include "codegen/cpp/cpp_index.h"
#include "codegen/cpp/cpp_prelude.h"
#include "codegen/cpp/cpp_scalar.h"
#include "ir/parser.h"
#include "lower/loop_text.h"
#include "lower/lower.h"
#include "lowering_cases.h"
#include "runtime/cpu/cpu_backend.h"

namespace kiln {
namespace {

LoopProgram lower(const std::string& text) {
  auto g = parse_graph(text);
  EXPECT_TRUE(g) << g.error().to_string();
  auto p = lower_graph(**g);
  EXPECT_TRUE(p) << p.error().to_string();
  return std::move(*p);
}

LoopProgram parse(const std::string& text) {
  auto p = parse_loops(text);
  EXPECT_TRUE(p) << p.error().to_string();
  return std::move(*p);
}

// Compares `text` with the golden file, or rewrites the file when KILN_UPDATE_GOLDEN=1. The
// prelude every unit carries is replaced by one line: it is source (cpp_prelude.cc), tested on
// its own (CppMath, the differential tests), and would repeat in every golden file.
void expect_golden(std::string text, const std::string& name) {
  const std::string_view prelude = cpp::cpp_prelude();
  const size_t at = text.find(prelude);
  ASSERT_NE(at, std::string::npos) << "the unit does not carry the prelude";
  text.replace(at, prelude.size(), "// [prelude: src/codegen/cpp/cpp_prelude.cc]\n");
  const std::string path = std::string(KILN_SOURCE_DIR) + "/tests/golden/cpp/" + name;
  const char* update = std::getenv("KILN_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << text;
    return;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << "missing golden " << path << "; create it with KILN_UPDATE_GOLDEN=1";
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string want = ss.str();
  if (want == text) return;
  std::istringstream a(want), b(text);
  std::string la, lb;
  int line = 1;
  while (std::getline(a, la) && std::getline(b, lb) && la == lb) ++line;
  ADD_FAILURE() << "generated C++ differs from " << path << " at line " << line << ":\n- " << la << "\n+ " << lb
                << "\nIf the change is intended, regenerate: KILN_UPDATE_GOLDEN=1 build/tests/kiln_unit_tests "
                   "--gtest_filter='CppEmitter.Golden*'";
}

TEST(CppEmitter, GoldenPointwiseChain) {
  expect_golden(emit_cpp(lower(with_dtype(kLoweringCases[0].text, "f32"))), "pointwise_chain.cpp");
}

TEST(CppEmitter, GoldenReductionRows) {
  expect_golden(emit_cpp(lower("graph @rows(%x: f32[4,64]) -> (f32[4], f32[4,1]) {\n"
                               " %0 = sum(%x) {dim=[1]} : f32[4]\n %1 = amax(%x) {dim=[1], keepdim=true} : f32[4,1]\n"
                               " return %0, %1\n}")),
                "reduction_rows.cpp");
}

// Blocked sums (codegen/cpp/cpp_reduce.h): rows of 1000, blocks of 256 points (16 lanes of 16,
// each joining its double total), a last block of 224 and 8 points after; 100,000 points in
// blocks run in parallel (the lanes' totals are OpenMP's reduction); a sum beside a max (a
// kernel with lanes) whose groups run in blocks, each ending with the lanes' join into double
// totals; an inner reduce loop of 20 points, a block of 16 and 4 after under an outer reduce
// loop; and a product, in order, in double.
TEST(CppEmitter, GoldenReductionBlocks) {
  expect_golden(
      emit_cpp(parse(
          R"(loops @blocks(%x: f32[4,1000], %y: f32[100000], %z: f32[4,50,20]) -> (%out0, %out1, %out2, %out3, %out4, %out5) {
  buffer %out0 : f32[4] strides [1]
  buffer %out1 : f32[] strides []
  buffer %out2 : f32[4] strides [1]
  buffer %out3 : f32[4] strides [1]
  buffer %out4 : f32[4] strides [1]
  buffer %out5 : f32[4] strides [1]
  kernel @k0 reduction {
    for i0 in range(4) {
      for i1 in range(1000) reduce {
        %0 = load %x[1000*i0 + i1]
      }
      %1 = reduce sum %0 : f32
      store %out0[i0], %1
    }
  }
  kernel @k1 reduction {
    for i0 in range(100000) reduce {
      %0 = load %y[i0]
    }
    %1 = reduce sum %0 : f32
    store %out1[0], %1
  }
  kernel @k2 reduction {
    for i0 in range(4) {
      for i1 in range(1000) reduce {
        %0 = load %x[1000*i0 + i1]
      }
      %1 = reduce sum %0 : f32
      %2 = reduce max %0 : f32
      store %out2[i0], %1
      store %out3[i0], %2
    }
  }
  kernel @k3 reduction {
    for i0 in range(4) {
      for i1 in range(50) reduce {
        for i2 in range(20) reduce {
          %0 = load %z[1000*i0 + 20*i1 + i2]
          %1 = load %x[i2]
          %2 = mul %0, %1 : f32
        }
      }
      %3 = reduce sum %2 : f32
      store %out4[i0], %3
    }
  }
  kernel @k4 reduction {
    for i0 in range(4) {
      for i1 in range(1000) reduce {
        %0 = load %x[1000*i0 + i1]
      }
      %1 = reduce prod %0 : f32
      store %out5[i0], %1
    }
  }
}
)")),
      "reduction_blocks.cpp");
}

// The CPU backend's pipeline (decomposition first) on a row softmax: one fused kernel, rows in
// parallel, max / sum of exp / division per row.
TEST(CppEmitter, GoldenSoftmax) {
  auto g = parse_graph(
      "graph @softmax(%x: f32[64,128]) -> (f32[64,128]) {\n %0 = softmax(%x) {dim=-1} : f32[64,128]\n"
      " return %0\n}");
  ASSERT_TRUE(g);
  auto p = lower_graph_for(**g, CpuBackend());
  ASSERT_TRUE(p) << p.error().to_string();
  expect_golden(emit_cpp(*p), "softmax.cpp");
}

// layer_norm's backward graph (kiln's derivative rule, default partition) as generated C++.
TEST(CppEmitter, GoldenLayerNormBackward) {
  auto g = parse_graph(
      "graph @layer_norm(%x: f32[64,128], %w: f32[128], %b: f32[128]) -> (f32[64,128]) {\n"
      " %0 = layer_norm(%x, %w, %b) {normalized_shape=[128]} : f32[64,128]\n return %0\n}");
  ASSERT_TRUE(g);
  auto joint = joint_graph(**g);
  ASSERT_TRUE(joint) << joint.error().to_string();
  auto part = partition(*joint, PartitionOptions{.kind = PartitionKind::Default});
  ASSERT_TRUE(part) << part.error().to_string();
  auto p = lower_graph_for(*part->backward, CpuBackend());
  ASSERT_TRUE(p) << p.error().to_string();
  expect_golden(emit_cpp(*p), "layer_norm_backward.cpp");
}

TEST(CppEmitter, DeterministicAndOptionsInText) {
  const LoopProgram p = lower(with_dtype(kLoweringCases[3].text, "f64"));
  EXPECT_EQ(emit_cpp(p), emit_cpp(p));
  CppEmitOptions o;
  EXPECT_EQ(o.to_string(), "openmp=1 parallel_threshold=32768 collapse=1 streaming_store_bytes=33554432");
  o.openmp = false;
  const std::string serial = emit_cpp(p, o);
  EXPECT_EQ(serial.find("#pragma"), std::string::npos) << serial;
  EXPECT_NE(serial.find("// Options: openmp=0 parallel_threshold=32768 collapse=1 streaming_store_bytes=33554432."),
            std::string::npos);
}

TEST(CppEmitter, ContiguousLoopsCollapse) {
  const LoopProgram p =
      lower("graph @g(%x: f32[4096,4096]) -> (f32[4096,4096]) {\n %0 = exp(%x) : f32[4096,4096]\n return %0\n}");
  const std::string cpp = emit_cpp(p);
  EXPECT_NE(cpp.find("// kernel @k0: pointwise, loops [4096, 4096] (run as [16777216])\n"), std::string::npos) << cpp;
  EXPECT_NE(cpp.find("  #pragma omp parallel for simd\n  for (int64_t i0 = 0; i0 < 16777216; ++i0) {"),
            std::string::npos);
  CppEmitOptions o;
  o.collapse = false;
  EXPECT_NE(emit_cpp(p, o).find("for (int64_t i1 = 0; i1 < 4096; ++i1)"), std::string::npos);
}

TEST(CppEmitter, CollapseKeepsStridedAndSplitsReduceLoops) {
  // A transposed read does not collapse; size-1 dims go; reduce loops merge among themselves.
  const LoopProgram p = lower(
      "graph @g(%x: f32[6,8], %y: f32[4,1,8,6]) -> (f32[8,6], f32[4]) {\n %0 = t(%x) : f32[8,6]\n"
      " %1 = exp(%0) : f32[8,6]\n %2 = sum(%y) {dim=[2, 3]} : f32[4,1]\n %3 = squeeze(%2) : f32[4]\n return %1, %3\n}");
  const LoopKernel t = collapse_loops(p.kernels[0]);
  EXPECT_EQ(t.loops, (std::vector<int64_t>{8, 6}));
  const LoopKernel r = collapse_loops(p.kernels[1]);
  EXPECT_EQ(r.loops, (std::vector<int64_t>{4, 48}));
  EXPECT_EQ(r.num_reduce_loops, 1);
  EXPECT_EQ(r.body[0].index.to_string(), "48*i0 + i1");
}

TEST(CppEmitter, OverlappingStoresGetNoPragmas) {
  // Every iteration stores to %out0[0]: neither simd nor parallel may reorder them.
  const LoopProgram p = parse(
      "loops @f(%x: f32[100000]) -> (%out0) {\n  buffer %out0 : f32[1] strides [1]\n  kernel @k0 pointwise {\n"
      "    for i0 in range(100000) {\n      %0 = load %x[i0]\n      store %out0[0], %0\n    }\n  }\n}\n");
  EXPECT_EQ(emit_cpp(p).find("#pragma omp"), std::string::npos) << emit_cpp(p);
}

TEST(CppEmitter, ExternKernelsAreNotEmitted) {
  const LoopProgram p = lower(with_dtype(kLoweringCases[7].text, "f32"));  // extern_matmul
  const std::string cpp = emit_cpp(p);
  EXPECT_EQ(cpp.find("kiln_g_k0("), std::string::npos) << cpp;  // the matmul
  EXPECT_NE(cpp.find("extern \"C\" void kiln_g_k1(char* const* buffers)"), std::string::npos) << cpp;
  EXPECT_EQ(cpp_kernel_symbols(p), (std::vector<std::string>{"", "kiln_g_k1"}));
}

TEST(CppEmitter, SymbolsAreIdentifiersAndUnique) {
  LoopProgram p;
  p.name = "my-graph";
  for (const char* name : {"k.0", "k_0", "k-0"}) {
    LoopKernel k;
    k.name = name;
    p.kernels.push_back(k);
  }
  EXPECT_EQ(cpp_kernel_symbols(p),
            (std::vector<std::string>{"kiln_my_graph_k_0", "kiln_my_graph_k_0_1", "kiln_my_graph_k_0_2"}));
}

TEST(CppEmitter, IndexText) {
  const IndexExpr i0 = IndexExpr::var(0), i1 = IndexExpr::var(1);
  EXPECT_EQ(cpp::index_cpp(i0.scaled(8).plus(i1).plus(IndexExpr::constant_of(3))), "8 * i0 + i1 + 3");
  EXPECT_EQ(cpp::index_cpp(i0.scaled(-2).plus(IndexExpr::constant_of(-1))), "-2 * i0 - 1");
  EXPECT_EQ(cpp::index_cpp(IndexExpr::floor_div(i0.scaled(4).plus(i1), 6).scaled(2)), "2 * ((4 * i0 + i1) / 6)");
  EXPECT_EQ(cpp::index_cpp(IndexExpr::mod(i1, 4).scaled(-1)), "-(i1 % 4)");
  // A dividend that may be negative needs the exact helpers (floor_div keeps only the part
  // the divisor does not divide inside).
  const IndexExpr neg = i0.plus(i1.scaled(-3));
  EXPECT_EQ(cpp::index_cpp(IndexExpr::floor_div(neg, 2)), "kiln_floordiv(i0 - 3 * i1, 2)");
  EXPECT_EQ(cpp::index_cpp(IndexExpr::mod(IndexExpr::floor_div(neg, 2), 4).plus(IndexExpr::constant_of(1))),
            "kiln_mod(kiln_floordiv(i0 - 3 * i1, 2), 4) + 1");
  // mod keeps its dividend's constant in [0, d): non-negative again, plain %.
  EXPECT_EQ(cpp::index_cpp(IndexExpr::mod(i0.plus(IndexExpr::constant_of(-3)), 8)), "(i0 + 5) % 8");
  EXPECT_EQ(cpp::index_cpp(IndexExpr::constant_of(INT64_MIN)), "(-9223372036854775807 - 1)");
}

TEST(CppEmitter, LiteralsAreExact) {
  EXPECT_EQ(cpp::float_literal(0.1, true), "0.1f");
  EXPECT_EQ(cpp::float_literal(0.1, false), "0.1");
  EXPECT_EQ(cpp::float_literal(2.0, true), "2.0f");
  EXPECT_EQ(cpp::float_literal(-0.0, false), "-0.0");
  EXPECT_EQ(cpp::float_literal(1e-5, false), "1e-05");
  EXPECT_EQ(cpp::float_literal(-INFINITY, true), "-__builtin_inff()");
  EXPECT_EQ(cpp::float_literal(NAN, false), "__builtin_nan(\"\")");
  // const rounds to its dtype first, as the evaluator does.
  EXPECT_EQ(cpp::const_literal(Scalar(0.1), DType::F16), "0.099975586f");
  EXPECT_EQ(cpp::const_literal(Scalar(int64_t{300}), DType::I8), "44");
  EXPECT_EQ(cpp::const_literal(Scalar(2.5), DType::Bool), "true");
  EXPECT_EQ(cpp::const_literal(Scalar(int64_t{INT64_MIN}), DType::I64), "(-9223372036854775807 - 1)");
}

}  // namespace
}  // namespace kiln
