// The CPU backend against the interpreter and the loop-IR evaluator: lowered graphs in f64,
// f32, f16, bf16, integers and bool (the lowering cases, merged so one compile covers
// many), hand-written loop IR for the scalar semantics (casts, wrapping, div/mod of
// negative values, NaN), bit-exact f16/bf16 conversions, kernels large enough to run in
// parallel, non-contiguous inputs and concurrent runs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <thread>

#include "codegen/cpp/cpp_emitter.h"
#include "cpu_backend_util.h"
#include "interp/interpreter.h"
#include "ir/parser.h"
#include "lower/loop_eval.h"
#include "lower/loop_text.h"
#include "lower/lower.h"
#include "lower/schedule.h"
#include "lowering_cases.h"

namespace kiln {
namespace {

struct Suite {
  std::vector<std::unique_ptr<Graph>> graphs;
  std::vector<std::vector<Tensor>> inputs;  // per graph
  std::vector<LoopProgram> parts;
  LowerOptions lower_options = {};

  void add(const std::string& text, std::vector<Tensor> in = {}) {
    auto g = parse_graph(text);
    ASSERT_TRUE(g) << g.error().to_string() << "\n" << text;
    auto p = lower_graph(**g, lower_options);
    ASSERT_TRUE(p) << p.error().to_string();
    if (in.empty()) {
      for (int i = 0; i < (*g)->num_inputs(); ++i) {
        const TensorType& t = (*g)->input(i)->type();
        in.push_back(Tensor::randn(t.shape.sizes(), 100 + static_cast<uint64_t>(i), t.dtype));
      }
    }
    graphs.push_back(std::move(*g));
    inputs.push_back(std::move(in));
    parts.push_back(std::move(*p));
  }

