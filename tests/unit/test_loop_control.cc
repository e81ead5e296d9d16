// Control kernels of the loop IR (lower/loop_control.h) run by the loop-IR evaluator and the
// compiled CPU runtime on hand-written programs: a while loop whose body reads one carried
// value while it writes another (exchanged, not overwritten), odd and even trip counts (the
// runtime swaps pointers), zero trips, a cond choosing a region, a temporary made after the
// loop that must not take the bytes a carried value ended in (memory_plan.h), pre-order flat
// kernels, and rules broken by a program built in memory.
#include <gtest/gtest.h>

#include "codegen/cpp/cpp_emitter.h"
#include "cpu_backend_util.h"
#include "lower/loop_control.h"
#include "lower/loop_eval.h"
#include "lower/loop_text.h"
#include "lower/memory_plan.h"

namespace kiln {
namespace {

// Fibonacci by a while loop over (i, a, b) -> (i + 1, b, a + b) while i < n: the body reads a
// and b and writes both. After the loop, %t (a + 100) is a temporary made after the loop; then
// out0 = a, out1 = i, out2 = t.
constexpr const char* kFibonacci = R"(loops @fib(%n: i64[]) -> (%out0, %out1, %out2) {
  buffer %out0 : i64[] strides []
  buffer %out1 : i64[] strides []
  buffer %out2 : i64[] strides []
  buffer %i : i64[] strides []
  buffer %a : i64[] strides []
  buffer %b : i64[] strides []
  buffer %ni : i64[] strides []
  buffer %na : i64[] strides []
  buffer %nb : i64[] strides []
  buffer %go : bool[] strides []
  buffer %t : i64[] strides []
  kernel @k0 pointwise {
    %0 = const 0 : i64
    %1 = const 1 : i64
    store %i[0], %0
    store %a[0], %0
    store %b[0], %1
  }
  kernel @k1 while carry (%i, %a, %b) next (%ni, %na, %nb) {
    cond %go {
      kernel @k2 pointwise {
        %0 = load %i[0]
        %1 = load %n[0]
        %2 = lt %0, %1 : bool
        store %go[0], %2
      }
    }
    body {
      kernel @k3 pointwise {
        %0 = load %i[0]
        %1 = const 1 : i64
        %2 = add %0, %1 : i64
        store %ni[0], %2
        %3 = load %a[0]
        %4 = load %b[0]
        store %na[0], %4
        %5 = add %3, %4 : i64
        store %nb[0], %5
      }
    }
  }
  kernel @k4 pointwise {
    %0 = load %a[0]
    %1 = const 100 : i64
    %2 = add %0, %1 : i64
    store %t[0], %2
  }
  kernel @k5 pointwise {
    %0 = load %a[0]
    store %out0[0], %0
    %1 = load %i[0]
    store %out1[0], %1
    %2 = load %t[0]
    store %out2[0], %2
  }
}
)";

// out0 = x + 1 when %p, else a matmul of x by itself then x * 2 in a region of two kernels.
constexpr const char* kChoose = R"(loops @choose(%p: bool[], %x: f32[2,2]) -> (%out0) {
  buffer %out0 : f32[2,2] strides [2,1]
  buffer %t0 : f32[2,2] strides [2,1]
  kernel @k0 cond %p {
    then {
      kernel @k1 pointwise {
        for i0 in range(2) {
          for i1 in range(2) {
            %0 = load %x[2*i0 + i1]
            %1 = const 1.0 : f32
            %2 = add %0, %1 : f32
            store %out0[2*i0 + i1], %2
          }
        }
      }
    }
    else {
      kernel @k2 extern matmul(%x, %x) -> (%t0)
      kernel @k3 pointwise {
        for i0 in range(2) {
          for i1 in range(2) {
            %0 = load %t0[2*i0 + i1]
            %1 = const 2.0 : f32
            %2 = mul %0, %1 : f32
            store %out0[2*i0 + i1], %2
          }
        }
      }
    }
  }
}
)";

LoopProgram parsed(const char* text) {
  auto p = parse_loops(text);
  EXPECT_TRUE(p) << p.error().to_string();
  return p ? std::move(*p) : LoopProgram{};
}

int64_t fibonacci(int64_t n) {
  int64_t a = 0, b = 1;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t next = a + b;
    a = b;
    b = next;
  }
  return a;
}

