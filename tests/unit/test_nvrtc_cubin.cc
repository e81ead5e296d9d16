// NVRTC to cubin (runtime/cuda/nvrtc.h) on this machine's NVRTC, no GPU needed: an sm_90 ELF
// image for a program of several kernels, ptxas's report on each, and the errors a caller can
// cause. Skipped where NVRTC is not installed.
#include <gtest/gtest.h>

#include "runtime/cuda/nvrtc.h"

namespace kiln {
namespace {

#define SKIP_WITHOUT_NVRTC() \
  if (!nvrtc_version()) GTEST_SKIP() << "NVRTC is not installed: " << nvrtc_version().error().message()

// Three kernels: a plain one, one whose array is indexed at run time (so it lives in local
// memory: stack, no spills), and one with more live values than 32 registers hold.
constexpr const char* kKernels = R"(
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
extern "C" __global__ void local_array(float* out, const int* index) {
  float local[2048];
  for (int i = 0; i < 2048; ++i) local[i] = out[i] * 2.0f;
  out[threadIdx.x] = local[index[threadIdx.x] & 2047];
}
extern "C" __global__ void many_live_values(float* out, const float* in) {
  float v[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) v[i] = in[threadIdx.x + i * 32];
  float acc = 0.0f;
#pragma unroll
  for (int i = 0; i < 64; ++i) acc += v[i] * v[63 - i];
#pragma unroll
  for (int i = 0; i < 64; ++i) out[threadIdx.x + i * 32] = v[i] * acc;
}
)";

const KernelResources* find(const Cubin& cubin, const std::string& name) {
  for (const KernelResources& k : cubin.kernels)
    if (k.name == name) return &k;
  return nullptr;
}

TEST(NvrtcCubin, SeveralKernelsCompileToOneSm90ElfImage) {
  SKIP_WITHOUT_NVRTC();
  auto cubin = compile_cuda_to_cubin(kKernels);
  ASSERT_TRUE(cubin) << cubin.error().message();
  ASSERT_GE(cubin->image.size(), 4u);
  EXPECT_EQ(cubin->image.substr(0, 4), std::string("\x7f"
                                                   "ELF"));
  EXPECT_NE(cubin->log.find("for 'sm_90'"), std::string::npos) << cubin->log;
  ASSERT_EQ(cubin->kernels.size(), 3u) << cubin->log;
  const KernelResources* add = find(*cubin, "vector_add");
  ASSERT_NE(add, nullptr);
  EXPECT_GT(add->registers, 0);
  EXPECT_EQ(add->stack_frame_bytes, 0);
  EXPECT_FALSE(add->spills());
}

TEST(NvrtcCubin, ALocallyIndexedArrayIsStackAndTooFewRegistersSpill) {
  SKIP_WITHOUT_NVRTC();
  NvrtcOptions options = cubin_options();
  options.extra.push_back("--maxrregcount=32");
  auto cubin = compile_cuda_to_cubin(kKernels, options);
  ASSERT_TRUE(cubin) << cubin.error().message();
  const KernelResources* local = find(*cubin, "local_array");
  ASSERT_NE(local, nullptr) << cubin->log;
  EXPECT_GE(local->stack_frame_bytes, 2048 * 4);
  const KernelResources* live = find(*cubin, "many_live_values");
  ASSERT_NE(live, nullptr) << cubin->log;
  EXPECT_LE(live->registers, 32);
  EXPECT_GT(live->spill_store_bytes, 0);
  EXPECT_GT(live->spill_load_bytes, 0);
  EXPECT_TRUE(live->spills());
}

TEST(NvrtcCubin, KilnsKernelsCompileMinimalWithoutCudaHeaders) {
  EXPECT_EQ(nvrtc_flags(cubin_options()),
            (std::vector<std::string>{"--gpu-architecture=sm_90", "-default-device", "-std=c++17", "-minimal"}));
  EXPECT_EQ(nvrtc_flags(cubin_options("sm_100"))[0], "--gpu-architecture=sm_100");
}

TEST(NvrtcCubin, AVirtualArchitectureIsRefused) {
  NvrtcOptions options = cubin_options("compute_90");
  options.name = "fused.cu";
  auto cubin = compile_cuda_to_cubin(kKernels, options);
  ASSERT_FALSE(cubin);
  EXPECT_EQ(cubin.error().message(),
            "NVRTC: fused.cu: a cubin needs a real architecture (sm_90), not 'compute_90', which gives PTX");
}

}  // namespace
}  // namespace kiln