  // Compiles all graphs as one program, runs it, and compares every output with the
  // interpreter's and the evaluator's.
  void check(const std::string& name) {
    const LoopProgram merged = merge_programs(name, parts);
    std::vector<Tensor> all;
    for (const auto& in : inputs) all.insert(all.end(), in.begin(), in.end());
    const CompiledAndEvaluated runs = run_compiled_and_evaluated(merged, all);
    ASSERT_EQ(runs.compiled.size(), merged.outputs.size());
    size_t at = 0;
    for (size_t g = 0; g < graphs.size(); ++g) {
      auto want = interpret(*graphs[g], inputs[g]);
      ASSERT_TRUE(want) << want.error().to_string();
      for (size_t j = 0; j < want->size(); ++j, ++at) {
        const std::string what =
            "graph " + std::to_string(g) + " (@" + graphs[g]->name() + ") output " + std::to_string(j);
        expect_close((*want)[j], runs.compiled[at], what + " vs the interpreter");
        expect_close(runs.evaluated[at], runs.compiled[at], what + " vs the evaluator");
      }
    }
  }
};

TEST(CppBackend, LoweringCasesF64AndF32) {
  Suite s;
  for (const char* dt : {"f64", "f32"})
    for (const LoweringCase& c : kLoweringCases) s.add(with_dtype(c.text, dt));
  s.check("cases");
}

Tensor ints(std::vector<int64_t> v, DType dt) {
  const int64_t n = static_cast<int64_t>(v.size());
  return Tensor::from_ints(std::move(v), {n}, dt);
}

TEST(CppBackend, HalfIntegerAndBoolGraphs) {
  Suite s;
  for (const char* dt : {"f16", "bf16"})
    for (const LoweringCase& c : kLoweringCases) {
      const std::string name = c.name;
      if (name == "pointwise_chain" || name == "broadcast" || name == "compare_where" || name == "reductions" ||
          name == "views")
        s.add(with_dtype(c.text, dt));
    }
  // Integer arithmetic wraps (i64 and i32); casts from float saturate through int64, then wrap.
  const int64_t big = int64_t{1} << 62;
  s.add(
      "graph @ints(%x: i64[8], %y: i64[8], %a: i32[8], %b: i32[8]) -> (i64[8], i64[8], i64[8], i64[8], i32[8], "
      "i32[8], i64[], i32[8], bool[8], i64[8], f32[8], i64[], i32[8], i64[8], i64[8]) {\n"
      " %0 = add(%x, %y) : i64[8]\n %1 = mul(%x, %y) : i64[8]\n %2 = sub(%x, %y) : i64[8]\n %3 = neg(%x) : i64[8]\n"
      " %4 = add(%a, %b) : i32[8]\n %5 = mul(%a, %b) : i32[8]\n %6 = sum(%x) : i64[]\n %7 = abs(%a) : i32[8]\n"
      " %8 = gt(%x, %y) : bool[8]\n %9 = maximum(%x, %y) : i64[8]\n %10 = _to_copy(%x) {dtype=f32} : f32[8]\n"
      " %11 = amax(%x) : i64[]\n %12 = where(%8, %a, %b) : i32[8]\n %13 = relu(%y) : i64[8]\n"
      " %14 = minimum(%x, %y) : i64[8]\n"
      " return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14\n}",
      {ints({INT64_MAX, INT64_MIN, -1, 5, big, -big, 123456789012345, (int64_t{1} << 53) + 1}, DType::I64),
       ints({1, -1, INT64_MIN, -3, 4, 3, 987654321, -7}, DType::I64),
       ints({INT32_MAX, INT32_MIN, -7, 65536, 3, -2, 0, 46341}, DType::I32),
       ints({1, -1, INT32_MIN, 65536, -5, 9, 1, 46341}, DType::I32)});
  const double nan = std::nan("");
  s.add(
      "graph @casts(%f: f32[8]) -> (i32[8], u8[8], i8[8], bool[8], i64[8], f16[8]) {\n"
      " %0 = _to_copy(%f) {dtype=i32} : i32[8]\n %1 = _to_copy(%f) {dtype=u8} : u8[8]\n"
      " %2 = _to_copy(%f) {dtype=i8} : i8[8]\n %3 = _to_copy(%f) {dtype=bool} : bool[8]\n"
      " %4 = _to_copy(%f) {dtype=i64} : i64[8]\n %5 = _to_copy(%f) {dtype=f16} : f16[8]\n"
      " return %0, %1, %2, %3, %4, %5\n}",
      {Tensor::from_doubles({nan, 1e20, -1e20, 3.7, -3.7, 2147483648.0, 300.5, 70000.0}, {8}, DType::F32)});
  s.add(
      "graph @bools(%p: bool[6], %q: bool[6], %x: f32[6]) -> (bool[6], bool[6], bool[6], f32[6], i64[], bool[6]) {\n"
      " %0 = logical_and(%p, %q) : bool[6]\n %1 = logical_or(%p, %q) : bool[6]\n %2 = logical_not(%p) : bool[6]\n"
      " %3 = where(%p, %x, 0.5) : f32[6]\n %4 = sum(%p) : i64[]\n %5 = eq(%p, %q) : bool[6]\n"
      " return %0, %1, %2, %3, %4, %5\n}",
      {ints({1, 0, 1, 0, 1, 1}, DType::Bool), ints({1, 1, 0, 0, 1, 0}, DType::Bool),
       Tensor::from_doubles({1, -2, 3, -4, 5, -6}, {6}, DType::F32)});
  s.check("dtypes");
}

// Loop IR the lowering does not produce yet, against the evaluator: div/mod of negative
// values, casts between every kind, integer min/prod reductions, float prod, NaN in max/min.
constexpr const char* kScalarSemantics =
    R"(loops @sem(%x: f32[8], %n: i64[8], %h: f16[8]) -> (%o0, %o1, %o2, %o3, %o4, %o5, %o6, %o7) {
  buffer %o0 : i64[8] strides [1]
  buffer %o1 : f64[8] strides [1]
  buffer %o2 : i8[8] strides [1]
  buffer %o3 : f32[1] strides [1]
  buffer %o4 : i64[1] strides [1]
  buffer %o5 : i64[1] strides [1]
  buffer %o6 : f32[2] strides [1]
  buffer %o7 : bf16[8] strides [1]
  kernel @divmod pointwise {
    for i0 in range(8) {
      %a = load %n[mod(i0 - 3, 8)]
      %b = load %n[div(i0 - 3, 2) + 2]
      %c = mul %a, %b : i64
      %d = sub %c, %a : i64
      store %o0[i0], %d
    }
  }
  kernel @mixed pointwise {
    for i0 in range(8) {
      %a = load %x[i0]
      %b = load %n[i0]
      %c = lt %a, %b : bool
      %d = cast %a : f64
      %e = pow %d, %b : f64
      %f = where %c, %e, %a : f64
      %g = rsqrt %d : f64
      %h = reciprocal %g : f64
      %k = minimum %h, %d : f64
      %o = add %f, %k : f64
      store %o1[i0], %o
    }
  }
  kernel @narrow pointwise {
    for i0 in range(8) {
      %a = load %h[i0]
      %b = const 1000.0 : f16
      %c = mul %a, %b : f16
      %d = cast %c : i8
      %e = const 200 : i8
      %f = add %d, %e : i8
      store %o2[i0], %f
    }
  }
  kernel @fprod reduction {
    for i0 in range(8) reduce {
      %a = load %x[i0]
    }
    %p = reduce prod %a : f32
    store %o3[0], %p
  }
  kernel @iprod reduction {
    for i0 in range(8) reduce {
      %a = load %n[i0]
    }
    %p = reduce prod %a : i64
    store %o4[0], %p
  }
  kernel @imin reduction {
    for i0 in range(8) reduce {
      %a = load %n[i0]
    }
    %p = reduce min %a : i64
    store %o5[0], %p
  }
  kernel @fminmax reduction {
    for i0 in range(2) {
      for i1 in range(4) reduce {
        %a = load %x[4*i0 + i1]
      }
      %p = reduce min %a : f32
      store %o6[i0], %p
    }
  }
  kernel @tobf16 pointwise {
    for i0 in range(8) {
      %a = load %n[i0]
      %b = cast %a : bf16
      %c = sigmoid %b : bf16
      %d = logical_not %c : bool
      %e = where %d, %c, %b : bf16
      store %o7[i0], %e
    }
  }
}
)";