TEST(LoopControl, WhileExchangesCarriedBuffersInTheEvaluatorAndCompiled) {
  const LoopProgram p = parsed(kFibonacci);
  auto compiled = CompiledProgram::compile(p, test_compile_options());
  ASSERT_TRUE(compiled) << compiled.error().to_string();
  for (int64_t n : {0, 1, 2, 7, 10}) {  // zero trips, odd and even counts of exchanges
    const std::vector<Tensor> in = {Tensor::scalar(n, DType::I64)};
    for (const char* runner : {"evaluator", "compiled"}) {
      auto out = std::string(runner) == "evaluator" ? eval_loops(p, in) : compiled->run(in);
      ASSERT_TRUE(out) << out.error().to_string();
      ASSERT_EQ(out->size(), 3u);
      EXPECT_EQ((*out)[0].item_int(), fibonacci(n)) << runner << " n=" << n;
      EXPECT_EQ((*out)[1].item_int(), n) << runner << " n=" << n;
      EXPECT_EQ((*out)[2].item_int(), fibonacci(n) + 100) << runner << " n=" << n;
    }
  }
}

TEST(LoopControl, CarriedAndNextBuffersShareOneLifetime) {
  // %t is made after the loop, while %a and %i are still read: it must not take %na's or
  // %ni's bytes, which hold their values after an odd number of exchanges. %b and %nb are
  // dead after the loop: their bytes are free.
  const LoopProgram p = parsed(kFibonacci);
  const MemoryPlan plan = plan_memory(p);
  auto offset = [&](const char* name) { return plan.offset[static_cast<size_t>(p.find_buffer(name))]; };
  for (const char* carried : {"i", "a", "ni", "na"}) EXPECT_NE(offset("t"), offset(carried)) << carried;
  EXPECT_TRUE(offset("t") == offset("b") || offset("t") == offset("nb"));
  EXPECT_NE(offset("a"), offset("na"));
  EXPECT_NE(offset("go"), offset("na"));
  ASSERT_EQ(plan.live_bytes.size(), p.kernels.size());  // per kernel of p.kernels, not nested
}

TEST(LoopControl, TemporariesOfOneIterationShareBytes) {
  // Inside the loop, %u and %v (each written then read within one iteration, one after the
  // other) may share bytes; the carried buffers, alive across iterations, may not.
  const LoopProgram p = parsed(R"(loops @f(%x: f32[16]) -> (%out0) {
  buffer %out0 : f32[16] strides [1]
  buffer %c : f32[16] strides [1]
  buffer %n : f32[16] strides [1]
  buffer %u : f32[16] strides [1]
  buffer %v : f32[16] strides [1]
  buffer %go : bool[] strides []
  kernel @k0 pointwise {
    for i0 in range(16) {
      %0 = load %x[i0]
      store %c[i0], %0
    }
  }
  kernel @k1 while carry (%c) next (%n) {
    cond %go {
      kernel @k2 pointwise {
        %0 = const false : bool
        store %go[0], %0
      }
    }
    body {
      kernel @k3 pointwise {
        for i0 in range(16) {
          %0 = load %c[i0]
          store %u[i0], %0
        }
      }
      kernel @k4 pointwise {
        for i0 in range(16) {
          %0 = load %u[i0]
          store %n[i0], %0
        }
      }
      kernel @k5 pointwise {
        for i0 in range(16) {
          %0 = load %n[i0]
          store %v[i0], %0
        }
      }
      kernel @k6 pointwise {
        for i0 in range(16) {
          %0 = load %v[i0]
          store %n[i0], %0
        }
      }
    }
  }
  kernel @k7 pointwise {
    for i0 in range(16) {
      %0 = load %c[i0]
      store %out0[i0], %0
    }
  }
}
)");
  const MemoryPlan plan = plan_memory(p);
  auto offset = [&](const char* name) { return plan.offset[static_cast<size_t>(p.find_buffer(name))]; };
  EXPECT_EQ(offset("u"), offset("v"));
  for (const char* inner : {"u", "v", "go"})
    for (const char* carried : {"c", "n"}) EXPECT_NE(offset(inner), offset(carried)) << inner << " " << carried;
}

