// The CUDA program runtime's parts that need no GPU: the cubin cache (keys, hits, misses, a
// corrupt entry), chunking, the device arena's plan, the launch parameters' packing, the
// source checked against its program, and loading where there is no driver. The GPU side is
// tests/gpu/cuda_program_gpu_test.cc, over the same hand-written cases.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#ifdef KILN_SANITIZED
#include <sanitizer/lsan_interface.h>
#endif

#include "../gpu/cuda_program_cases.h"
#include "lower/loop_bounds.h"
#include "lower/loop_text.h"
#include "runtime/cuda/cubin_cache.h"
#include "runtime/cuda/cubin_chunks.h"
#include "runtime/cuda/cublaslt_matmul.h"
#include "runtime/cuda/cuda_arena.h"
#include "runtime/cuda/cuda_launch_args.h"
#include "runtime/cuda/cuda_program.h"
#include "runtime/cuda/cuda_source_check.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;
using namespace cuda_cases;

#define SKIP_WITHOUT_NVRTC() \
  if (!nvrtc_version()) GTEST_SKIP() << "NVRTC is not installed: " << nvrtc_version().error().message()

// A fresh directory under the test's temp dir, removed with the object.
struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name) : path(fs::path(testing::TempDir()) / ("kiln-cubin-" + name)) {
    fs::remove_all(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

LoopProgram parsed(const Case& c) {
  Expected<LoopProgram> p = parse_loops(c.loops);
  EXPECT_TRUE(p) << c.name << ": " << p.error().message();
  return p ? std::move(*p) : LoopProgram{};
}

constexpr const char* kTwoKernels = R"(
extern "C" __global__ void one(float* x) { x[threadIdx.x] += 1.0f; }
extern "C" __global__ void two(float* x) { x[threadIdx.x] *= 2.0f; }
)";

CubinBuild sm90_build() {
  CubinBuild build;
  build.nvrtc_version = "13.0";
  return build;
}

TEST(CubinCache, TheKeyCoversSourceFlagsVersionAndArchitecture) {
  const CubinBuild base = sm90_build();
  const std::string key = CubinCache::key(kTwoKernels, base);
  EXPECT_EQ(key.size(), 16u);
  EXPECT_EQ(key, CubinCache::key(kTwoKernels, base));
  EXPECT_NE(key, CubinCache::key(std::string(kTwoKernels) + " ", base));
  CubinBuild other_arch = base;
  other_arch.options = cubin_options("sm_100");
  EXPECT_NE(key, CubinCache::key(kTwoKernels, other_arch));
  CubinBuild other_version = base;
  other_version.nvrtc_version = "13.1";
  EXPECT_NE(key, CubinCache::key(kTwoKernels, other_version));
  CubinBuild other_flags = base;
  other_flags.options.extra.push_back("--maxrregcount=32");
  EXPECT_NE(key, CubinCache::key(kTwoKernels, other_flags));
}

TEST(CubinCache, AMissCompilesThenAHitReadsTheCubinAndPtxasReport) {
  SKIP_WITHOUT_NVRTC();
  TempDir dir("hit");
  auto cache = CubinCache::open(dir.path.string());
  ASSERT_TRUE(cache) << cache.error().message();
  CubinBuild build = sm90_build();
  build.nvrtc_version = *nvrtc_version();
  const std::string key = CubinCache::key(kTwoKernels, build);
  CubinCache::Lookup miss = cache->lookup(key, kTwoKernels, build);
  EXPECT_FALSE(miss.cubin);
  EXPECT_EQ(miss.problem, "");
  auto built = cache->build(key, kTwoKernels, build);
  ASSERT_TRUE(built) << built.error().message();
  CubinCache::Lookup hit = cache->lookup(key, kTwoKernels, build);
  ASSERT_TRUE(hit.cubin) << hit.problem;
  EXPECT_EQ(hit.cubin->image, built->image);
  ASSERT_EQ(hit.cubin->kernels.size(), 2u) << hit.cubin->log;
  EXPECT_EQ(hit.cubin->kernels[0].name, built->kernels[0].name);
  EXPECT_EQ(hit.cubin->kernels[0].registers, built->kernels[0].registers);
  EXPECT_TRUE(fs::exists(cache->source_path(key)));
  EXPECT_TRUE(fs::exists(cache->record_path(key)));
  // Nothing left under a temporary name.
  for (const auto& entry : fs::directory_iterator(dir.path))
    EXPECT_EQ(entry.path().string().find(".tmp-"), std::string::npos) << entry.path();
}

TEST(CubinCache, ATruncatedCubinIsAMissThatSaysWhy) {
  SKIP_WITHOUT_NVRTC();
  TempDir dir("corrupt");
  auto cache = CubinCache::open(dir.path.string());
  ASSERT_TRUE(cache) << cache.error().message();
  CubinBuild build = sm90_build();
  build.nvrtc_version = *nvrtc_version();
  const std::string key = CubinCache::key(kTwoKernels, build);
  ASSERT_TRUE(cache->build(key, kTwoKernels, build));
  fs::resize_file(cache->cubin_path(key), 100);
  CubinCache::Lookup found = cache->lookup(key, kTwoKernels, build);
  EXPECT_FALSE(found.cubin);
  EXPECT_NE(found.problem.find("has 100 bytes, not the"), std::string::npos) << found.problem;
  EXPECT_NE(found.problem.find("(truncated or overwritten)"), std::string::npos) << found.problem;
  // An overwritten log (the kernels' report) fails too.
  ASSERT_TRUE(cache->build(key, kTwoKernels, build));
  std::ofstream(cache->log_path(key)) << "not the log";
  found = cache->lookup(key, kTwoKernels, build);
  EXPECT_FALSE(found.cubin);
  EXPECT_NE(found.problem.find(cache->log_path(key)), std::string::npos) << found.problem;
  // Other source under the same key (a collision, or an edited entry) is not a hit.
  ASSERT_TRUE(cache->build(key, kTwoKernels, build));
  found = cache->lookup(key, "// other\n", build);
  EXPECT_FALSE(found.cubin);
  EXPECT_EQ(found.problem, "it was built from other source or options under the same key");
}

TEST(CubinCache, ADirectoryThatCannotBeMadeSaysWhy) {
  TempDir dir("not-a-dir");
  fs::create_directories(dir.path);
  std::ofstream(dir.path / "file") << "x";
  auto cache = CubinCache::open((dir.path / "file" / "cuda").string());
  ASSERT_FALSE(cache);
  EXPECT_EQ(cache.error().message().rfind(
                "cannot create the cubin cache directory " + (dir.path / "file" / "cuda").string() + ": ", 0),
            0u)
      << cache.error().message();
}

CudaProgramSource five_kernels() {
  CudaProgramSource s;
  s.prelude = "typedef float f32;\n";
  for (int k = 0; k < 6; ++k)
    s.kernel_text.push_back(k == 2 ? ""
                                   : "extern \"C\" __global__ void k" + std::to_string(k) +
                                         "(f32* x) { x[threadIdx.x] += " + std::to_string(k) + ".0f; }\n");
  s.launches.resize(6);
  return s;
}

TEST(CubinChunks, KernelsWithTextSplitIntoContiguousChunks) {
  const CudaProgramSource s = five_kernels();
  EXPECT_EQ(split_cubin_chunks(s, 2, 1), (std::vector<std::vector<int>>{{0, 1}, {3, 4, 5}}));
  EXPECT_EQ(split_cubin_chunks(s, 8, 1), (std::vector<std::vector<int>>{{0}, {1}, {3}, {4}, {5}}));
  EXPECT_EQ(split_cubin_chunks(s, 8, 4), (std::vector<std::vector<int>>{{0, 1, 3, 4, 5}}));
  EXPECT_EQ(split_cubin_chunks(CudaProgramSource{}, 8, 1), (std::vector<std::vector<int>>{}));
  EXPECT_EQ(cubin_chunk_source(s, {3, 4}), s.prelude + s.kernel_text[3] + s.kernel_text[4]);
}

// NVRTC's fixed cost per program is paid at once on each core: a kernel per chunk while there are jobs.
TEST(CubinChunks, ByDefaultEachKernelIsAChunkWhileThereAreJobs) {
  const CudaProgramSource s = five_kernels();
  const CubinChunkOptions defaults;
  EXPECT_EQ(split_cubin_chunks(s, 8, defaults.min_kernels_per_chunk),
            (std::vector<std::vector<int>>{{0}, {1}, {3}, {4}, {5}}));
  EXPECT_EQ(split_cubin_chunks(s, 2, defaults.min_kernels_per_chunk),
            (std::vector<std::vector<int>>{{0, 1}, {3, 4, 5}}));
  EXPECT_EQ(CudaRunOptions{}.min_kernels_per_chunk, defaults.min_kernels_per_chunk);
}

// NVRTC's --Ofast-compile changes the SASS: off unless asked for, and part of the cache key.
TEST(CubinChunks, FastCompileIsOffByDefaultAndANamedLevelIsPassed) {
  const CubinChunkOptions defaults;
  EXPECT_EQ(CudaRunOptions{}.fast_compile, defaults.fast_compile);
  auto off = chunk_nvrtc_options(defaults);
  ASSERT_TRUE(off) << off.error().message();
  EXPECT_EQ(nvrtc_flags(*off), nvrtc_flags(cubin_options()));
  CubinChunkOptions mid;
  mid.fast_compile = "mid";
  auto on = chunk_nvrtc_options(mid);
  ASSERT_TRUE(on) << on.error().message();
  std::vector<std::string> expected = nvrtc_flags(cubin_options());
  expected.push_back("--Ofast-compile=mid");
  EXPECT_EQ(nvrtc_flags(*on), expected);
  EXPECT_NE(CubinCache::key("src", CubinBuild{*off, "13.0"}), CubinCache::key("src", CubinBuild{*on, "13.0"}));
}

TEST(CubinChunks, AnUnknownFastCompileLevelIsAnError) {
  CubinChunkOptions options;
  options.fast_compile = "fastest";
  auto nvrtc = chunk_nvrtc_options(options);
  ASSERT_FALSE(nvrtc);
  EXPECT_EQ(nvrtc.error().message(), "unknown NVRTC fast-compile level 'fastest': expected min, mid or max (or none)");
  auto chunks = compile_cubin_chunks(five_kernels(), options);
  ASSERT_FALSE(chunks);
  EXPECT_EQ(chunks.error().message(), nvrtc.error().message());
}

TEST(CubinChunks, ASecondCompileIsAllHitsWithTheSameReport) {
  SKIP_WITHOUT_NVRTC();
  TempDir dir("chunks");
  CubinChunkOptions options{"sm_90", dir.path.string(), 2, 1};
  auto first = compile_cubin_chunks(five_kernels(), options);
  ASSERT_TRUE(first) << first.error().message();
  ASSERT_EQ(first->images.size(), 2u);
  EXPECT_EQ(first->stats.compiled(), 2);
  EXPECT_EQ(first->stats.chunks[1].kernels, (std::vector<int>{3, 4, 5}));
  EXPECT_EQ(first->stats.chunks[1].resources.size(), 3u);
  auto second = compile_cubin_chunks(five_kernels(), options);
  ASSERT_TRUE(second) << second.error().message();
  EXPECT_EQ(second->stats.hits(), 2);
  EXPECT_EQ(second->images, first->images);
  EXPECT_EQ(second->stats.chunks[1].resources.size(), 3u);
  EXPECT_EQ(second->stats.chunks[0].compile_seconds, 0.0);
}

TEST(CubinChunks, AHitKeepsPtxasReport) {
  SKIP_WITHOUT_NVRTC();
  TempDir dir("report");
  const CubinChunkOptions options{"sm_90", dir.path.string(), 1, 1};
  auto first = compile_cubin_chunks(pointwise_add().source, options);
  ASSERT_TRUE(first) << first.error().message();
  auto second = compile_cubin_chunks(pointwise_add().source, options);
  ASSERT_TRUE(second) << second.error().message();
  EXPECT_EQ(second->stats.hits(), 1);
  ASSERT_EQ(first->stats.chunks[0].resources.size(), 1u);
  ASSERT_EQ(second->stats.chunks[0].resources.size(), 1u);
  EXPECT_EQ(second->stats.chunks[0].resources[0].name, "k0_add");
  EXPECT_EQ(second->stats.chunks[0].resources[0].registers, first->stats.chunks[0].resources[0].registers);
  EXPECT_GT(second->stats.chunks[0].resources[0].registers, 0);
}

TEST(CubinChunks, ASourceThatDoesNotCompileNamesItsKernels) {
  SKIP_WITHOUT_NVRTC();
  TempDir dir("broken");
  CudaProgramSource s = five_kernels();
  s.kernel_text[4] = "extern \"C\" __global__ void k4(f32* x) { x[threadIdx.x] = undeclared; }\n";
  auto chunks = compile_cubin_chunks(s, CubinChunkOptions{"sm_90", dir.path.string(), 2, 1});
  ASSERT_FALSE(chunks);
  EXPECT_NE(chunks.error().message().find("undeclared"), std::string::npos) << chunks.error().message();
  EXPECT_NE(chunks.error().context().find("while compiling the CUDA kernels 3, 4, 5"), std::string::npos)
      << chunks.error().context();
}

TEST(CudaArena, EveryBufferScratchAndErrorSlotOn256Bytes) {
  const LoopProgram p = parsed(count_up());  // x, out0 (f32[]); c, n, go: temporaries
  const CudaArenaPlan plan = plan_cuda_arena(p, 300);
  ASSERT_EQ(plan.offset.size(), 5u);
  EXPECT_EQ(plan.offset[0], 0);    // the input
  EXPECT_EQ(plan.offset[1], 256);  // the output
  EXPECT_EQ(plan.temp_offset, 512);
  for (int64_t offset : plan.offset) EXPECT_EQ(offset % 256, 0) << offset;
  // c and n live through the whole loop and go with them: three slots of 256 bytes.
  EXPECT_EQ(plan.temporaries.arena_bytes, 3 * 256);
  EXPECT_EQ(plan.scratch_offset, 512 + 3 * 256);
  EXPECT_EQ(plan.error_offset, plan.scratch_offset + 512);  // 300 bytes of scratch, rounded up
  EXPECT_EQ(plan.bytes, plan.error_offset + 4);
}

TEST(CudaLaunchArgs, ParametersInOrderBuffersReadFromTheAddressTable) {
  std::vector<CuDevicePtr> addresses{0x1000, 0x2000, 0x3000};
  PackedLaunchArgs args({buffer_arg(2), scratch_arg(512), buffer_arg(0), error_arg()}, addresses, 0x9000, 0x7000);
  ASSERT_EQ(args.size(), 4u);
  EXPECT_EQ(args.value(0), 0x3000u);
  EXPECT_EQ(args.value(1), 0x9200u);
  EXPECT_EQ(args.value(2), 0x1000u);
  EXPECT_EQ(args.value(3), 0x7000u);
  // A while loop swaps a carried buffer and its next one in the table; the launch follows.
  std::swap(addresses[0], addresses[2]);
  EXPECT_EQ(args.value(0), 0x1000u);
  EXPECT_EQ(args.value(2), 0x3000u);
}

TEST(CudaSourceCheck, EveryCaseFitsItsProgram) {
  for (const Case& c : all_cases()) {
    const LoopProgram p = parsed(c);
    EXPECT_TRUE(check_loop_bounds(p)) << c.name;
    Status s = check_cuda_program_source(p, c.source);
    EXPECT_TRUE(s) << c.name << ": " << s.error().message();
  }
}

TEST(CudaSourceCheck, MismatchesNameTheKernel) {
  const Case c = cond_with_host_addmm();
  const LoopProgram p = parsed(c);
  auto message = [&](const CudaProgramSource& s) {
    Status st = check_cuda_program_source(p, s);
    return st ? std::string("ok") : st.error().message();
  };
  CudaProgramSource fewer = c.source;
  fewer.launches.pop_back();
  EXPECT_EQ(message(fewer),
            "the CUDA source of loops @choose has launches for 3 kernels and text for 4, but the program has 4 (flat) "
            "kernels");
  CudaProgramSource no_launch = c.source;
  no_launch.launches[3].clear();
  EXPECT_EQ(message(no_launch), "the CUDA source of loops @choose, kernel @k3: it runs on the GPU but has no launch");
  CudaProgramSource no_text = c.source;
  no_text.kernel_text[1].clear();
  EXPECT_EQ(message(no_text), "the CUDA source of loops @choose, kernel @k1: it runs on the GPU but has no text");
  CudaProgramSource control_text = c.source;
  control_text.kernel_text[0] = "// text";
  EXPECT_EQ(message(control_text),
            "the CUDA source of loops @choose, kernel @k0: an extern or control kernel runs on the host, but it has "
            "text");
  CudaProgramSource extern_launched = c.source;
  extern_launched.launches[2] = c.source.launches[3];
  EXPECT_EQ(message(extern_launched),
            "the CUDA source of loops @choose, kernel @k2: an extern or control kernel runs on the host, but it has "
            "launches");
  CudaProgramSource bad_buffer = c.source;
  bad_buffer.launches[1][0].args[1].buffer = 9;
  EXPECT_EQ(message(bad_buffer),
            "the CUDA source of loops @choose, kernel @k1, launch of k1_add_one: argument 1 names buffer 9, but the "
            "program has 4");
  CudaProgramSource bad_scratch = c.source;
  bad_scratch.launches[1][0].args[0] = scratch_arg(100);
  EXPECT_EQ(message(bad_scratch),
            "the CUDA source of loops @choose, kernel @k1, launch of k1_add_one: argument 0 is at offset 100 of a "
            "scratch workspace of 0 bytes (offsets are multiples of 256 inside it)");
}

// The driver's own error: libcuda.so.1 not found, or (after CudaDriver.TheToolkitsStubIsNotADriver
// in the same process has loaded the toolkit's stub under that name) cuInit's.
TEST(CudaProgram, LoadingWithoutADriverIsAnErrorNotACrash) {
  auto driver = CudaDriver::get();
  if (driver) GTEST_SKIP() << "this machine has a CUDA driver: tests/gpu runs the programs";
  const Case c = pointwise_add();
  auto program = CudaProgram::load(parsed(c), c.source);
  ASSERT_FALSE(program);
  EXPECT_EQ(program.error().message(), driver.error().message());
  EXPECT_NE(program.error().context().find("while loading loops @add for the GPU"), std::string::npos);
}

TEST(CudaProgram, ASourceThatDoesNotFitIsRefusedBeforeTheDriver) {
  Case c = pointwise_add();
  c.source.launches[0][0].args[2].buffer = 5;
  auto program = CudaProgram::load(parsed(c), c.source);
  ASSERT_FALSE(program);
  EXPECT_NE(program.error().message().find("argument 2 names buffer 5, but the program has 3"), std::string::npos)
      << program.error().message();
}

// The matmul family's kernels as cuBLASLt sees them (column-major: A is kiln's right operand).
TEST(CublasLtMatmul, EachKernelOfTheFamilyIsPlanned) {
  const LoopProgram p = parsed(matmuls("f32"));
  std::vector<std::optional<LtMatmulPlan>> plans;
  for (const LoopKernel& k : p.kernels) plans.push_back(plan_lt_matmul(p, k));
  ASSERT_EQ(plans.size(), 8u);
  for (const auto& plan : plans) ASSERT_TRUE(plan);
  // mm [64,32] @ [32,48]: D^T (48 x 64) = Y^T (48 x 32) @ X^T (32 x 64), all op N.
  EXPECT_EQ(plans[0]->key(), "f32 batch 1 [48x32 ld 48 N stride 0] [32x64 ld 32 N stride 0] [48x64 ld 48 N stride 0]");
  EXPECT_EQ(plans[0]->a.buffer, 1);
  EXPECT_EQ(plans[0]->b.buffer, 0);
  EXPECT_EQ(plans[0]->d.buffer, 10);
  // bmm with q viewed transposed: op T over q's own [24,32] rows, batch strides 512, 768, 384.
  EXPECT_EQ(plans[1]->key(),
            "f32 batch 4 [32x24 ld 32 T stride 768] [32x16 ld 32 N stride 512] [24x16 ld 24 N stride 384]");
  // matmul of a batch by one matrix: the matrix's batch stride is 0.
  EXPECT_EQ(plans[2]->key(),
            "f32 batch 4 [48x32 ld 48 N stride 0] [32x16 ld 32 N stride 512] [48x16 ld 48 N stride 768]");
  // linear over [4,16,32]: 64 rows, w^T as op T, and the bias.
  EXPECT_EQ(plans[3]->key(),
            "f32 batch 1 [32x24 ld 32 T stride 0] [32x64 ld 32 N stride 0] [24x64 ld 24 N stride 0] bias");
  EXPECT_EQ(plans[3]->bias, 5);
  EXPECT_EQ(plans[4]->bias, -1);
  // addmm of a bias [48] with beta 1: the epilogue, alpha as given.
  EXPECT_EQ(plans[5]->bias, 6);
  EXPECT_EQ(plans[5]->alpha, 2.0f);
  EXPECT_EQ(plans[5]->beta, 0.0f);
  // baddbmm with self laid out as the result: cuBLASLt's C, with beta.
  EXPECT_EQ(plans[6]->key(),
            "f32 batch 4 [48x32 ld 48 N stride 1536] [32x16 ld 32 N stride 512] [48x16 ld 48 N stride 768] C");
  EXPECT_EQ(plans[6]->c.buffer, 7);
  EXPECT_EQ(plans[6]->alpha, 0.5f);
  EXPECT_EQ(plans[6]->beta, -1.5f);
  // Scores of heads read out of [2, 8, 4, 8]: batch strides [256, 8] do not collapse, so the 4
  // heads are one strided call (stride 8) and the 2 batches two calls (256 apart).
  EXPECT_EQ(plans[7]->key(),
            "f32 batch 4 calls [2] [8x8 ld 32 T stride 8 outer [256]] [8x8 ld 32 N stride 8 outer [256]] "
            "[8x8 ld 8 N stride 64 outer [256]]");
}

TEST(CublasLtMatmul, KernelsItCannotRunStayOnTheHost) {
  auto p = parse_loops(
      R"(loops @f(%x: f32[4,3], %y: f32[3,5], %i: i32[4,3], %j: i32[3,5], %c: f32[4,5], %v: f32[3]) -> (%out0, %out1, %out2, %out3) {
  buffer %out0 : f32[4,5] strides [5,1]
  buffer %out1 : i32[4,5] strides [5,1]
  buffer %out2 : f32[4] strides [1]
  buffer %out3 : f32[4,5] strides [1,4]
  kernel @k0 extern addmm(%c as [4,5] strides [0,1] offset 0, %x, %y) {alpha=1, beta=1} -> (%out0)
  kernel @k1 extern mm(%i, %j) -> (%out1)
  kernel @k2 extern matmul(%x, %v) -> (%out2)
  kernel @k3 extern mm(%x, %y) -> (%out3)
}
)");
  ASSERT_TRUE(p) << p.error().message();
  for (const LoopKernel& k : p->kernels) EXPECT_FALSE(plan_lt_matmul(*p, k)) << k.name;
  EXPECT_EQ(host_copied_ops(*p), (std::vector<OpKind>{OpKind::Addmm, OpKind::Mm, OpKind::Matmul}));
}