TEST(CppBackend, ScalarSemanticsMatchEvaluator) {
  auto p = parse_loops(kScalarSemantics);
  ASSERT_TRUE(p) << p.error().to_string();
  const double nan = std::nan("");
  const std::vector<Tensor> in = {
      Tensor::from_doubles({0.5, 2.0, nan, 4.0, 1.5, 9.0, 0.25, 3.0}, {8}, DType::F32),
      ints({3, -2, 7, -5, 11, -13, 2, -1}, DType::I64),
      Tensor::from_doubles({0.1, -0.3, 0.25, 0.9, -0.75, 0.06, 0.5, -0.01}, {8}, DType::F16)};
  auto compiled = CompiledProgram::compile(*p, test_compile_options(1));
  ASSERT_TRUE(compiled) << compiled.error().to_string();
  auto got = compiled->run(in);
  ASSERT_TRUE(got) << got.error().to_string();
  auto want = eval_loops(*p, in);
  ASSERT_TRUE(want) << want.error().to_string();
  for (size_t j = 0; j < want->size(); ++j) expect_close((*want)[j], (*got)[j], "output " + std::to_string(j));
  EXPECT_TRUE(std::isnan((*got)[6].item_double(0))) << "a NaN in the reduced row makes min NaN";
}

// Every f16 and bf16 bit pattern to f32, and a sweep of f32 patterns to f16 and bf16: the
// generated conversions give core/half.h's bits.
TEST(CppBackend, HalfConversionsAreBitExact) {
  constexpr int64_t kHalves = 65536, kFloats = 1 << 20;
  const std::string text =
      "loops @conv(%h: f16[65536], %b: bf16[65536], %f: f32[1048576]) -> (%o0, %o1, %o2, %o3) {\n"
      "  buffer %o0 : f32[65536] strides [1]\n  buffer %o1 : f32[65536] strides [1]\n"
      "  buffer %o2 : f16[1048576] strides [1]\n  buffer %o3 : bf16[1048576] strides [1]\n"
      "  kernel @h2f pointwise {\n    for i0 in range(65536) {\n      %a = load %h[i0]\n      %c = cast %a : f32\n"
      "      store %o0[i0], %c\n    }\n  }\n"
      "  kernel @b2f pointwise {\n    for i0 in range(65536) {\n      %a = load %b[i0]\n      %c = cast %a : f32\n"
      "      store %o1[i0], %c\n    }\n  }\n"
      "  kernel @f2h pointwise {\n    for i0 in range(1048576) {\n      %a = load %f[i0]\n      store %o2[i0], %a\n    "
      "}\n  }\n"
      "  kernel @f2b pointwise {\n    for i0 in range(1048576) {\n      %a = load %f[i0]\n      %c = cast %a : bf16\n"
      "      store %o3[i0], %c\n    }\n  }\n}\n";
  auto p = parse_loops(text);
  ASSERT_TRUE(p) << p.error().to_string();
  Tensor h = Tensor::empty({kHalves}, DType::F16), b = Tensor::empty({kHalves}, DType::BF16);
  for (int64_t i = 0; i < kHalves; ++i) {
    const uint16_t bits = static_cast<uint16_t>(i);
    std::memcpy(h.data<uint16_t>() + i, &bits, 2);
    std::memcpy(b.data<uint16_t>() + i, &bits, 2);
  }
  Tensor f = Tensor::empty({kFloats}, DType::F32);
  for (int64_t i = 0; i < kFloats; ++i) {
    const uint32_t bits = static_cast<uint32_t>(i) * 4099u + (i & 1 ? 0x1000u : 0u);  // halfway cases too
    std::memcpy(f.data<float>() + i, &bits, 4);
  }
  const std::vector<Tensor> in = {h, b, f};
  auto compiled = CompiledProgram::compile(*p, test_compile_options(1));
  ASSERT_TRUE(compiled) << compiled.error().to_string();
  auto got = compiled->run(in);
  ASSERT_TRUE(got) << got.error().to_string();
  auto want = eval_loops(*p, in);
  ASSERT_TRUE(want) << want.error().to_string();
  for (size_t j = 0; j < want->size(); ++j) {
    // The same bits, but for NaN payloads in f32 (the evaluator's float -> double -> float
    // sets the quiet bit of a signaling NaN; the generated code copies it).
    const Tensor& w = (*want)[j];
    const Tensor& g = (*got)[j];
    const int size = dtype_size(w.dtype());
    int64_t differ = 0;
    for (int64_t i = 0; i < w.numel(); ++i) {
      const bool same =
          std::memcmp(w.data_bytes() + i * size, g.data_bytes() + i * size, static_cast<size_t>(size)) == 0;
      if (!same && !(std::isnan(w.item_double(i)) && std::isnan(g.item_double(i)))) ++differ;
    }
    EXPECT_EQ(differ, 0) << "output " << j << ": elements whose bits differ";
  }
}