TEST(LoopControl, CondRunsOneRegionInTheEvaluatorAndCompiled) {
  const LoopProgram p = parsed(kChoose);
  auto compiled = CompiledProgram::compile(p, test_compile_options());
  ASSERT_TRUE(compiled) << compiled.error().to_string();
  const Tensor x = Tensor::from_doubles({1, 2, 3, 4}, {2, 2}).to(DType::F32);
  const Tensor plus_one = Tensor::from_doubles({2, 3, 4, 5}, {2, 2}).to(DType::F32);
  const Tensor product_twice = Tensor::from_doubles({14, 20, 30, 44}, {2, 2}).to(DType::F32);
  for (bool taken : {true, false}) {
    const std::vector<Tensor> in = {Tensor::scalar(taken, DType::Bool), x};
    auto eval = eval_loops(p, in);
    auto got = compiled->run(in);
    ASSERT_TRUE(eval) << eval.error().to_string();
    ASSERT_TRUE(got) << got.error().to_string();
    expect_close(taken ? plus_one : product_twice, (*eval)[0], "evaluator");
    expect_close(taken ? plus_one : product_twice, (*got)[0], "compiled");
  }
}

TEST(LoopControl, FlatKernelsArePreOrder) {
  const LoopProgram p = parsed(kFibonacci);
  const std::vector<const LoopKernel*> flat = flat_kernels(p);
  std::vector<std::string> names;
  for (const LoopKernel* k : flat) names.push_back(k->name);
  EXPECT_EQ(names, (std::vector<std::string>{"k0", "k1", "k2", "k3", "k4", "k5"}));
  EXPECT_EQ(flat_kernel_ends(p), (std::vector<int>{1, 4, 3, 4, 5, 6}));
  const std::vector<std::string> symbols = cpp_kernel_symbols(p);
  EXPECT_EQ(symbols[1], "");  // the while kernel has no function; its regions' kernels do
  EXPECT_EQ(symbols[3], "kiln_fib_k3");
}

TEST(LoopControl, BrokenRulesInAProgramBuiltInMemoryAreErrors) {
  // The parser refuses these (tests/lit/lower/errors.kir); a program built in memory is checked
  // before it is compiled or evaluated: the runtime swaps carried and next pointers.
  LoopProgram p = parsed(kFibonacci);
  p.kernels[1].next[2] = p.find_buffer("out0");
  auto compiled = CompiledProgram::compile(p, test_compile_options());
  ASSERT_FALSE(compiled);
  EXPECT_NE(compiled.error().to_string().find("carried buffer %out0 of @k1 must be a temporary"), std::string::npos)
      << compiled.error().to_string();
  auto eval = eval_loops(p, std::vector<Tensor>{Tensor::scalar(int64_t{3}, DType::I64)});
  ASSERT_FALSE(eval);
  EXPECT_NE(eval.error().to_string().find("must be a temporary"), std::string::npos) << eval.error().to_string();

  LoopProgram q = parsed(kChoose);
  q.kernels[0].predicate = q.find_buffer("x");
  auto bad_predicate = CompiledProgram::compile(q, test_compile_options());
  ASSERT_FALSE(bad_predicate);
  EXPECT_NE(bad_predicate.error().to_string().find("the predicate %x of @k0 must be a bool buffer"), std::string::npos)
      << bad_predicate.error().to_string();

  // The rules the text's syntax cannot break: the number of regions, a predicate and carried
  // buffers that exist, and a cond that carries nothing.
  auto refused = [](LoopProgram bad, const std::string& want) {
    auto c = CompiledProgram::compile(bad, test_compile_options());
    ASSERT_FALSE(c) << want;
    EXPECT_NE(c.error().to_string().find(want), std::string::npos) << c.error().to_string();
  };
  LoopProgram one_region = parsed(kChoose);
  one_region.kernels[0].regions.pop_back();
  refused(one_region, "control kernel @k0 has 1 regions, not 2");
  LoopProgram no_predicate = parsed(kChoose);
  no_predicate.kernels[0].predicate = -1;
  refused(no_predicate, "control kernel @k0 names no predicate buffer");
  LoopProgram carrying_cond = parsed(kChoose);
  carrying_cond.kernels[0].carried = {carrying_cond.find_buffer("x")};
  refused(carrying_cond, "cond kernel @k0 carries no buffers");
  LoopProgram missing = parsed(kFibonacci);
  missing.kernels[1].next[0] = static_cast<int>(missing.buffers.size());
  refused(missing, "while kernel @k1 names a buffer that does not exist");
}

}  // namespace
}  // namespace kiln
