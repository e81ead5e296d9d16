// The CUDA backend's part of the compile report without a GPU (runtime/cuda/cuda_target_report.h,
// CudaBackend::describe): every launch of the emitted source with its sizes, ptxas's registers
// where NVRTC is installed (a second describe finds the cubins in the cache), the arena's
// regions adding up to the allocation, the host-copied ops; a loaded program's driver figures
// replace ptxas's (given here as the driver would report them); the report's HTML shows it all.
// The CPU backend describes nothing it does not load (Backend::describe's default).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "backend/compile_graph.h"
#include "cpu_backend_util.h"
#include "ir/parser.h"
#include "lower/loop_control.h"
#include "report/compile_report.h"
#include "report/target_html.h"
#include "runtime/cpu/cpu_backend.h"
#include "runtime/cuda/cuda_backend.h"
#include "runtime/cuda/cuda_target_report.h"

namespace kiln {
namespace {

// A linear for cuBLASLt (its workspace in the arena), a softmax of generated kernels and an
// integer matmul, which cuBLASLt does not run: it is copied through the host.
constexpr const char* kGraph =
    "graph @mixed(%x: f32[64,256], %w: f32[128,256], %b: f32[128], %i: i32[8,8], %j: i32[8,8])"
    " -> (f32[64,128], f32[64,256], i32[8,8]) {\n"
    "  %0 = linear(%x, %w, %b) : f32[64,128]\n"
    "  %1 = softmax(%x) {dim=1} : f32[64,256]\n"
    "  %2 = matmul(%i, %j) : i32[8,8]\n"
    "  return %0, %1, %2\n}";

struct Described {
  LoopProgram program;
  CudaProgramSource source;
  DescribedProgram described;
};

// kGraph lowered for `backend`; a failure (and an empty program) where it does not parse or lower.
LoopProgram lower_mixed(const Backend& backend) {
  auto g = parse_graph(kGraph);
  EXPECT_TRUE(g) << g.error().to_string();
  if (!g) return {};
  Expected<LoopProgram> p = lower_graph_for(**g, backend);
  EXPECT_TRUE(p) << p.error().to_string();
  if (!p) return {};
  return std::move(*p);
}

Described describe_mixed(const std::string& cache_dir) {
  CudaBackendOptions options;
  options.run.cache_dir = cache_dir;
  const CudaBackend backend(Device::cuda(), options);
  LoopProgram p = lower_mixed(backend);
  Expected<DescribedProgram> d = backend.describe(p);
  EXPECT_TRUE(d) << d.error().to_string();
  if (!d) return {p, emit_cuda_program(p), {}};
  return {p, emit_cuda_program(p), *d};
}

bool has_note(const TargetReport& t, const std::string& part) {
  for (const std::string& n : t.notes)
    if (n.find(part) != std::string::npos) return true;
  return false;
}

TEST(CudaTargetReport, DescribesEveryLaunchTheArenaAndTheHostCopiedOps) {
  TempDir cache("kiln-cuda-report");
  const Described d = describe_mixed(cache.path());
  const TargetReport& t = d.described.target;
  EXPECT_EQ(t.device, "CUDA sm_90 (not loaded)");
  size_t launches = 0;
  const std::vector<const LoopKernel*> flat = flat_kernels(d.program);
  for (size_t i = 0; i < d.source.launches.size(); ++i) {
    for (const CudaLaunch& l : d.source.launches[i]) {
      ASSERT_LT(launches, t.kernels.size());
      const TargetKernel& k = t.kernels[launches++];
      EXPECT_EQ(k.symbol, l.symbol);
      EXPECT_EQ(k.loop_kernel, flat[i]->name);
      EXPECT_EQ(k.grid, l.grid);
      EXPECT_EQ(k.block, l.block);
      EXPECT_EQ(k.dynamic_shared_bytes, l.shared_bytes);
      EXPECT_GT(k.source_lines, 0);
      EXPECT_FALSE(k.static_shared_bytes) << "only the driver knows it";
    }
  }
  EXPECT_EQ(launches, t.kernels.size());
  EXPECT_GT(launches, 0u);
  int64_t sum = 0;
  for (const TargetMemoryRegion& r : t.memory) {
    EXPECT_EQ(r.bytes % 256 == 0, r.name != "error slot") << r.name;
    sum += r.bytes;
  }
  EXPECT_EQ(sum, t.memory_bytes);
  ASSERT_EQ(t.memory.size(), 6u);
  EXPECT_EQ(t.memory[0].name, "inputs");
  EXPECT_EQ(t.memory[0].bytes, (64 * 256 + 128 * 256 + 128) * 4 + 2 * 256);  // i and j: 256 bytes each, aligned
  EXPECT_EQ(t.memory[4].name, "cuBLASLt workspace");
  EXPECT_EQ(t.memory[4].bytes, CudaRunOptions{}.library_workspace_bytes);
  EXPECT_EQ(t.host_copied_ops, std::vector<std::string>{"matmul"});
  EXPECT_EQ(d.described.memory_plan.arena_bytes % 256, 0);
  EXPECT_TRUE(has_note(t, "need a GPU"));
}

TEST(CudaTargetReport, PtxasGivesRegistersWhereNvrtcIsInstalled) {
  if (!nvrtc_version()) GTEST_SKIP() << "NVRTC is not installed: " << nvrtc_version().error().message();
  TempDir cache("kiln-cuda-report");
  const TargetReport first = describe_mixed(cache.path()).described.target;
  ASSERT_TRUE(first.compile);
  EXPECT_EQ(first.compile->compiler, "NVRTC " + *nvrtc_version() + " for sm_90");
  EXPECT_GE(first.compile->units, 1);
  EXPECT_EQ(first.compile->cache_hits, 0);
  for (const TargetKernel& k : first.kernels) {
    if (k.resources_from.empty()) continue;  // this NVRTC's log has no ptxas report on it (a note says so)
    EXPECT_EQ(k.resources_from, "ptxas") << k.symbol;
    EXPECT_GT(k.registers.value_or(0), 0) << k.symbol;
    EXPECT_EQ(k.spill_store_bytes, 0) << k.symbol;
  }
  const TargetReport second = describe_mixed(cache.path()).described.target;
  ASSERT_TRUE(second.compile);
  EXPECT_EQ(second.compile->cache_hits, second.compile->units);
  ASSERT_EQ(second.kernels.size(), first.kernels.size());
  for (size_t i = 0; i < first.kernels.size(); ++i)
    EXPECT_EQ(second.kernels[i].registers, first.kernels[i].registers) << "the cache keeps ptxas's log";
}

TEST(CudaTargetReport, WithoutNvrtcTheReportSaysWhy) {
  if (nvrtc_version()) GTEST_SKIP() << "NVRTC is installed";
  const TargetReport t = describe_mixed("").described.target;
  EXPECT_FALSE(t.compile);
  EXPECT_TRUE(has_note(t, "Not compiled for sm_90"));
  for (const TargetKernel& k : t.kernels) EXPECT_FALSE(k.registers);
}

TEST(CudaTargetReport, TheDriversFiguresReplacePtxasWhereLoaded) {
  const LoopProgram loops = lower_mixed(CudaBackend());
  const CudaProgramSource source = emit_cuda_program(loops);
  Expected<CudaProgramPlan> plan = plan_cuda_program(loops, source, 1024, "test");
  ASSERT_TRUE(plan) << plan.error().to_string();
  CubinCompileStats compiled;
  compiled.nvrtc_version = "13.0";
  compiled.chunks.push_back(
      {.kernels = {}, .key = "k", .cache_hit = true, .rebuilt_because = {}, .compile_seconds = 0, .resources = {}});
  std::vector<std::vector<KernelAttributes>> attributes;
  for (const std::vector<CudaLaunch>& launches : source.launches) {
    attributes.emplace_back();
    for (const CudaLaunch& l : launches) {
      compiled.chunks[0].resources.push_back({l.symbol, 40, 8, 4, 16});
      attributes.back().push_back({32, 24, 512});
    }
  }
  const TargetReport t = cuda_target_report({.program = loops,
                                             .source = source,
                                             .plan = *plan,
                                             .arch = "sm_90",
                                             .compiled = &compiled,
                                             .loaded_on = "NVIDIA H100",
                                             .attributes = &attributes});
  EXPECT_EQ(t.device, "NVIDIA H100 (sm_90)");
  ASSERT_FALSE(t.kernels.empty());
  for (const TargetKernel& k : t.kernels) {
    EXPECT_EQ(k.resources_from, "driver");
    EXPECT_EQ(k.registers, 32);
    EXPECT_EQ(k.local_bytes, 24);
    EXPECT_EQ(k.static_shared_bytes, 512);
    EXPECT_EQ(k.spill_store_bytes, 8) << "spills are ptxas's";
    EXPECT_EQ(k.spill_load_bytes, 4);
  }
  EXPECT_EQ(t.compile->cache_hits, 1);
  EXPECT_FALSE(has_note(t, "need a GPU"));
}

TEST(CudaTargetReport, TheCpuBackendDescribesOnlyWhatItLoads) {
  const CpuBackend backend;
  Expected<DescribedProgram> d = backend.describe(lower_mixed(backend));
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().message(), "the CPU backend shows loops @mixed only by compiling and loading it");
}

// `kiln build --report` describes instead of loading only where the backend cannot run here.
TEST(CudaTargetReport, OnlyABackendThatCannotRunHereIsDescribedInsteadOfLoaded) {
  EXPECT_TRUE(CpuBackend().available());
  Status cuda = CudaBackend().available();
  if (cuda) GTEST_SKIP() << "a CUDA device is present";
  EXPECT_NE(cuda.error().message().find("CUDA"), std::string::npos) << cuda.error().message();
}

TEST(CudaTargetReport, HtmlShowsTheLaunchesMemoryAndHostCopies) {
  TargetReport t{.device = "CUDA sm_90 (not loaded)", .memory_bytes = 2048};
  t.kernels.push_back({.symbol = "kiln_<g>_k0",
                       .loop_kernel = "k0",
                       .grid = {4, 1, 1},
                       .block = {256, 1, 1},
                       .dynamic_shared_bytes = 1024,
                       .source_lines = 12,
                       .registers = 18});
  t.memory = {{"inputs", 1024}, {"outputs", 1024}};
  t.host_copied_ops = {"matmul"};
  t.notes = {"Not loaded: no <GPU>."};
  const std::string html = target_html(t);
  for (const char* part :
       {"<h4>On the device: CUDA sm_90 (not loaded)</h4>", "<p class=\"note\">Not loaded: no &lt;GPU&gt;.</p>",
        "<td class=\"code\">kiln_&lt;g&gt;_k0</td><td class=\"code\">@k0</td><td class=\"num\">4 × 1 × 1</td>"
        "<td class=\"num\">256 × 1 × 1</td><td class=\"num\">1024</td><td class=\"num\">18</td>"
        "<td class=\"num\">—</td>",
        "<td class=\"code\">inputs</td><td class=\"num\">1024</td>", "Planned device memory: 2.0 KiB",
        "Copied through the host (each run copies their operands to the host and back): <code>matmul</code>"})
    EXPECT_NE(html.find(part), std::string::npos) << part << "\n" << html;
  EXPECT_EQ(target_html(TargetReport{}), "");
}

TEST(CudaTargetReport, ReportWritesTheCudaSourceAndSection) {
  TempDir cache("kiln-cuda-report"), dir("kiln-cuda-report");
  const Described d = describe_mixed(cache.path());
  CompileReport r{.title = "cuda"};
  r.programs.push_back(report_described_program("@mixed", d.program, d.described, CudaBackend(), "no GPU here"));
  ASSERT_TRUE(write_compile_report(r, dir.path(), ReportOptions{.dot_program = "/nonexistent/kiln-test/dot"}).is_ok());
  std::ifstream in(std::filesystem::path(dir.path()) / "index.html");
  std::stringstream html;
  html << in.rdbuf();
  for (const char* part :
       {"generated CUDA C++: <a href=\"programs/1-mixed.cu\">", "<p class=\"note\">Not loaded: no GPU here</p>",
        "<h4>On the device: CUDA sm_90 (not loaded)</h4>", "<code>matmul</code>"})
    EXPECT_NE(html.str().find(part), std::string::npos) << part;
  EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(dir.path()) / "programs" / "1-mixed.cu"));
}

}  // namespace
}  // namespace kiln