// Kernels past the parallel threshold: the pragmas are there and the values still agree.
TEST(CppBackend, LargeKernelsRunInParallel) {
  Suite s;
  s.lower_options.fuse = false;  // one kernel per node: each gets its own pragmas
  s.add(
      "graph @big(%x: f32[256,256], %r: f32[4,16384], %w: f32[128,512]) -> (f32[256,256], f32[256,256], f32[4], "
      "f32[128], f32[], f32[4]) {\n"
      " %0 = t(%x) : f32[256,256]\n %1 = add(%x, %0) : f32[256,256]\n %2 = exp(%x) : f32[256,256]\n"
      " %3 = amax(%r) {dim=[1]} : f32[4]\n %4 = sum(%w) {dim=[1]} : f32[128]\n %5 = sum(%x) : f32[]\n"
      " %6 = amin(%r) {dim=[1]} : f32[4]\n return %1, %2, %3, %4, %5, %6\n}");
  // Row 0 of %r is all -inf, row 1 holds one NaN.
  Tensor& r = s.inputs.back()[1];
  for (int64_t i = 0; i < 16384; ++i) r.data<float>()[i] = -std::numeric_limits<float>::infinity();
  r.data<float>()[16384 + 777] = std::nanf("");
  const std::string cpp = emit_cpp(s.parts.back());
  EXPECT_NE(cpp.find("#pragma omp parallel for simd\n  for (int64_t i0 = 0; i0 < 65536; ++i0)"), std::string::npos)
      << cpp;
  EXPECT_NE(cpp.find("#pragma omp parallel for\n  for (int64_t i0 = 0; i0 < 256; ++i0)"), std::string::npos) << cpp;
  EXPECT_NE(cpp.find("#pragma omp parallel for simd reduction(max:acc) reduction(|:acc_nan)"), std::string::npos)
      << cpp;
  // A long float sum runs in blocks (cpp_reduce.h), in parallel: the lanes' double totals are
  // OpenMP's reduction.
  EXPECT_NE(cpp.find("#pragma omp parallel for reduction(+:acc_l[:16])\n  for (int64_t blk = 0; blk < 256; ++blk) {"),
            std::string::npos)
      << cpp;
  s.check("big");
}