// Batch dims that do not collapse to one stride (heads read out of [batch, seq, heads, dim]) run
// as one strided call over the innermost dims that do, a call per index of the others.
TEST(CublasLtMatmul, ABatchThatDoesNotCollapseIsACallPerOuterIndex) {
  auto p = parse_loops(
      R"(loops @f(%s: f32[2,3,4,3], %y: f32[3,5], %q: f32[2,4,3,2,6], %k: f32[2,4,3,6,5]) -> (%out0, %out1) {
  buffer %out0 : f32[3,2,4,5] strides [40,20,5,1]
  buffer %out1 : f32[2,4,3,2,5] strides [120,30,10,5,1]
  kernel @k0 extern matmul(%s as [3,2,4,3] strides [12,36,3,1] offset 0, %y) -> (%out0)
  kernel @k1 extern matmul(%q as [2,4,3,2,6] strides [144,6,48,24,1] offset 0, %k) -> (%out1)
}
)");
  ASSERT_TRUE(p) << p.error().message();
  std::optional<LtMatmulPlan> heads = plan_lt_matmul(*p, p->kernels[0]);
  ASSERT_TRUE(heads);
  // The inner batch is dim 1 (x's stride 36, y broadcast, the result's 20); dim 0 is 3 calls.
  EXPECT_EQ(heads->key(),
            "f32 batch 2 calls [3] [5x3 ld 5 N stride 0 outer [0]] [3x4 ld 3 N stride 36 outer [12]] "
            "[5x4 ld 5 N stride 20 outer [40]]");
  // Two outer dims: q's [2, 4, 3] batch strides 144, 6, 48 collapse only over the last.
  std::optional<LtMatmulPlan> two = plan_lt_matmul(*p, p->kernels[1]);
  ASSERT_TRUE(two);
  EXPECT_EQ(two->outer, (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(two->batch, 3);
  EXPECT_EQ(two->b.outer_strides, (std::vector<int64_t>{144, 6}));
  EXPECT_EQ(two->b.batch_stride, 48);
  EXPECT_EQ(two->a.outer_strides, (std::vector<int64_t>{360, 90}));  // k is contiguous
  EXPECT_EQ(two->a.batch_stride, 30);
  EXPECT_EQ(two->d.outer_strides, (std::vector<int64_t>{120, 30}));
  EXPECT_EQ(two->d.batch_stride, 10);
  EXPECT_EQ(host_copied_ops(*p), std::vector<OpKind>{});
}

TEST(CublasLt, AMissingLibrarySaysWhichAndWhatToInstall) {
  auto api = CublasLt::load({"/nonexistent/kiln-test/libcublasLt.so.13"});
  ASSERT_FALSE(api);
  EXPECT_EQ(api.error().message().rfind("cuBLASLt (libcublasLt.so.13) not found (", 0), 0u) << api.error().message();
  EXPECT_NE(api.error().message().find("install the CUDA 13 toolkit"), std::string::npos) << api.error().message();
}

TEST(CublasLt, EveryEntryPointResolves) {
  auto api = CublasLt::load(cuda_toolkit_library_candidates("libcublasLt.so.13"));
  if (!api) GTEST_SKIP() << "cuBLASLt is not installed: " << api.error().message();
  EXPECT_NE(api->matmul, nullptr);
  EXPECT_STREQ(api->status_name(15), "CUBLAS_STATUS_NOT_SUPPORTED");
}

TEST(CublasLt, WithoutADriverItIsAnErrorNotACrash) {
  if (CudaDriver::get()) GTEST_SKIP() << "this machine has a CUDA driver";
  if (!CublasLt::load(cuda_toolkit_library_candidates("libcublasLt.so.13"))) GTEST_SKIP() << "no cuBLASLt";
  auto lt = [] {
#ifdef KILN_SANITIZED
    __lsan::ScopedDisabler not_ours;  // a failing cublasLtCreate leaks 192 bytes of its own (CUDA 13.0)
#endif
    return CublasLt::get();
  }();
  ASSERT_FALSE(lt);
  EXPECT_EQ(lt.error().message().rfind("cublasLtCreate: ", 0), 0u) << lt.error().message();
}

}  // namespace
}  // namespace kiln
