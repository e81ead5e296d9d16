// The elementwise math compute ops outside lowering: integer division by zero (an error of the
// evaluator, a refused program for the compiled runtime, which cannot report it), and the
// OpenMP schedule of in-place updates (x[i] = f(x[i]) is as parallel as an out-of-place kernel).
#include <gtest/gtest.h>

#include <string>

#include "codegen/cpp/cpp_emitter.h"
#include "cpu_backend_util.h"
#include "lower/integer_divisors.h"
#include "lower/loop_eval.h"
#include "lower/loop_text.h"
#include "runtime/cpu/compiled_program.h"

namespace kiln {
namespace {

LoopProgram parse(const std::string& text) {
  auto p = parse_loops(text);
  EXPECT_TRUE(p) << p.error().to_string();
  return std::move(*p);
}

// remainder of %x by `divisor` (body ops that define %d), stored to %out0.
LoopProgram remainder_program(const std::string& divisor, const std::string& dtype = "i32") {
  return parse("loops @r(%x: " + dtype + "[4], %y: " + dtype + "[4]) -> (%out0) {\n  buffer %out0 : " + dtype +
               "[4] strides [1]\n  kernel @k0 pointwise {\n    for i0 in range(4) {\n      %x = load %x[i0]\n" +
               divisor + "      %r = remainder %x, %d : " + dtype + "\n      store %out0[i0], %r\n    }\n  }\n}\n");
}

TEST(LoopMath, EvaluatorReportsIntegerDivisionByZero) {
  const LoopProgram p = remainder_program("      %d = load %y[i0]\n");
  Tensor x = Tensor::full({4}, Scalar(int64_t{7}), DType::I32);
  Tensor y = Tensor::full({4}, Scalar(int64_t{2}), DType::I32);
  y.data<int32_t>()[2] = 0;
  auto out = eval_loops(p, std::vector<Tensor>{x, y});
  ASSERT_FALSE(out);
  EXPECT_NE(out.error().to_string().find("remainder: integer division by zero"), std::string::npos)
      << out.error().to_string();
  EXPECT_NE(out.error().to_string().find("at i0=2"), std::string::npos) << out.error().to_string();
  y.data<int32_t>()[2] = -3;
  auto ok = eval_loops(p, std::vector<Tensor>{x, y});
  ASSERT_TRUE(ok) << ok.error().to_string();
  EXPECT_EQ((*ok)[0].item_int(2), -2);  // Python's %: the divisor's sign
}

TEST(LoopMath, CompiledRuntimeRefusesIntegerDivisionByAValue) {
  const LoopProgram p = remainder_program("      %d = load %y[i0]\n");
  Status s = check_integer_divisors(p);
  ASSERT_FALSE(s);
  EXPECT_NE(
      s.error().to_string().find("integer remainder (body op 2 of kernel @k0 of loops @r) divides by a value that "
                                 "is not a nonzero const"),
      std::string::npos)
      << s.error().to_string();
  auto c = CompiledProgram::compile(p, test_compile_options(1));
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().to_string().find("compiled code cannot report a division by zero"), std::string::npos);
}

TEST(LoopMath, IntegerDivisorConstantsAreJudgedInTheirDtype) {
  // 256 is 0 as a u8 const (refused) but not as the i64 const lowering makes of a literal.
  EXPECT_FALSE(check_integer_divisors(remainder_program("      %d = const 256 : u8\n", "u8")));
  EXPECT_FALSE(check_integer_divisors(remainder_program("      %d = const 0 : i64\n")));
  EXPECT_TRUE(check_integer_divisors(remainder_program("      %d = const 256 : i64\n", "u8")));
  // A floating remainder may divide by anything (the result is NaN).
  EXPECT_TRUE(check_integer_divisors(remainder_program("      %d = load %y[i0]\n", "f32")));

  const LoopProgram p = remainder_program("      %d = const -3 : i64\n");
  auto c = CompiledProgram::compile(p, test_compile_options(1));
  ASSERT_TRUE(c) << c.error().to_string();
  Tensor x = Tensor::zeros({4}, DType::I32), y = Tensor::zeros({4}, DType::I32);
  const int32_t xs[4] = {5, 3, -1, -5};
  for (int i = 0; i < 4; ++i) x.data<int32_t>()[i] = xs[i];
  auto out = c->run(std::vector<Tensor>{x, y});
  ASSERT_TRUE(out) << out.error().to_string();
  const int64_t want[4] = {-1, 0, -1, -2};  // the divisor's sign
  for (int i = 0; i < 4; ++i) EXPECT_EQ((*out)[0].item_int(i), want[i]) << i;
}

// x[i] = x[i] * 2 over many points: each iteration reads only what it writes.
std::string in_place_program(const std::string& load_index) {
  return "loops @u(%x: f32[100000]) -> () {\n  kernel @k0 pointwise {\n    for i0 in range(100000) {\n"
         "      %0 = load %x[" +
         load_index +
         "]\n      %1 = const 2.0 : f32\n      %2 = mul %0, %1 : f32\n"
         "      store %x[i0], %2\n    }\n  }\n}\n";
}

TEST(LoopMath, InPlaceUpdateRunsInParallel) {
  const std::string cpp = emit_cpp(parse(in_place_program("i0")));
  EXPECT_NE(cpp.find("#pragma omp parallel for simd"), std::string::npos) << cpp;
}

TEST(LoopMath, ReadingOtherElementsOfTheStoredBufferStaysSerial) {
  // x[i] = 2 * x[100000 - 1 - i]: iterations read what others write.
  const std::string cpp = emit_cpp(parse(in_place_program("99999 - i0")));
  EXPECT_EQ(cpp.find("#pragma omp"), std::string::npos) << cpp;
}

}  // namespace
}  // namespace kiln