// Column reductions (sum, amax with a NaN, mean over dim 0) run with their loops interchanged
// in blocks of 64 columns; 130 columns leave a partial block, and a large one runs in parallel.
TEST(CppBackend, ColumnReductions) {
  Suite s;
  s.add(
      "graph @cols(%x: f32[300,130], %y: f32[2,4096,70]) -> (f32[130], f32[130], f32[1,130], f32[2,70]) {\n"
      " %0 = sum(%x) {dim=[0]} : f32[130]\n %1 = amax(%x) {dim=[0]} : f32[130]\n"
      " %2 = mean(%x) {dim=[0], keepdim=true} : f32[1,130]\n %3 = sum(%y) {dim=[1]} : f32[2,70]\n"
      " return %0, %1, %2, %3\n}");
  s.inputs.back()[0].data<float>()[5 * 130 + 7] = std::nanf("");
  const std::string cpp = emit_cpp(s.parts.back());
  EXPECT_NE(cpp.find("for (int64_t blk = 0; blk < 3; ++blk)"), std::string::npos) << cpp;
  EXPECT_NE(cpp.find("#pragma omp parallel for collapse(2)"), std::string::npos) << cpp;
  s.check("cols");
}

// A column reduction whose body also reads one value per row (layer_norm's weight gradient:
// sum over rows of dy * (x - mean) * rstd) is interchanged too: the per-row loads are scalars
// broadcast over the block's columns.
TEST(CppBackend, ColumnReductionsWithPerRowOperands) {
  Suite s;
  s.add(
      "graph @lnw(%dy: f32[300,130], %x: f32[300,130], %m: f32[300,1], %r: f32[300,1]) -> (f32[130]) {\n"
      " %0 = sub(%x, %m) : f32[300,130]\n %1 = mul(%0, %r) : f32[300,130]\n %2 = mul(%dy, %1) : f32[300,130]\n"
      " %3 = sum(%2) {dim=[0]} : f32[130]\n return %3\n}");
  const std::string cpp = emit_cpp(s.parts.back());
  EXPECT_NE(cpp.find("for (int64_t blk = 0; blk < 3; ++blk)"), std::string::npos) << cpp;
  s.check("lnw");
}

