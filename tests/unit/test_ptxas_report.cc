// ptxas's -v report parsed into per-kernel resources (runtime/cuda/ptxas_report.h), on logs as
// NVRTC 13 writes them.
#include <gtest/gtest.h>

#include "runtime/cuda/ptxas_report.h"

namespace kiln {
namespace {

// Two kernels of one program, the first with a locally indexed array, and a device function
// whose properties are not a kernel's.
constexpr const char* kLog =
    R"(ptxas info    : Overriding maximum register limit 256 for 'spill' with  32 of maxrregcount option
ptxas info    : 0 bytes gmem
ptxas info    : Function properties for helper
ptxas         .     16 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
ptxas info    : Compiling entry function 'spill' for 'sm_90'
ptxas info    : Function properties for spill
ptxas         .     8192 bytes stack frame, 564 bytes spill stores, 708 bytes spill loads
ptxas info    : Used 32 registers, used 0 barriers, 8192 bytes cumulative stack size
ptxas info    : Compile time = 13.226 ms
ptxas info    : Compiling entry function '_Z3addPfS_' for 'sm_90'
ptxas info    : Function properties for _Z3addPfS_
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 12 registers, used 0 barriers
ptxas info    : Compile time = 4.538 ms
)";

TEST(PtxasReport, EachEntryFunctionGetsItsRegistersSpillsAndStack) {
  std::vector<KernelResources> kernels = parse_ptxas_log(kLog);
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0].name, "spill");
  EXPECT_EQ(kernels[0].registers, 32);
  EXPECT_EQ(kernels[0].stack_frame_bytes, 8192);
  EXPECT_EQ(kernels[0].spill_store_bytes, 564);
  EXPECT_EQ(kernels[0].spill_load_bytes, 708);
  EXPECT_TRUE(kernels[0].spills());
  EXPECT_EQ(kernels[1].name, "_Z3addPfS_");
  EXPECT_EQ(kernels[1].registers, 12);
  EXPECT_EQ(kernels[1].stack_frame_bytes, 0);
  EXPECT_FALSE(kernels[1].spills());
}

TEST(PtxasReport, DeviceFunctionPropertiesAreNotKernels) {
  for (const KernelResources& k : parse_ptxas_log(kLog)) EXPECT_NE(k.name, "helper");
}

TEST(PtxasReport, ALogWithoutPtxasLinesHasNoKernels) {
  EXPECT_TRUE(parse_ptxas_log("").empty());
  EXPECT_TRUE(
      parse_ptxas_log("kernel.cu(3): warning #177-D: variable \"x\" was declared but never referenced\n").empty());
}

}  // namespace
}  // namespace kiln
