// What CudaProgram::time_resident refuses before it touches a GPU (runtime/cuda/resident_timing.h):
// control kernels, extern kernels run on the host, kernels that write an input, and no timed
// run. The timing itself runs on a GPU: tests/gpu/cuda_program_gpu_test.cc and bench/.
#include <gtest/gtest.h>

#include "../gpu/cuda_program_cases.h"
#include "lower/loop_text.h"
#include "runtime/cuda/resident_timing.h"

namespace kiln {
namespace {

using namespace cuda_cases;

LoopProgram parsed(const std::string& text) {
  Expected<LoopProgram> p = parse_loops(text);
  EXPECT_TRUE(p) << p.error().message();
  return p ? std::move(*p) : LoopProgram{};
}

std::string refusal(const std::string& loops, ResidentTimingOptions o = {}) {
  Status s = check_resident_timing(parsed(loops), o);
  return s ? "" : s.error().message();
}

TEST(ResidentTiming, PointwiseKernelsAndLibraryMatmulsCanBeTimed) {
  EXPECT_EQ(refusal(pointwise_add().loops), "");
  EXPECT_EQ(refusal(split_sum().loops), "");
  EXPECT_EQ(refusal(matmuls("bf16").loops), "");
}

TEST(ResidentTiming, AControlKernelIsRefused) {
  EXPECT_EQ(refusal(count_up().loops),
            "timing loops @count with resident inputs: kernel @k1 is a control kernel (cond or while), which waits "
            "for the host to read its predicate");
}

TEST(ResidentTiming, AnExternKernelOnTheHostIsRefused) {
  // addmm whose `self` is transposed: cuBLASLt's bias epilogue cannot take it, so it runs on the host.
  EXPECT_EQ(refusal(R"(loops @host(%x: f32[2,2]) -> (%out0) {
  buffer %out0 : f32[2,2] strides [2,1]
  kernel @k0 extern addmm(%x as [2,2] strides [1,2] offset 0, %x, %x) {alpha=1, beta=1} -> (%out0)
}
)"),
            "timing loops @host with resident inputs: kernel @k0 (addmm) runs on the host, copying its operands "
            "there and back");
}

TEST(ResidentTiming, AKernelWritingAnInputIsRefused) {
  const std::string message = refusal(in_place().loops);
  EXPECT_NE(message.find("writes input %x, so each run would start from the last one's result"), std::string::npos)
      << message;
}

TEST(ResidentTiming, NoTimedRunIsRefused) {
  EXPECT_EQ(refusal(pointwise_add().loops, {.warmup_runs = 1, .timed_runs = 0}),
            "timing loops @add with resident inputs: needs at least 1 timed run and no negative warm-up runs (asked "
            "for 0 timed and 1 warm-up)");
  EXPECT_NE(refusal(pointwise_add().loops, {.warmup_runs = -1, .timed_runs = 5}), "");
}

}  // namespace
}  // namespace kiln