// A pointwise kernel with one large contiguous float32 output stores it with non-temporal
// stores where the CPU has AVX-512 (a low streaming_store_bytes here, so that a small kernel
// takes that path): 1007 elements leave a tail after the last block of 16 (and a part before
// the first 64-byte boundary when the output's storage is not 64-byte aligned). A kernel with
// two outputs, or below the size, does not.
TEST(CppBackend, LargeOutputsUseStreamingStores) {
  CpuCompileOptions o = test_compile_options(1);
  o.emit.streaming_store_bytes = 1000;
  o.emit.parallel_threshold = 1;
  auto g = parse_graph(
      "graph @big(%x: f32[1007], %y: f32[1007]) -> (f32[1007]) {\n"
      " %0 = mul(%x, 3.0) : f32[1007]\n %1 = div(%0, %y) : f32[1007]\n return %1\n}");
  ASSERT_TRUE(g) << g.error().to_string();
  auto p = lower_graph(**g);
  ASSERT_TRUE(p) << p.error().to_string();
  const std::string cpp = emit_cpp(*p, o.emit);
  ASSERT_NE(cpp.find("kiln_store_fence();"), std::string::npos) << cpp;
  EXPECT_NE(cpp.find("#else"), std::string::npos) << cpp;
  auto c = CompiledProgram::compile(*p, o);
  ASSERT_TRUE(c) << c.error().to_string();
  const std::vector<Tensor> in = {Tensor::randn({1007}, 1), Tensor::randn({1007}, 2)};
  auto want = interpret(**g, in);
  ASSERT_TRUE(want) << want.error().to_string();
  for (int rep = 0; rep < 3; ++rep) {  // fresh and pooled output storage
    auto got = c->run(in);
    ASSERT_TRUE(got) << got.error().to_string();
    expect_close((*want)[0], (*got)[0], "streamed output");
  }
  o.emit.streaming_store_bytes = 8192;  // below the size: the plain loop only
  EXPECT_EQ(emit_cpp(*p, o.emit).find("kiln_store_fence();"), std::string::npos);
  o.emit.streaming_store_bytes = 1000;
  auto two = parse_graph(
      "graph @two(%x: f32[1007]) -> (f32[1007], f32[1007]) {\n"
      " %0 = exp(%x) : f32[1007]\n %1 = neg(%x) : f32[1007]\n return %0, %1\n}");
  ASSERT_TRUE(two) << two.error().to_string();
  auto p2 = lower_graph(**two);
  ASSERT_TRUE(p2) << p2.error().to_string();
  ASSERT_EQ(p2->kernels.size(), 1u);
  EXPECT_EQ(emit_cpp(*p2, o.emit).find("kiln_store_fence();"), std::string::npos);
}

// A fused row kernel (softmax) whose last part writes rows of a large float32 output streams
// them: each block of 16 is written with a non-temporal store where the output is 64-byte
// aligned, and the rows' values equal the interpreter's on fresh and pooled storage. Rows of
// 40 elements (not whole 64-byte lines) keep the plain stores.
TEST(CppBackend, FusedRowKernelsStreamTheirLargeOutput) {
  CpuCompileOptions o = test_compile_options(1);
  o.emit.streaming_store_bytes = 1000;
  o.emit.parallel_threshold = 1;
  auto softmax = [](int cols) {
    const std::string t = "f32[64," + std::to_string(cols) + "]";
    return "graph @sm(%x: " + t + ") -> (" + t + ") {\n %0 = amax(%x) {dim=[1], keepdim=true} : f32[64,1]\n" +
           " %1 = sub(%x, %0) : " + t + "\n %2 = exp(%1) : " + t + "\n" +
           " %3 = sum(%2) {dim=[1], keepdim=true} : f32[64,1]\n %4 = div(%2, %3) : " + t + "\n return %4\n}";
  };
  for (int cols : {48, 40}) {
    auto g = parse_graph(softmax(cols));
    ASSERT_TRUE(g) << g.error().to_string();
    auto p = lower_graph(**g);
    ASSERT_TRUE(p) << p.error().to_string();
    schedule_kernels(*p);
    ASSERT_EQ(p->kernels.size(), 1u);
    ASSERT_EQ(p->kernels[0].kind, KernelKind::Fused);
    const std::string cpp = emit_cpp(*p, o.emit);
    const bool streams = cpp.find("kiln_stream_f32x16(b") != std::string::npos;
    EXPECT_EQ(streams, cols == 48) << cpp;
    if (cols == 48) {
      EXPECT_NE(cpp.find("for (int64_t blk = 0; blk < 3; ++blk)"), std::string::npos) << cpp;
    }
    auto c = CompiledProgram::compile(*p, o);
    ASSERT_TRUE(c) << c.error().to_string();
    const std::vector<Tensor> in = {Tensor::randn({64, cols}, 5)};
    auto want = interpret(**g, in);
    ASSERT_TRUE(want) << want.error().to_string();
    for (int rep = 0; rep < 3; ++rep) {
      auto got = c->run(in);
      ASSERT_TRUE(got) << got.error().to_string();
      expect_close((*want)[0], (*got)[0], "streamed softmax rows");
    }
  }
}

// Strided and offset inputs, and run() from several threads at once on one program.
TEST(CppBackend, NonContiguousInputsAndConcurrentRuns) {
  auto g = parse_graph(with_dtype(kLoweringCases[1].text, "f32"));  // broadcast
  ASSERT_TRUE(g);
  auto p = lower_graph(**g);
  ASSERT_TRUE(p);
  auto compiled = CompiledProgram::compile(*p, test_compile_options(1));
  ASSERT_TRUE(compiled) << compiled.error().to_string();
  // %x: f32[3,1,5] as a permuted view of a [5,1,3] tensor; %y: f32[4,1] at offset 2 of a longer one.
  const Tensor xs = Tensor::randn({5, 1, 3}, 7);
  const Tensor x = xs.as_strided({3, 1, 5}, {1, 3, 3}, 0);
  const Tensor y = Tensor::randn({6}, 8).as_strided({4, 1}, {1, 1}, 2);
  const std::vector<Tensor> in = {x, y};
  auto want = interpret(**g, in);
  ASSERT_TRUE(want) << want.error().to_string();
  std::vector<std::thread> threads;
  std::vector<Expected<std::vector<Tensor>>> results(4, Diagnostic("not run"));
  for (size_t t = 0; t < results.size(); ++t) threads.emplace_back([&, t] { results[t] = compiled->run(in); });
  for (std::thread& t : threads) t.join();
  for (auto& r : results) {
    ASSERT_TRUE(r) << r.error().to_string();
    expect_close((*want)[0], (*r)[0], "broadcast output");
  }
  auto wrong = compiled->run(std::vector<Tensor>{y, x});
  ASSERT_FALSE(wrong);
  EXPECT_NE(wrong.error().to_string().find("input %x must be f32[3,1,5], got f32[4,1]"), std::string::npos)
      << wrong.error().to_string();
}

TEST(CppBackend, OutOfBoundsAccessIsAnErrorBeforeCompiling) {
  auto p = parse_loops(
      "loops @f(%x: f32[4]) -> (%out0) {\n  buffer %out0 : f32[4] strides [1]\n  kernel @k0 pointwise {\n"
      "    for i0 in range(4) {\n      %0 = load %x[mod(i0 + 1, 8)]\n      store %out0[i0], %0\n    }\n  }\n}\n");
  ASSERT_TRUE(p) << p.error().to_string();
  CpuCompileOptions o = test_compile_options();
  o.compiler = "/nonexistent/c++";  // never reached
  auto c = CompiledProgram::compile(*p, o);
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().to_string().find("load %x[mod(i0 + 1, 8)] is outside the buffer (4 not in [0, 4)) at i0=3"),
            std::string::npos)
      << c.error().to_string();
  EXPECT_NE(c.error().to_string().find("in kernel @k0 of loops @f"), std::string::npos);
}

// An extern operand built in code (the parser rejects it in text) whose view leaves its
// buffer is refused before anything compiles, naming the operand.
TEST(CppBackend, ExternViewOutsideItsBufferIsAnError) {
  auto p = parse_loops(
      "loops @f(%x: f32[2,3], %w: f32[3,2]) -> (%out0) {\n  buffer %out0 : f32[2,2] strides [2,1]\n"
      "  kernel @k0 extern matmul(%x, %w) -> (%out0)\n}\n");
  ASSERT_TRUE(p) << p.error().to_string();
  p->kernels[0].operands[1].offset = 1;  // [3,2] strides [2,1] from 1 reaches element 6 of 6
  CpuCompileOptions o = test_compile_options();
  o.compiler = "/nonexistent/c++";  // never reached
  auto c = CompiledProgram::compile(*p, o);
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().to_string().find("extern operand %w viewed at offset 1 lies outside the buffer of 6 elements"),
            std::string::npos)
      << c.error().to_string();
}

}  // namespace
}  // namespace kiln
